package worker

import (
	"context"
	"errors"
	"testing"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// The fetcher keeps at most parallelCopies fetches in flight, however many
// inputs arrive at once, and the first failure is what wait returns.
func TestFetcherParallelCopiesLimit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan int32, 12)
	release := make(chan struct{})
	boom := errors.New("boom")
	f := &fetcher{ctx: ctx, cancel: cancel, sem: make(chan struct{}, parallelCopies), failed: make(chan struct{}),
		get: func(_ context.Context, in *ebbpb.InputFetch) error {
			started <- in.GetProducerTask()
			<-release
			if in.GetProducerTask() == 11 {
				return boom
			}
			return nil
		}}
	var ins []*ebbpb.InputFetch
	for i := 0; i < 12; i++ {
		ins = append(ins, &ebbpb.InputFetch{ProducerTask: int32(i)})
	}
	all := make(chan struct{})
	go func() { f.fetchAll(ins); close(all) }()
	for i := 0; i < parallelCopies; i++ {
		<-started
	}
	// Five are in flight, none released: the sixth cannot have started.
	select {
	case n := <-started:
		t.Fatalf("fetch %d started with %d in flight", n, parallelCopies)
	case <-all:
		t.Fatal("every fetch was started with five in flight")
	default:
	}
	for i := parallelCopies; i < 12; i++ {
		release <- struct{}{} // one ends, the next starts
		<-started
	}
	for i := 0; i < parallelCopies; i++ {
		release <- struct{}{}
	}
	<-all
	if err := f.wait(); !errors.Is(err, boom) {
		t.Errorf("wait = %v, want the failing fetch's error", err)
	}
}
