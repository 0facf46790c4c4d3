package core

import (
	"strings"
	"testing"

	"github.com/ebb-am/ebb/dag"
)

// A session is not locked to the first DAG's group sizes: a DAG defining
// `default` at 3072 MB fails (here: killed before any worker came), its
// group has no DAG and no worker left, so a later DAG may define `default`
// at 1024 MB and run. While the 3072 MB DAG lives, the same request is a
// conflict.
func TestIdleGroupIsReleasedForANewDefinition(t *testing.T) {
	f := newFake(t, CoreOptions{})
	big := f.submit(`
name: big
containerGroup: {name: default, workerMemoryMB: 3072}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 3072}]
`)
	small := `
name: small
containerGroup: {name: default, workerMemoryMB: 1024}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 512}]
`
	s, err := dag.Parse("small.yaml", []byte(small))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.SubmitDAG(f.now, Submission{Spec: s}); err == nil || !strings.Contains(err.Error(), "in use by "+big) {
		t.Fatalf("while %s lives: err = %v, want a conflict naming it", big, err)
	}
	f.drain()
	if err := f.c.KillDAG(f.now, big, "test"); err != nil {
		t.Fatal(err)
	}
	f.drain()
	id := f.submit(small)
	if f.wanted["default"] != 1 {
		t.Fatalf("wanted %d workers of the new default, want 1", f.wanted["default"])
	}
	f.addWorker("w1", "default", "n1", 1024)
	if len(f.running) != 1 {
		t.Fatalf("%d attempts running, want 1", len(f.running))
	}
	f.finishAll()
	if st, _ := f.c.DAG(id); st.State != DAGSucceeded {
		t.Fatalf("the 1024 MB DAG is %s, want SUCCEEDED", st.State)
	}
}
