package dag

import (
	"strings"
	"testing"
)

const streamSpec = `name: s
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - name: map
    command: [python3, mapper.py]
    parallelism: 2
    memoryMB: 256
    inputs: [in.txt]
    stream: {files: [mapper.py]}
  - name: reduce
    command: [python3, reducer.py]
    parallelism: 2
    memoryMB: 256
    stream: {}
edges:
  - {from: map, to: reduce, type: scatter-gather, shuffle: {sortOptions: "-k2,2nr"}}
`

func TestStreamIOResolvesBothEnds(t *testing.T) {
	s, err := Parse("s.yaml", []byte(streamSpec))
	if err != nil {
		t.Fatal(err)
	}
	m, r := s.StreamIO("map"), s.StreamIO("reduce")
	if m == nil || m.Out == nil || m.In != nil || m.Out.SortOptions != "-k2,2nr" {
		t.Errorf("map's stream io = %+v", m)
	}
	if r == nil || r.In == nil || r.Out != nil {
		t.Errorf("reduce's stream io = %+v", r)
	}
	back, err := DecodeStreamIO(m.Encode())
	if err != nil || back.Out.SortOptions != "-k2,2nr" || back.Stream.Files[0] != "mapper.py" {
		t.Errorf("round trip = %+v, %v", back, err)
	}
}

func TestStreamSpecErrors(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{`shuffle: {sortOptions: "-k2,2nr"}`, `shuffle: {sortOptions: "-k2x"}`, `edges[0].shuffle.sortOptions: invalid -k spec "2x"`},
		{`shuffle: {sortOptions: "-k2,2nr"}`, `shuffle: {partitioner: range}`, `edges[0].shuffle.partitioner: "range": want hash or keyfield`},
		{`shuffle: {sortOptions: "-k2,2nr"}`, `shuffle: {partitionerOptions: "-k1,1"}`, `options are for partitioner: keyfield`},
		{`, shuffle: {sortOptions: "-k2,2nr"}`, ``, `edges[0].shuffle: edge map -> reduce joins a stream vertex`},
		{`type: scatter-gather`, `type: broadcast`, `edges[0].type: a shuffle edge is scatter-gather, not broadcast`},
		{`stream: {files: [mapper.py]}`, `stream: {inputFormat: csv}`, `vertices[0].stream.inputFormat: "csv": want text or keyvalue`},
		{`    stream: {}`, ``, `a shuffle joins two stream vertices`},
	} {
		spec := strings.Replace(streamSpec, c.from, c.to, 1)
		_, err := Parse("s.yaml", []byte(spec))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s -> %s: error %v, want %q", c.from, c.to, err, c.want)
		}
	}
}
