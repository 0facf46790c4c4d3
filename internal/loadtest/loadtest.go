// Package loadtest drives an AM with many concurrent clients, each
// submitting the same DAG file over and over through the client API and
// following every DAG to its end, and counts what came back: every DAG
// accepted must end, SUCCEEDED, with an output of its own. The YARN and
// local load tests and the load benchmark share it.
package loadtest

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/ebb-am/ebb/amclient"
)

// Options say how hard to push.
type Options struct {
	Clients, Each int
	Spec          []byte
	SpecName      string
	// Dial opens one client's own connection to the AM.
	Dial func(ctx context.Context) (*amclient.Client, error)
	// Poll is how often a client reads its DAG's status (default 100 ms).
	Poll time.Duration
	// Every, when set, is called after each Every-th DAG ends, with the
	// count so far (for RSS samples).
	Every   int
	OnEvery func(done int)
}

// Result is what a run saw.
type Result struct {
	Submitted, Succeeded int
	// Failed lists DAGs that ended otherwise, with their state and
	// diagnostics; Refused, submissions the AM did not accept; Lost,
	// DAGs whose status could not be followed to an end.
	Failed, Refused, Lost []string
	// Outputs counts the distinct outputs of the succeeded DAGs.
	Outputs int
	Elapsed time.Duration
}

// OK says whether every submission was accepted and succeeded with its own
// output.
func (r Result) OK() bool {
	return r.Submitted == r.Succeeded && len(r.Failed)+len(r.Refused)+len(r.Lost) == 0 && r.Outputs == r.Succeeded
}

func (r Result) String() string {
	s := fmt.Sprintf("%d submitted, %d succeeded, %d distinct outputs, %d failed, %d refused, %d lost in %s (%.1f DAGs/s)",
		r.Submitted, r.Succeeded, r.Outputs, len(r.Failed), len(r.Refused), len(r.Lost), r.Elapsed.Round(time.Millisecond),
		float64(r.Succeeded)/r.Elapsed.Seconds())
	for _, l := range [][]string{r.Failed, r.Refused, r.Lost} {
		if len(l) > 0 {
			s += "; e.g. " + l[0]
		}
	}
	return s
}

type tally struct {
	mu      sync.Mutex
	r       Result
	outputs map[string]bool
	o       Options
}

func (t *tally) add(f func(r *Result)) {
	t.mu.Lock()
	ended := func() int { return t.r.Succeeded + len(t.r.Failed) + len(t.r.Lost) }
	before := ended()
	f(&t.r)
	done := ended()
	t.mu.Unlock()
	if t.o.Every > 0 && t.o.OnEvery != nil && done > before && done%t.o.Every == 0 {
		t.o.OnEvery(done)
	}
}

// Run pushes o.Clients × o.Each submissions and waits for every DAG.
func Run(ctx context.Context, o Options) Result {
	if o.Poll == 0 {
		o.Poll = 100 * time.Millisecond
	}
	t := &tally{outputs: map[string]bool{}, o: o}
	start := time.Now()
	var wg sync.WaitGroup
	for i := range o.Clients {
		wg.Go(func() { t.client(ctx, fmt.Sprintf("load-%03d", i)) })
	}
	wg.Wait()
	t.r.Elapsed = time.Since(start)
	t.r.Outputs = len(t.outputs)
	sort.Strings(t.r.Failed)
	return t.r
}

func (t *tally) client(ctx context.Context, name string) {
	c, err := t.o.Dial(ctx)
	if err != nil {
		t.add(func(r *Result) {
			for range t.o.Each {
				r.Refused = append(r.Refused, fmt.Sprintf("%s: dial: %v", name, err))
			}
		})
		return
	}
	defer func() { _ = c.Close() }() // every DAG it submitted was followed to its end
	for range t.o.Each {
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		id, err := c.Submit(sctx, amclient.Submit{Spec: t.o.Spec, SpecName: t.o.SpecName, Client: name})
		cancel()
		if err != nil {
			t.add(func(r *Result) { r.Refused = append(r.Refused, fmt.Sprintf("%s: %v", name, err)) })
			continue
		}
		t.add(func(r *Result) { r.Submitted++ })
		t.follow(ctx, c, id)
	}
}

// follow polls a DAG until it ends (or ctx does: the DAG is lost).
func (t *tally) follow(ctx context.Context, c *amclient.Client, id string) {
	tick := time.NewTicker(t.o.Poll)
	defer tick.Stop()
	for {
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		d, err := c.Status(sctx, id)
		cancel()
		if err == nil {
			switch d.State {
			case amclient.Succeeded:
				t.mu.Lock()
				t.outputs[d.Output] = true
				t.mu.Unlock()
				t.add(func(r *Result) { r.Succeeded++ })
				return
			case amclient.Failed, amclient.Killed:
				t.add(func(r *Result) { r.Failed = append(r.Failed, fmt.Sprintf("%s %s: %s", id, d.State, d.Diagnostics)) })
				return
			}
		}
		select {
		case <-ctx.Done():
			t.add(func(r *Result) { r.Lost = append(r.Lost, fmt.Sprintf("%s: %v (last: %v)", id, ctx.Err(), err)) })
			return
		case <-tick.C:
		}
	}
}
