package core

import (
	"testing"

	"github.com/ebb-am/ebb/dag"
)

// TestStreamVertexCarriesItsSettings: a stream vertex's attempts get its
// resolved settings in EBB_STREAM, which the worker reads; other vertices
// get none.
func TestStreamVertexCarriesItsSettings(t *testing.T) {
	f := newFake(t, CoreOptions{})
	f.submit(`
name: s
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: plain, command: "true", parallelism: 1, memoryMB: 256}
  - {name: mapper, command: "cat", parallelism: 1, memoryMB: 256, stream: {}}
  - {name: reducer, command: "cat", parallelism: 1, memoryMB: 256, stream: {}}
edges:
  - {from: mapper, to: reducer, type: scatter-gather, shuffle: {sortOptions: "-k1,1n"}}
`)
	f.addWorker("w1", "g", "n1", 4096)
	got := map[string]string{}
	for id := range f.running {
		s := f.c.attemptSpec(f.c.attempt[id])
		got[s.Vertex] = s.Env[dag.EnvStream]
	}
	if got["plain"] != "" {
		t.Errorf("plain vertex got %s=%q", dag.EnvStream, got["plain"])
	}
	sio, err := dag.DecodeStreamIO(got["mapper"])
	if err != nil || sio.Out == nil || sio.Out.SortOptions != "-k1,1n" {
		t.Errorf("mapper's %s = %q (%v): want its shuffle", dag.EnvStream, got["mapper"], err)
	}
}
