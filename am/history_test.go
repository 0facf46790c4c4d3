package am

import (
	"context"
	"github.com/ebb-am/ebb/am/amconf"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am/ui"
)

// The AM checkpoints its history while it runs and writes the final one
// as it stops; nothing is written after the final one.
func TestHistoryCheckpointsThenFinal(t *testing.T) {
	log := logrus.New()
	log.SetOutput(io.Discard)
	var mu sync.Mutex
	var writes [][]byte
	a, err := New(Options{Core: amconf.Defaults(), Listen: "127.0.0.1:0", Secret: "s", Log: log, HistoryEvery: 20 * time.Millisecond,
		History: func(b []byte) error {
			mu.Lock()
			writes = append(writes, b)
			mu.Unlock()
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	a.SetWorld(nopWorld{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	if _, err := a.Submit(ctx, SubmitRequest{SpecName: "x.yaml", Spec: []byte(`
name: kept
containerGroup: {name: g, workerMemoryMB: 512}
vertices: [{name: v, command: "true", parallelism: 2, memoryMB: 256}]
`)}); err != nil {
		t.Fatal(err)
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(writes) }
	for count() < 2 { // two checkpoints: the ticker runs
		select {
		case <-ctx.Done():
			t.Fatal("no checkpoint was written")
		case <-time.After(10 * time.Millisecond):
		}
	}
	a.Stop("test over")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	n := count()
	time.Sleep(60 * time.Millisecond) // three checkpoint periods: none may follow the final write
	if count() != n {
		t.Errorf("%d writes after the final one", count()-n)
	}
	last, err := ui.DecodeSnapshot(writes[n-1])
	if err != nil {
		t.Fatal(err)
	}
	if last.App.Finished.IsZero() || len(last.DAGList) != 1 || last.DAGList[0].Name != "kept" {
		t.Errorf("the final history: finished %v, DAGs %+v", last.App.Finished, last.DAGList)
	}
}
