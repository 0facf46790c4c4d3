package dag

import (
	"strings"
	"testing"
)

// FuzzParse: no input makes the DAG reader panic, and every error is one
// line naming the file.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(`{"name":"j","containerGroup":{"name":"g","workerMemoryMB":512},"vertices":[{"name":"v","command":["true"],"parallelism":1,"memoryMB":128}]}`))
	f.Add([]byte("name: [\n"))
	f.Add([]byte("vertices: {a: 1}\nedges: 7\n"))
	f.Add([]byte(good + "  - {from: reduce, to: map, type: broadcast}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("f.yaml", data)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "f.yaml") {
				t.Fatalf("error does not name the file: %q", msg)
			}
			return
		}
		if len(s.Vertices) == 0 || len(s.Topo()) != len(s.Vertices) {
			t.Fatalf("accepted spec is not a DAG of vertices: %+v", s)
		}
	})
}
