package am

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/amconf"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/dag"
)

// memRecorder keeps what a loop records, one line each; read it on the
// loop (Loop.View) or once the loop has stopped.
type memRecorder struct{ lines []string }

func (r *memRecorder) Event(_ time.Time, ev core.Event) {
	r.lines = append(r.lines, fmt.Sprintf("E %T %+v", ev, ev))
}
func (r *memRecorder) Drain(time.Time) { r.lines = append(r.lines, "D") }
func (r *memRecorder) Action(_ time.Time, a core.Action) {
	r.lines = append(r.lines, fmt.Sprintf("A %T", a))
}

func (r *memRecorder) index(prefix string) int {
	for i, l := range r.lines {
		if strings.HasPrefix(l, prefix) {
			return i
		}
	}
	return -1
}

// An attempt the loop cannot deliver (its worker's connection is gone)
// comes back to the Core as an event of its own, applied after the drain
// that sent it and recorded like any other, so a replay sees it; not as
// a call into the Core in the middle of the drain.
func TestUndeliverableAttemptIsAnEvent(t *testing.T) {
	o := amconf.Defaults()
	o.IDPrefix = "t_"
	c, err := core.NewCore(o)
	if err != nil {
		t.Fatal(err)
	}
	rec := &memRecorder{}
	l := NewLoop(c, LoopOptions{Recorder: rec, Tick: time.Hour})
	l.SetWorld(nopWorld{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- l.Run(runCtx) }()
	spec, err := dag.Parse("d.yaml", []byte(`name: d
containerGroup: {name: g, workerMemoryMB: 512}
vertices:
  - {name: v, command: ["true"], parallelism: 1, memoryMB: 128}
`))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := l.Ask(ctx, core.DAGArrived{Submission: core.Submission{Spec: spec}}); err != nil || r.Err != nil {
		t.Fatal(err, r.Err)
	}
	// Registered, but no connection: the attempt cannot be sent.
	if r, err := l.Ask(ctx, core.WorkerRegistered{Info: core.WorkerInfo{ID: "w", Group: "g", Node: "n", MemoryMB: 512, VCores: 1}}); err != nil || r.Err != nil {
		t.Fatal(err, r.Err)
	}
	for fed := false; !fed; {
		if err := l.View(ctx, func(ui.View) { fed = rec.index("E core.AttemptUpdated") >= 0 }); err != nil {
			t.Fatalf("no AttemptUpdated event was recorded: %v", err)
		}
	}
	l.Send(core.WorkerGone{Worker: "w", Reason: "gone"}) // ends the cycle
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	run, upd := rec.index("A core.RunAttempt"), rec.index("E core.AttemptUpdated")
	if run < 0 || upd < run {
		t.Fatalf("RunAttempt at %d, the fed-back event at %d, want it after:\n%s", run, upd, strings.Join(rec.lines, "\n"))
	}
	if want := fmt.Sprintf("Worker: Update:{AttemptID:t_dag_0001_v_000000_0 Result:%d ", core.AttemptKilled); !strings.Contains(rec.lines[upd], want) {
		t.Errorf("the fed-back event is %s, want the attempt killed with no reporting worker", rec.lines[upd])
	}
}
