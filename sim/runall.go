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

// RunAll replays the same jobs under each policy, up to GOMAXPROCS at a
// time, and returns the results in the policies' order. Each replay owns
// its core, cloud and clock and only reads jobs, so replays run side by
// side (TestRunAllMatchesRun holds that under -race); done, if not nil, is
// called as each one ends, from its goroutine.
func RunAll(jobs []Job, cfg Config, policies []Policy, done func(Result)) []Result {
	out := make([]Result, len(policies))
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
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
