package worker

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// Two racing attempts of one sink task (speculation): each asks before it
// commits and publishes nothing until the AM grants it; the granted one
// commits, the other is killed and leaves nothing. The output is the
// winner's alone.
func TestSinkCommitsOnlyWhenGranted(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	out := filepath.Join(t.TempDir(), "out")
	race := func(id, text string) {
		a := shellAttempt(id, "d", "echo "+text+" > output/part")
		a.CommitDir, a.AskCommit, a.TaskIndex = out, true, 3
		w.conn.run(a)
	}
	race("orig", "original")
	race("backup", "backup")
	asked := w.conn.states(t, 2, func(s ebbpb.AttemptState) bool { return s != ebbpb.AttemptState_ATTEMPT_RUNNING })
	if asked["orig"] != ebbpb.AttemptState_ATTEMPT_COMMIT_PENDING || asked["backup"] != ebbpb.AttemptState_ATTEMPT_COMMIT_PENDING {
		t.Fatalf("updates %v, want both attempts to ask to commit", asked)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Fatalf("%s holds %d entries before any grant, want none", out, len(ents))
	}
	w.conn.send(&ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Commit{Commit: &ebbpb.CommitGranted{AttemptId: "backup"}}})
	w.conn.send(&ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Kill{Kill: &ebbpb.KillAttempt{AttemptId: "orig", Reason: "lost the race"}}})
	finals := w.conn.states(t, 2, func(s ebbpb.AttemptState) bool {
		return s != ebbpb.AttemptState_ATTEMPT_RUNNING && s != ebbpb.AttemptState_ATTEMPT_COMMIT_PENDING
	})
	if finals["backup"] != ebbpb.AttemptState_ATTEMPT_SUCCEEDED || finals["orig"] != ebbpb.AttemptState_ATTEMPT_KILLED {
		t.Fatalf("final updates %v, want backup SUCCEEDED and orig KILLED", finals)
	}
	b, err := os.ReadFile(filepath.Join(out, "part-00003"))
	if err != nil || string(b) != "backup\n" {
		t.Fatalf("committed part-00003 = %q (%v), want the winner's %q", b, err, "backup\n")
	}
	if ents, _ := os.ReadDir(out); len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %v, want part-00003 alone", out, names)
	}
}

// states collects the state of the first update of n attempts for which
// keep holds, failing the test after 20 s.
func (c *amConn) states(t *testing.T, n int, keep func(ebbpb.AttemptState) bool) map[string]ebbpb.AttemptState {
	t.Helper()
	got := map[string]ebbpb.AttemptState{}
	deadline := time.After(20 * time.Second)
	for len(got) < n {
		select {
		case m := <-c.fromW:
			if u := m.GetAttempt(); u != nil && keep(u.GetState()) {
				if _, seen := got[u.GetAttemptId()]; !seen {
					got[u.GetAttemptId()] = u.GetState()
				}
			}
		case <-deadline:
			t.Fatalf("updates %v within 20s, want %d attempts'", got, n)
		}
	}
	return got
}

// The ask is repeated until answered, so an AM that took over after the
// first one (it never saw it) still hears it and can grant.
func TestCommitAskRepeatedUntilGranted(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	a := shellAttempt("only", "d", "echo x > output/part")
	a.CommitDir, a.AskCommit = filepath.Join(t.TempDir(), "out"), true
	w.conn.run(a)
	w.conn.waitUpdate(t, "only", ebbpb.AttemptState_ATTEMPT_COMMIT_PENDING)
	w.conn.waitUpdate(t, "only", ebbpb.AttemptState_ATTEMPT_COMMIT_PENDING)
	w.conn.send(&ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Commit{Commit: &ebbpb.CommitGranted{AttemptId: "only"}}})
	w.conn.waitUpdate(t, "only", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
}
