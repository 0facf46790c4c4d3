package dag

import (
	"strings"
	"testing"
	"time"
)

const good = `name: wc
containerGroup:
  name: default
  workerMemoryMB: 1024
goal: {within: 10m}
vertices:
  - name: map
    command: [ebb, task, wc-map]
    parallelism: 2
    memoryMB: 256
    inputs: [input.txt]
  - name: reduce
    command: ebb task wc-reduce
    parallelism: 2
    memoryMB: 256
edges:
  - {from: map, to: reduce, type: scatter-gather}
`

func TestParseGood(t *testing.T) {
	s, err := Parse("wc.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Vertices[0].Command; len(got) != 3 || got[0] != "ebb" {
		t.Errorf("list command = %q", got)
	}
	if got := s.Vertices[1].Command; len(got) != 3 || got[0] != "/bin/sh" || got[2] != "ebb task wc-reduce" {
		t.Errorf("string command = %q", got)
	}
	d, ok := s.Goal.Deadline(time.Unix(0, 0))
	if !ok || d != time.Unix(600, 0) {
		t.Errorf("deadline = %v %v", d, ok)
	}
	if s.Edges[0].Type != ScatterGather {
		t.Errorf("edge type %v", s.Edges[0].Type)
	}
}

func TestParseJSON(t *testing.T) {
	_, err := Parse("x.json", []byte(`{"name":"j","containerGroup":{"name":"g","workerMemoryMB":512},
	  "vertices":[{"name":"v","command":["true"],"parallelism":1,"memoryMB":128,"simDurations":["3s"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
}

// Each bad spec gives one line naming the file, the line and the field.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, spec, want string
	}{
		{"cycle", good + "  - {from: reduce, to: map, type: one-to-one}\n",
			"bad.yaml:18: edges[1]: cycle: map -> reduce -> map"},
		{"self loop", strings.Replace(good, "to: reduce", "to: map", 1),
			"bad.yaml:17: edges[0]: cycle: map -> map"},
		{"unknown vertex", strings.Replace(good, "to: reduce", "to: reduse", 1),
			`bad.yaml:17: edges[0].to: unknown vertex "reduse" (vertices are map, reduce)`},
		{"zero parallelism", strings.Replace(good, "parallelism: 2\n    memoryMB: 256\n    inputs", "parallelism: 0\n    memoryMB: 256\n    inputs", 1),
			"bad.yaml:9: vertices[0].parallelism: 0: want at least 1 task"},
		{"negative memory", strings.Replace(good, "workerMemoryMB: 1024", "workerMemoryMB: -5", 1),
			"bad.yaml:4: containerGroup.workerMemoryMB: -5: want a positive number of MB"},
		{"task bigger than worker", strings.Replace(good, "memoryMB: 256\n    inputs", "memoryMB: 2048\n    inputs", 1),
			"bad.yaml:10: vertices[0].memoryMB: 2048 MB is more than a worker of group default offers (containerGroup.workerMemoryMB = 1024)"},
		{"one-to-one unequal", strings.Replace(strings.Replace(good, "scatter-gather", "one-to-one", 1), "parallelism: 2\n    memoryMB: 256\n\n", "", 1) + "",
			""},
		{"unknown field", strings.Replace(good, "parallelism: 2\n    memoryMB: 256\nedges", "paralellism: 2\n    memoryMB: 256\nedges", 1),
			"bad.yaml:14: field paralellism not found in type dag.VertexSpec"},
		{"bad edge type", strings.Replace(good, "scatter-gather", "shuffle", 1),
			`bad.yaml:17: unknown edge type "shuffle": want one of scatter-gather, one-to-one, broadcast`},
		{"overwrite not a bool", strings.Replace(good, "goal:", "overwrite: please\ngoal:", 1),
			"bad.yaml:5: cannot unmarshal !!str `please` into bool"},
		{"overwrite a root", strings.Replace(good, "goal:", "output: hdfs://nn:8020/\noverwrite: true\ngoal:", 1),
			`bad.yaml:6: overwrite: output "hdfs://nn:8020/" is the root of a file system: overwriting it would remove everything on it`},
		{"not yaml", "name: [", "bad.yaml:1: did not find expected node content"},
		{"empty", "", "bad.yaml: empty DAG spec"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.want == "" {
				return
			}
			_, err := Parse("bad.yaml", []byte(c.spec))
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if err.Error() != c.want {
				t.Fatalf("error\n got %q\nwant %q", err.Error(), c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
		})
	}
}

func TestOneToOneNeedsEqualParallelism(t *testing.T) {
	spec := strings.Replace(good, "scatter-gather", "one-to-one", 1)
	spec = strings.Replace(spec, "parallelism: 2\n    memoryMB: 256\nedges", "parallelism: 3\n    memoryMB: 256\nedges", 1)
	_, err := Parse("bad.yaml", []byte(spec))
	want := "bad.yaml:17: edges[0].type: one-to-one edge map -> reduce joins parallelism 2 to 3: want equal parallelism"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

func TestTopo(t *testing.T) {
	s, err := Parse("d.yaml", []byte(`name: d
containerGroup: {name: g, workerMemoryMB: 100}
vertices:
  - {name: sink, command: x, parallelism: 1, memoryMB: 1}
  - {name: mid, command: x, parallelism: 1, memoryMB: 1}
  - {name: src, command: x, parallelism: 1, memoryMB: 1}
edges:
  - {from: src, to: mid, type: broadcast}
  - {from: mid, to: sink, type: one-to-one}
`))
	if err != nil {
		t.Fatal(err)
	}
	order := s.Topo()
	if len(order) != 3 || order[0] != 2 || order[1] != 1 || order[2] != 0 {
		t.Fatalf("topo = %v, want [2 1 0]", order)
	}
}

func TestIsRoot(t *testing.T) {
	for loc, want := range map[string]bool{
		"/": true, "//": true, "hdfs://nn:8020": true, "hdfs://nn:8020/": true, "file:///": true,
		"": false, "out": false, "/out": false, "hdfs://nn:8020/out": false, "file:///tmp/x": false,
	} {
		if got := IsRoot(loc); got != want {
			t.Errorf("IsRoot(%q) = %v, want %v", loc, got, want)
		}
	}
}
