package yarnclient

import (
	"context"
	"errors"
	"github.com/ebb-am/ebb/proto/ebbpb"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
)

// An application that fails: each state once, the final line, the staging
// directory removed, and an *AppError a caller can tell apart.
func TestFollowFailedApplication(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	rm.reports = []yarn.AppReport{
		{State: yarn.StateAccepted, TrackingURL: "http://rm/proxy"},
		{State: yarn.StateAccepted, TrackingURL: "http://rm/proxy"},
		{State: yarn.StateFinished, Final: yarn.Failed, User: "alice", Diagnostics: "DAG failed"},
	}
	if _, err := fs.WriteFile(StagingDir("alice", rm.id)+"/"+StagedConf, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	var lines []string
	rep, err := testClient(t, testConf(t), rm, fs).Follow(context.Background(), rm.id, time.Now(), func(s string) { lines = append(lines, s) })
	var ae *AppError
	if !errors.As(err, &ae) || ae.Final != yarn.Failed || ae.Diagnostics != "DAG failed" || rep.State != yarn.StateFinished {
		t.Fatalf("Follow = %s, %v; want an *AppError", rep.State, err)
	}
	if want := "application " + rm.id.String() + " FINISHED (FAILED): DAG failed"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if len(lines) != 3 || !strings.HasPrefix(lines[0], rm.id.String()+" ACCEPTED after ") ||
		!strings.HasPrefix(lines[1], rm.id.String()+" FINISHED after ") ||
		!strings.HasPrefix(lines[2], "application "+rm.id.String()+" FINISHED, final status FAILED after ") {
		t.Errorf("progress:\n%s", strings.Join(lines, "\n"))
	}
	if len(fs.files) != 0 {
		t.Errorf("the staging directory was left: %v", fs.removed)
	}
}

func TestFollowSucceeded(t *testing.T) {
	rm := newFakeRM()
	rm.reports = []yarn.AppReport{{State: yarn.StateFinished, Final: yarn.Succeeded}}
	if _, err := testClient(t, testConf(t), rm, newMemStore()).Follow(context.Background(), rm.id, time.Now(), func(string) {}); err != nil {
		t.Errorf("err = %v", err)
	}
}

func TestTakeoverLineNamesTheAttemptAndWhereDAGsResumed(t *testing.T) {
	got := TakeoverLine(2, []*ebbpb.DAGStatus{
		{DagId: "dag_0001", State: "SUCCEEDED", SucceededTasks: 3, TotalTasks: 3},
		{DagId: "dag_0002", State: "RUNNING", SucceededTasks: 5, TotalTasks: 8},
		{DagId: "dag_0003", State: "SUBMITTED", SucceededTasks: 0, TotalTasks: 4},
	})
	want := "AM attempt 2 took over; DAG dag_0002 resumed at 5/8 tasks; DAG dag_0003 resumed at 0/4 tasks"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
