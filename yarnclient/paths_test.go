package yarnclient

import (
	"strings"
	"testing"

	"github.com/ebb-am/ebb/dag"
)

func TestClusterPathWarnings(t *testing.T) {
	d := &dag.Spec{Output: "out", Vertices: []dag.VertexSpec{
		{Name: "map", Inputs: []string{"hdfs://nn:8020/in", "local.txt"}},
		{Name: "reduce"},
	}}
	w := ClusterPathWarnings(d, "")
	if len(w) != 2 || !strings.Contains(w[0], `"local.txt"`) || !strings.Contains(w[1], `output "out"`) {
		t.Errorf("warnings %q: want local.txt and out", w)
	}
	// --output overrides the spec's output.
	if w := ClusterPathWarnings(d, "hdfs://nn:8020/out"); len(w) != 1 {
		t.Errorf("with an hdfs:// --output: %q", w)
	}
}

func TestShellWordQuotes(t *testing.T) {
	if got := shellWord("it's"); got != `'it'\''s'` {
		t.Errorf("shellWord = %s", got)
	}
}
