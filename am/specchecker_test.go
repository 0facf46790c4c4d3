package am

import (
	"errors"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/dag"
)

// refusingWorld refuses every DAG as a world that knows its cluster would
// (a node label the cluster lacks), and records any worker wanted.
type refusingWorld struct{ wantWorld }

var errNoLabel = errors.New("containerGroup.nodeLabel: node label \"ssd\": the cluster has no such label")

func (*refusingWorld) CheckSpec(*dag.Spec) error { return errNoLabel }

// Issue 23, item 4: a world that can refuse a DAG (SpecChecker) does so at
// submit: the client gets the world's reason with the DAG's name, and no
// worker is asked for.
func TestSubmitRefusedByTheWorld(t *testing.T) {
	w := &refusingWorld{}
	a, ctx := startAM(t, w, nil)
	_, err := a.Submit(ctx, SubmitRequest{Spec: []byte(oneSink), SpecName: "out.yaml"})
	if !errors.Is(err, errNoLabel) || !strings.HasPrefix(err.Error(), "out.yaml: ") {
		t.Fatalf("submit: %v, want the world's refusal, named out.yaml", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.wants != 0 {
		t.Errorf("%d workers wanted for a refused DAG", w.wants)
	}
}
