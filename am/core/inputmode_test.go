package core

import "testing"

// TestInputModeFileCopiesSplits: a vertex's inputMode: file reaches its
// attempts as SplitsAsFiles; the default (stream) does not.
func TestInputModeFileCopiesSplits(t *testing.T) {
	f := newFake(t, CoreOptions{})
	f.submit(`
name: modes
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: streamed, command: "true", parallelism: 1, memoryMB: 256}
  - {name: copied, command: "true", parallelism: 1, memoryMB: 256, inputMode: file}
`)
	f.addWorker("w1", "g", "n1", 4096)
	got := map[string]bool{}
	for id := range f.running {
		s := f.c.attemptSpec(f.c.attempt[id])
		got[s.Vertex] = s.SplitsAsFiles
	}
	if len(got) != 2 || got["streamed"] || !got["copied"] {
		t.Errorf("SplitsAsFiles by vertex = %v, want streamed false, copied true", got)
	}
}
