package core

import (
	"fmt"
	"testing"
	"time"
)

// A session is idle since its last DAG ended, not since it was last asked:
// a DAG that ran between two questions moves the answer; while one runs
// the answer is now; an earlier answer later than every end stands.
func TestIdleSinceTheLastDAGEnded(t *testing.T) {
	f := newFake(t, CoreOptions{})
	t0 := f.now
	if got := idleSince(f.c, f.now, t0); !got.Equal(t0) {
		t.Fatalf("no DAG yet: idle since %s, want the caller's %s", got, t0)
	}
	f.tick(time.Minute)
	f.submit(fmt.Sprintf(tinyDAG, 1))
	if got := idleSince(f.c, f.now, t0); !got.Equal(f.now) {
		t.Fatalf("a DAG waits: idle since %s, want now %s", got, f.now)
	}
	f.addWorker("w1", "g", "n1", 1024)
	f.tick(time.Minute)
	f.finishAll()
	f.tick(time.Second)
	ended := f.c.DAGs()[0].Finish
	if ended.IsZero() || !ended.After(t0) {
		t.Fatalf("the DAG did not end: %+v", f.c.DAGs()[0])
	}
	f.tick(10 * time.Minute)
	if got := idleSince(f.c, f.now, t0); !got.Equal(ended) {
		t.Fatalf("after the DAG: idle since %s, want its end %s", got, ended)
	}
	later := f.now.Add(-time.Minute)
	if got := idleSince(f.c, f.now, later); !got.Equal(later) {
		t.Fatalf("an earlier answer later than every end: %s, want %s", got, later)
	}
}

func idleSince(c *Core, now, since time.Time) time.Time {
	return ActivityQuery{}.answer(c).IdleSince(now, since)
}
