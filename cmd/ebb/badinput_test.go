package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad input through the real command: each case exits non-zero with one
// line on stderr that names the file and the key or field.
func TestBadInputIsOneLineError(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	goodDAG, _ := filepath.Abs("../../examples/wordcount.yaml")
	site := func(props string) string {
		return "<?xml version=\"1.0\"?>\n<configuration>\n" + props + "</configuration>\n"
	}
	cases := []struct {
		name string
		args []string
		want []string // all must appear in the single error line
	}{
		{"malformed xml", []string{"--conf", write("malformed.xml", site("<property><name>mr3.am.max.app.attempts</name><value>2</value>\n"))},
			[]string{"malformed.xml:"}},
		{"unknown key", []string{"--conf", write("unknown.xml", site("<property><name>mr3.auto.scale.out.treshold.percent</name><value>70</value></property>\n"))},
			[]string{"unknown.xml:3", "mr3.auto.scale.out.treshold.percent", "mr3.auto.scale.out.threshold.percent"}},
		{"negative memory", []string{"--conf", write("negative.xml", site("<property><name>ebb.local.node.memory.mb</name><value>-4096</value></property>\n"))},
			[]string{"negative.xml:3", "ebb.local.node.memory.mb", "-4096"}},
		{"in above out", []string{"--conf", write("inout.xml", site("<property><name>mr3.auto.scale.in.threshold.percent</name><value>90</value></property>\n"))},
			[]string{"inout.xml:3", "mr3.auto.scale.in.threshold.percent", "90"}},
		{"unknown packing scheme", []string{"--set", "ebb.packing.scheme=tight"},
			[]string{"ebb.packing.scheme", "tight", "packed"}},
		{"cycle", []string{write("cycle.yaml", "name: c\ncontainerGroup: {name: g, workerMemoryMB: 512}\nvertices:\n  - {name: a, command: \"true\", parallelism: 1, memoryMB: 128}\n  - {name: b, command: \"true\", parallelism: 1, memoryMB: 128}\nedges:\n  - {from: a, to: b, type: one-to-one}\n  - {from: b, to: a, type: one-to-one}\n")},
			[]string{"cycle.yaml:8", "edges[1]", "cycle: a -> b -> a"}},
		{"negative task memory", []string{write("negmem.yaml", "name: n\ncontainerGroup: {name: g, workerMemoryMB: 512}\nvertices:\n  - {name: a, command: \"true\", parallelism: 1, memoryMB: -1}\n")},
			[]string{"negmem.yaml:4", "vertices[0].memoryMB", "-1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"local", "run"}, c.args...)
			if !strings.HasSuffix(args[len(args)-1], ".yaml") {
				args = append(args, goodDAG)
			}
			// Run where nothing is in the way (not the repository root,
			// whose ./ebb-output the README's first command fills), and
			// with an output that already holds results: the
			// configuration's error must still be the one reported.
			cmd, cancel := ebbCommand(args...)
			defer cancel()
			cmd.Dir = t.TempDir()
			if err := os.MkdirAll(filepath.Join(cmd.Dir, "ebb-output", "wordcount"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cmd.Dir, "ebb-output", "wordcount", "part-00000"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := cmd.CombinedOutput()
			out := string(b)
			if err == nil {
				t.Fatalf("exit 0, want an error:\n%s", out)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 1 {
				t.Fatalf("want one line, got %d:\n%s", len(lines), out)
			}
			for _, w := range c.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("error %q does not contain %q", lines[0], w)
				}
			}
		})
	}
}
