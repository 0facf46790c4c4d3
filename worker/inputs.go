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

// fetchInputs downloads every upstream partition, a few at a time. The
// first failure cancels the rest.
func (w *worker) fetchInputs(a *attempt) error {
	ins := a.req.GetInputs()
	if len(ins) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	const parallel = 4
	sem := make(chan struct{}, parallel)
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for _, in := range ins {
		sem <- struct{}{}
		if ctx.Err() != nil {
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if _, err := fetchInput(ctx, w.httpClient, w.o.Secret, a.req.GetDagId(), a.inputDir(), in); err != nil {
				once.Do(func() { firstErr = err; cancel() })
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// copySplits copies every input split to input/_splits/<i>.
func (w *worker) copySplits(a *attempt) error {
	splits := a.req.GetSplits()
	if len(splits) == 0 {
		return nil
	}
	dir := filepath.Join(a.inputDir(), "_splits")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, s := range splits {
		if err := a.ctx.Err(); err != nil {
			return err
		}
		if err := w.copySplit(filepath.Join(dir, strconv.Itoa(i)), s); err != nil {
			return err
		}
	}
	return nil
}

func (w *worker) copySplit(dst string, s *ebbpb.InputSplit) error {
	fsys, p, err := w.fss.resolve(s.GetPath())
	if err != nil {
		return err
	}
	in, err := fsys.Open(p)
	if err != nil {
		return fmt.Errorf("opening %s: %w", s.GetPath(), err)
	}
	defer func() { _ = in.Close() }() // read-only: a failed close loses nothing
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := copySplit(out, in, s.GetOffset(), s.GetLength()); err != nil {
		_ = out.Close()
		return fmt.Errorf("%s [%d+%d]: %w", s.GetPath(), s.GetOffset(), s.GetLength(), err)
	}
	return out.Close()
}
