package core

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/scheduler"
)

// The autoscaler as the core drives it (MR3's defaults: 10 s samples, 80%
// scale-out and 50% scale-in thresholds, one worker per scale-out, one node
// per scale-in, one host kept).
//
// Two 1024 MB workers on n1 and n2 each run one 1024 MB attempt (usage
// 100%) while four more are queued: the first sample sees 100% >= 80% with
// work queued, so the group goes STABLE -> SCALE_OUT and wants 2 + 1 = 3
// workers. When the DAG is done usage is 0% <= 50%; once the delay after
// scale-out (60 s) and the scale-out grace (300 s) have passed the group
// goes to SCALE_IN and drains one node (min hosts 1 keeps the other), whose
// worker stops.
func TestAutoscalerScalesOutThenIn(t *testing.T) {
	cfg := scheduler.DefaultAutoscaleConfig()
	f := newFake(t, CoreOptions{Scaling: ScaleAutoscaler, Autoscale: cfg, IdleTimeout: time.Hour})
	id := f.submit(`
name: burst
containerGroup: {name: g, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 6, memoryMB: 1024}]
`)
	f.addWorker("w1", "g", "n1", 1024)
	f.addWorker("w2", "g", "n2", 1024)
	f.tick(cfg.Interval)
	trs := f.c.Transitions()
	if len(trs) == 0 || trs[len(trs)-1].To != "SCALE_OUT" || trs[len(trs)-1].Reason == "" {
		t.Fatalf("transitions %+v, want a STABLE -> SCALE_OUT with its reason", trs)
	}
	if f.wanted["g"] != 3 {
		t.Fatalf("wanted %d workers, want 3 (2 live + 1 increment)", f.wanted["g"])
	}
	gs := f.c.Groups()
	if len(gs) != 1 || gs[0].State != "SCALE_OUT" || gs[0].Workers != 2 {
		t.Fatalf("groups %+v", gs)
	}
	for i := 0; i < 10 && len(f.ended) == 0; i++ {
		f.finishAll()
	}
	if st, _ := f.c.DAG(id); st.State != DAGSucceeded {
		t.Fatalf("DAG %s", st.State)
	}
	for i := 0; i < 60 && !slices.ContainsFunc(f.c.Transitions(), func(tr Transition) bool { return tr.To == "SCALE_IN" }); i++ {
		f.tick(cfg.Interval)
	}
	var in *Transition
	for _, tr := range f.c.Transitions() {
		if tr.To == "SCALE_IN" {
			in = &tr
		}
	}
	if in == nil {
		t.Fatalf("no SCALE_IN within 10 minutes of idleness: %+v", f.c.Transitions())
	}
	out := f.c.Transitions()[0]
	if in.At.Sub(out.At) < cfg.OutGracePeriod {
		t.Errorf("SCALE_IN at %s after SCALE_OUT, before the %s grace: the third worker never came, so only the grace ends SCALE_OUT",
			in.At.Sub(out.At), cfg.OutGracePeriod)
	}
	if len(f.stopped) != 1 {
		t.Fatalf("stopped %v, want exactly one worker (one node drained, one host kept)", f.stopped)
	}
	drained := 0
	for _, n := range f.c.Nodes() {
		if n.Draining {
			drained++
		}
	}
	if drained > 1 || !strings.Contains(strings.Join(f.logs, "\n"), "draining") {
		t.Errorf("%d nodes draining; logs lack the drain", drained)
	}
}
