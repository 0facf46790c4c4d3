package sim

import (
	"runtime"
	"sync"
)

// Result is one policy's replay: its recording, or why it could not run.
type Result struct {
	Policy Policy
	Rec    *Recorder
	Err    error
}

// RunAll replays the same jobs under each policy, up to parallel at a time
// (≤ 0: GOMAXPROCS), and returns the results in the policies' order. Each
// replay holds its own copy of the cluster's and the core's state, so
// memory grows with parallel (the 24k-job day: 354 MB with all six
// default policies at once; docs/benchmarks.md). Each replay owns
// its core, cloud and clock and only reads jobs, so replays run side by
// side (TestRunAllMatchesRun holds that under -race); done, if not nil, is
// called as each one ends, from its goroutine.
func RunAll(jobs []Job, cfg Config, policies []Policy, parallel int, done func(Result)) []Result {
	out := make([]Result, len(policies))
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	slots := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, p := range policies {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			rec, err := Run(jobs, cfg, p)
			out[i] = Result{Policy: p, Rec: rec, Err: err}
			if done != nil {
				done(out[i])
			}
		}()
	}
	wg.Wait()
	return out
}
