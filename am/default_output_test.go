package am

import (
	"context"
	"github.com/ebb-am/ebb/am/amconf"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am/core"
)

// Many clients submitting the same file with no output at once all get in,
// each with an output of its own (issue 24: half of them used to collide
// on a name made of the DAG's name and a millisecond), and two AMs over
// the same output root (a session and the next one, whose DAG ids start
// again at dag_0001) never pick the same output either.
func TestDefaultOutputsNeverCollide(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ebb-output")
	const clients, each = 200, 2
	outputs := map[string]string{}
	for am := 0; am < 2; am++ {
		log := logrus.New()
		log.SetOutput(io.Discard)
		a, err := New(Options{Listen: "127.0.0.1:0", Secret: "s", Log: log, OutputRoot: root, Core: amconf.Defaults()})
		if err != nil {
			t.Fatal(err)
		}
		a.SetWorld(nopWorld{})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		done := make(chan error, 1)
		go func() { done <- a.Run(ctx) }()
		var wg sync.WaitGroup
		ids := make(chan string, clients*each)
		errs := make(chan error, clients*each)
		for range clients {
			wg.Go(func() {
				for range each {
					id, err := a.Submit(ctx, SubmitRequest{SpecName: "tiny.yaml", Spec: []byte(oneSink), Client: "c"})
					if err != nil {
						errs <- err
						continue
					}
					ids <- id
				}
			})
		}
		wg.Wait()
		close(ids)
		close(errs)
		for err := range errs {
			t.Errorf("AM %d refused a submission: %v", am, err)
		}
		for id := range ids {
			ans, err := Query(ctx, a.loop, core.DAGQuery{ID: id})
			if err != nil {
				t.Fatal(err)
			}
			s := ans.Status
			if !strings.HasPrefix(s.Output, root+"/") {
				t.Errorf("DAG %s writes to %q, want a directory under %s", id, s.Output, root)
			}
			if other, dup := outputs[s.Output]; dup {
				t.Errorf("DAG %s of AM %d and %s both write to %s", id, am, other, s.Output)
			}
			outputs[s.Output] = id
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("AM %d ended with %v", am, err)
		}
	}
	if len(outputs) != 2*clients*each {
		t.Errorf("%d distinct outputs, want %d", len(outputs), 2*clients*each)
	}
}
