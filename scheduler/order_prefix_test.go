package scheduler

import (
	"reflect"
	"testing"
)

// Every order that says it reads only a prefix of the heads picks the
// same from that prefix as from the whole list: heads made so that an
// order reading further (fewest running, least memory, last) would pick
// another one.
func TestHeadsReadPrefix(t *testing.T) {
	lists := [][]QueueHead{
		nil,
		{{DAG: "a", Running: 3, MemoryMB: 4096}},
		{{DAG: "a", Running: 3, MemoryMB: 4096}, {DAG: "b", Running: 0, MemoryMB: 512}},
		{{DAG: "a", Running: 9}, {DAG: "b", Running: 1}, {DAG: "c", Running: 0, MemoryMB: 1}},
	}
	for _, name := range TaskOrderNames() {
		o, _ := NewTaskOrder(name)
		hr, ok := o.(HeadsReader)
		if !ok {
			continue
		}
		k := hr.HeadsRead()
		if k < 1 {
			t.Fatalf("%s reads %d heads, want at least 1", name, k)
		}
		for _, heads := range lists {
			full, fullOK := o.Next(&OrderSnapshot{Heads: heads})
			prefix, prefixOK := o.Next(&OrderSnapshot{Heads: heads[:min(k, len(heads))]})
			if fullOK != prefixOK || !reflect.DeepEqual(full, prefix) {
				t.Errorf("%s on %d heads: picks %d (ok %v) from all, %d (ok %v) from the first %d", name, len(heads), full.Head, fullOK, prefix.Head, prefixOK, k)
			}
		}
	}
}
