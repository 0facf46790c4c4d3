package yarnclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
)

func TestCleanRemovesEndedAndOldOrphanStagingOnly(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	app := func(n int32) yarn.AppID { return yarn.AppID{ClusterTS: 1700000000000, ID: n} }
	rm.byID = map[yarn.AppID]yarn.AppReport{
		app(1): {State: yarn.StateFailed, Final: yarn.Failed},
		app(2): {State: yarn.StateRunning},
		app(3): {State: yarn.StateFinished, Final: yarn.Succeeded},
		app(6): {State: yarn.StateAccepted},
	}
	root := StagingRoot("alice")
	fs.mtime = map[string]time.Time{
		root + "/" + app(4).String(): now.Add(-2 * time.Hour), // unknown, old: a leftover
		root + "/" + app(5).String(): now.Add(-time.Minute),   // unknown, young: maybe being submitted
	}
	for _, n := range []int32{1, 2, 3, 4, 5, 6} {
		if _, err := fs.WriteFile(StagingDir("alice", app(n))+"/"+StagedConf, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := fs.WriteFile(root+"/README/x", []byte("not an application"), 0o600); err != nil {
		t.Fatal(err)
	}
	yc := testClient(t, testConf(t), rm, fs)
	got, err := yc.Clean(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	var apps []string
	for _, c := range got {
		apps = append(apps, c.App+" "+c.Reason)
	}
	want := []string{
		app(1).String() + " FAILED (FAILED)",
		app(3).String() + " FINISHED (SUCCEEDED)",
		app(4).String() + " unknown to the ResourceManager, staged 2h0m0s ago",
	}
	if strings.Join(apps, "\n") != strings.Join(want, "\n") {
		t.Fatalf("removed\n%s\nwant\n%s", strings.Join(apps, "\n"), strings.Join(want, "\n"))
	}
	for _, n := range []int32{2, 5, 6} {
		if _, err := fs.ReadFile(StagingDir("alice", app(n)) + "/" + StagedConf); err != nil {
			t.Errorf("the staging directory of live or young application %s was removed", app(n))
		}
	}
	if _, err := fs.ReadFile(root + "/README/x"); err != nil {
		t.Error("a directory that is not an application's was removed")
	}
}

func TestCleanKeepsEverythingWhenTheRMCannotAnswer(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore() // no reports: every Report fails, not as "not found"
	if _, err := fs.WriteFile(StagingDir("alice", rm.id)+"/"+StagedConf, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := testClient(t, testConf(t), rm, fs).Clean(context.Background(), time.Now())
	if err == nil || len(got) != 0 {
		t.Fatalf("Clean = %v, %v; want nothing removed and the RM's error", got, err)
	}
	if len(fs.removed) != 0 {
		t.Fatalf("removed %v without knowing the applications' states", fs.removed)
	}
}

func TestDetachReportsAFailedApplicationAndRemovesItsStaging(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	diag := "Application application_1700000000000_0007 submitted by user alice to unknown queue: nosuch"
	rm.reports = []yarn.AppReport{{State: yarn.StateAccepted}, {State: yarn.StateFailed, Final: yarn.Failed, Diagnostics: diag}}
	if _, err := fs.WriteFile(StagingDir("alice", rm.id)+"/"+StagedConf, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := testClient(t, testConf(t), rm, fs).Detach(context.Background(), rm.id, time.Minute)
	var ae *AppError
	if !errors.As(err, &ae) || ae.Diagnostics != diag || ae.State != yarn.StateFailed {
		t.Fatalf("Detach = %v; want an *AppError FAILED with the RM's diagnostics", err)
	}
	if len(fs.removed) != 1 || fs.removed[0] != StagingDir("alice", rm.id) {
		t.Fatalf("removed %v; want the staging directory", fs.removed)
	}
}

func TestDetachReturnsOnceTheAMRuns(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	rm.reports = []yarn.AppReport{{State: yarn.StateAccepted}, {State: yarn.StateRunning, RPCPort: 4000}}
	rep, err := testClient(t, testConf(t), rm, fs).Detach(context.Background(), rm.id, time.Minute)
	if err != nil || rep.State != yarn.StateRunning {
		t.Fatalf("Detach = %v, %v; want RUNNING and no error", rep.State, err)
	}
	if len(fs.removed) != 0 {
		t.Fatalf("removed %v of a running application", fs.removed)
	}
}
