package worker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// parallelCopies is how many partitions an attempt fetches at once,
// MapReduce's mapreduce.reduce.shuffle.parallelcopies default.
const parallelCopies = 5

// fetchInputs downloads every upstream partition, parallelCopies at a
// time. An attempt started under slow start (RunAttempt.incomplete) also
// fetches the partitions the AM sends later, as they arrive, and returns
// once the AttemptInputs marked complete has come and everything is
// fetched. The first failure cancels the rest.
func (w *worker) fetchInputs(a *attempt) error {
	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	f := &fetcher{ctx: ctx, cancel: cancel, sem: make(chan struct{}, parallelCopies), failed: make(chan struct{}),
		get: func(ctx context.Context, in *ebbpb.InputFetch) error {
			_, err := fetchInput(ctx, w.httpClient, w.o.Secret, a.req.GetDagId(), a.inputDir(), in)
			return err
		}}
	f.fetchAll(a.req.GetInputs())
	complete := !a.req.GetIncomplete()
	for !complete {
		select {
		case <-a.moreCh:
			for _, m := range a.takeInputs() {
				a.log.WithField("inputs", len(m.GetInputs())).Debug("more inputs")
				f.fetchAll(m.GetInputs())
				complete = complete || m.GetComplete()
			}
		case <-f.failed:
			complete = true
		case <-ctx.Done():
			complete = true
		}
	}
	return f.wait()
}

// attemptInputs hands later inputs to the running attempt they are for.
func (w *worker) attemptInputs(m *ebbpb.AttemptInputs) {
	w.mu.Lock()
	a := w.running[m.GetAttemptId()]
	w.mu.Unlock()
	if a == nil {
		w.log.WithField("attempt", m.GetAttemptId()).Warn("inputs for an attempt that is not running: ignored")
		return
	}
	a.addInputs(m)
}

// grantCommit lets an attempt that asked commit its output.
func (w *worker) grantCommit(id string) {
	w.mu.Lock()
	a := w.running[id]
	w.mu.Unlock()
	if a == nil {
		w.log.WithField("attempt", id).Warn("commit grant for an attempt that is not running: ignored")
		return
	}
	a.grant()
}

// fetcher runs fetches with at most cap(sem) in flight; the first error
// cancels the others and closes failed.
type fetcher struct {
	ctx    context.Context
	cancel context.CancelFunc
	sem    chan struct{}
	get    func(context.Context, *ebbpb.InputFetch) error
	wg     sync.WaitGroup
	once   sync.Once
	err    error
	failed chan struct{}
}

// fetchAll starts a fetch per input, waiting for a free copy slot before
// each, and returns once all are started (or the fetcher has failed).
func (f *fetcher) fetchAll(ins []*ebbpb.InputFetch) {
	for _, in := range ins {
		select {
		case f.sem <- struct{}{}:
		case <-f.ctx.Done():
			return
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			defer func() { <-f.sem }()
			if err := f.get(f.ctx, in); err != nil {
				f.once.Do(func() { f.err = err; f.cancel(); close(f.failed) })
			}
		}()
	}
}

// wait waits for every started fetch and returns the first error.
func (f *fetcher) wait() error {
	f.wg.Wait()
	return f.err
}

// copySplits copies every input split to input/_splits/<i>.
func (w *worker) copySplits(a *attempt) error {
	splits := a.req.GetSplits()
	if len(splits) == 0 {
		return nil
	}
	dir := splitsDir(a)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, s := range splits {
		if err := a.ctx.Err(); err != nil {
			return err
		}
		if err := w.copySplit(a, filepath.Join(dir, strconv.Itoa(i)), s); err != nil {
			return err
		}
	}
	return nil
}

func (w *worker) copySplit(a *attempt, dst string, s *ebbpb.InputSplit) error {
	in, err := w.openSplit(a, s.GetPath())
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }() // read-only: a failed close loses nothing
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := copyInputSplit(out, in, s); err != nil {
		_ = out.Close()
		return fmt.Errorf("%s [%d+%d]: %w", s.GetPath(), s.GetOffset(), s.GetLength(), err)
	}
	return out.Close()
}
