package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// ebb submit --priority goes through ebb.am.priority: a value the key
// refuses is refused before anything is submitted, with one line that
// names the key, the value and what is allowed.
func TestSubmitPriorityFlagIsTheKey(t *testing.T) {
	dag, _ := filepath.Abs("../../examples/wordcount.yaml")
	cmd, cancel := ebbCommand("submit", "--priority", "-5", dag)
	defer cancel()
	cmd.Env = append(cmd.Environ(), "HADOOP_CONF_DIR="+t.TempDir(), "EBB_CONF_DIR=")
	b, err := cmd.CombinedOutput()
	out := strings.TrimSpace(string(b))
	if err == nil {
		t.Fatalf("exit 0, want an error:\n%s", out)
	}
	for _, w := range []string{"ebb.am.priority", "-5", "from -1"} {
		if !strings.Contains(out, w) {
			t.Errorf("error %q does not contain %q", out, w)
		}
	}
}
