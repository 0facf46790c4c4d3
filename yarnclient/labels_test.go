package yarnclient

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/am/yarn"
)

// Issue 23, item 4: the AM's node label (ebb.am.node.label.expression)
// reaches the submission; a label the cluster does not have, the AM's or
// the DAG's group's, is refused before anything is asked for or staged,
// naming where it was given, the label and the cluster's labels.
func TestSubmitNodeLabels(t *testing.T) {
	dagWithLabel := func(label string) string {
		p := filepath.Join(t.TempDir(), "l.yaml")
		spec := strings.Replace(testDAG, "workerMemoryMB: 1024}", "workerMemoryMB: 1024, nodeLabel: "+label+"}", 1)
		if err := os.WriteFile(p, []byte(spec), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		amLabel, dagPath string
		want             []string // in the error; none: submitted
	}{
		{"gpu", writeDAG(t), nil},
		{"", dagWithLabel("gpu"), nil},
		{"ssd", writeDAG(t), []string{"ebb.am.node.label.expression", `"ssd"`, "its labels: gpu, highmem"}},
		{"", dagWithLabel("ssd"), []string{"containerGroup.nodeLabel", `"ssd"`, "its labels: gpu, highmem"}},
	} {
		rm, fs := newFakeRM(), newMemStore()
		rm.labels = yarn.Labels{Names: []string{"gpu", "highmem"}, Known: true}
		yc := testClient(t, testConf(t, "ebb.am.node.label.expression", tc.amLabel), rm, fs)
		_, err := yc.Submit(context.Background(), SubmitOptions{DAGPath: tc.dagPath})
		if tc.want == nil {
			if err != nil {
				t.Fatalf("am label %q: %v", tc.amLabel, err)
			}
			if got := rm.submitted[0].NodeLabel; got != tc.amLabel {
				t.Errorf("am label %q: submitted with AM label %q", tc.amLabel, got)
			}
			continue
		}
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("am label %q, dag %s: error %v, want one naming %s", tc.amLabel, tc.dagPath, err, w)
			}
		}
		if len(fs.files) != 0 || len(rm.submitted) != 0 {
			t.Errorf("refused, yet staged %d files and submitted %d", len(fs.files), len(rm.submitted))
		}
	}
}
