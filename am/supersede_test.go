package am

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// confirmWorld is a world whose attempt the cluster may have replaced.
type confirmWorld struct {
	nopWorld
	err error // what ConfirmCurrent says
}

func (w confirmWorld) ConfirmCurrent(context.Context) error { return w.err }
func (w confirmWorld) Superseded() string {
	if w.err != nil {
		return w.err.Error()
	}
	return ""
}

var _ AttemptConfirmer = confirmWorld{}

// Issue 33, the AM paused: attempt 1 of the AM wakes after the RM has
// started attempt 2. Its DAG succeeded, but the world cannot confirm the
// attempt is current: it neither promotes the output nor removes the
// staged one (attempt 2 needs it), records no end, and stops. Confirmed,
// the same DAG is promoted.
func TestSupersededAMCommitsNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"confirmed", nil, []string{"promote /data/out"}},
		{"superseded", errors.New("the ResourceManager no longer knows this attempt"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := &fakeCommitter{}
			a, ctx := startAM(t, confirmWorld{err: tc.err}, fc)
			id, err := a.Submit(ctx, SubmitRequest{SpecName: "x.yaml", Spec: []byte(oneSink), Output: "/data/out"})
			if err != nil {
				t.Fatal(err)
			}
			a.dagEnded(core.DAGStatus{ID: id, State: core.DAGSucceeded, Output: "/data/out"}, nil)
			if tc.err == nil {
				if s, err := a.WaitDAG(ctx, id); err != nil || s.State != core.DAGSucceeded {
					t.Fatalf("WaitDAG = %v %v", s.State, err)
				}
			} else {
				select {
				case <-a.stopped:
				case <-time.After(10 * time.Second):
					t.Fatal("the superseded AM did not stop")
				}
				a.settling.Wait()
				a.abandonOutputs() // as Run does as it ends: still nothing
				if r := a.supersededBy(); !strings.Contains(r, "no longer knows") {
					t.Errorf("supersededBy = %q", r)
				}
			}
			if got := fc.recorded(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("committer calls %v, want %v", got, tc.want)
			}
		})
	}
}
