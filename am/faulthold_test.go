package am

import (
	"reflect"
	"testing"

	"github.com/ebb-am/ebb/am/amconf"
	"github.com/ebb-am/ebb/am/core"
)

// The hold points of ebb.fault.am.hold.at are reached exactly where the
// crash tests kill the AM, once each: commit-reported by the success of
// the first attempt granted its commit only (not by another attempt's
// success, nor by that attempt's progress), commit-granted by the first
// grant, amworker-started by its own step only. Each case runs numbered
// steps and says at which the loop held.
func TestFaultHoldPoints(t *testing.T) {
	heldAt := func(at string, steps ...func(l *Loop)) []int {
		t.Helper()
		c, err := core.NewCore(amconf.Defaults())
		if err != nil {
			t.Fatal(err)
		}
		l := NewLoop(c, LoopOptions{HoldAt: at})
		var got []int
		step := 0
		l.fault.stop = func() { got = append(got, step) }
		for i, s := range steps {
			step = i + 1
			s(l)
		}
		return got
	}
	reported := func(id string, r core.AttemptResult) func(l *Loop) {
		return func(l *Loop) {
			l.holdReported(core.AttemptUpdated{Update: core.AttemptUpdate{AttemptID: id, Result: r}})
		}
	}
	grant := func(id string) func(l *Loop) { return func(l *Loop) { l.granted(id) } }
	started := func(l *Loop) { l.hold(HoldAMWorkerStarted, "test") }

	if got := heldAt(HoldCommitReported,
		reported("a1", core.AttemptSucceeded), // 1: before any grant
		grant("a1"), grant("a2"),              // 2, 3
		reported("a2", core.AttemptSucceeded), // 4: not the first granted
		reported("a1", core.AttemptRunning),   // 5: not its success
		reported("a1", core.AttemptSucceeded), // 6: here
		reported("a1", core.AttemptSucceeded), // 7: once only
	); !reflect.DeepEqual(got, []int{6}) {
		t.Errorf("commit-reported held at steps %v, want 6 only", got)
	}
	if got := heldAt(HoldCommitGranted, started, grant("a1"), grant("a1"), grant("a2")); !reflect.DeepEqual(got, []int{2}) {
		t.Errorf("commit-granted held at steps %v, want 2 only", got)
	}
	if got := heldAt(HoldAMWorkerStarted, grant("a1"), reported("a1", core.AttemptSucceeded), started, started); !reflect.DeepEqual(got, []int{3}) {
		t.Errorf("amworker-started held at steps %v, want 3 only", got)
	}
	c, _ := core.NewCore(amconf.Defaults())
	if l := NewLoop(c, LoopOptions{HoldAt: "none"}); l.fault != nil {
		t.Error("HoldAt none set a hold point")
	}
}
