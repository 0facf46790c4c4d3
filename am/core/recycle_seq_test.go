package core

import (
	"fmt"
	"testing"

	"github.com/ebb-am/ebb/scheduler"
)

// Ten DAGs alternating between two groups of one kind, one at a time:
// under fifo one worker serves them all and the cluster is asked for one.
func TestFIFOAlternatingNeedsOneWorker(t *testing.T) {
	f := newFake(t, CoreOptions{Recycle: scheduler.RecycleFIFO, MaxConcurrentDAGs: 1})
	for i := 0; i < 10; i++ {
		f.submit(oneTask(fmt.Sprintf("d%d", i), []string{"a", "b"}[i%2]))
	}
	f.addWorker("w1", "a", "n1", 1024)
	var trace []string
	for i := 0; i < 12 && len(f.running) > 0; i++ {
		f.finishAll()
		trace = append(trace, fmt.Sprintf("a=%d b=%d", f.wanted["a"], f.wanted["b"]))
	}
	if len(f.ended) != 10 {
		t.Fatalf("%d DAGs ended; wanted totals %v", len(f.ended), trace)
	}
	for _, s := range trace {
		if s != "a=1 b=0" && s != "a=0 b=1" && s != "a=0 b=0" {
			t.Fatalf("the cluster was asked for more than the one worker: %v", trace)
		}
	}
}
