package am

import "testing"

// An hdfs:/// path names no NameNode: on YARN it means the cluster's
// default file system, as a Hadoop path does, and the AM makes it whole
// before its workers see it (they cannot tell which NameNode it means).
// Without a default file system (the local world) it stays as written.
func TestResolveSpecQualifiesHDFSPaths(t *testing.T) {
	spec := []byte(`name: q
containerGroup: {name: g, workerMemoryMB: 1024}
vertices:
  - {name: m, command: [ebb, task, cat], parallelism: 1, memoryMB: 256, inputs: ["hdfs:///in/a.txt", "hdfs://other:9000/b.txt"]}
`)
	for _, c := range []struct {
		defaultFS, wantIn, wantOther, wantOut string
	}{
		{"hdfs://nn:8020", "hdfs://nn:8020/in/a.txt", "hdfs://other:9000/b.txt", "hdfs://nn:8020/out/wc"},
		{"hdfs://nn:8020/", "hdfs://nn:8020/in/a.txt", "hdfs://other:9000/b.txt", "hdfs://nn:8020/out/wc"},
		{"", "hdfs:///in/a.txt", "hdfs://other:9000/b.txt", "hdfs:///out/wc"},
	} {
		s, out, err := resolveSpec(SubmitRequest{Spec: spec, SpecName: "q.yaml", Output: "hdfs:///out/wc"}, c.defaultFS)
		if err != nil {
			t.Fatal(err)
		}
		in := s.Vertices[0].Inputs
		if in[0] != c.wantIn || in[1] != c.wantOther || out != c.wantOut {
			t.Errorf("defaultFS %q: inputs %v, output %s; want [%s %s], %s", c.defaultFS, in, out, c.wantIn, c.wantOther, c.wantOut)
		}
	}
}
