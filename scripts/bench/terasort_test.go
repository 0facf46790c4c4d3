package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/testcluster"
)

// TestTeraSortSmoke runs terasort.sh --smoke on the test run's cluster:
// TeraGen of 100,000 records, TeraSum, MapReduce's TeraSort and ebb's
// sort (tera-sample, tera-map, tera-reduce) of them, and Hadoop's
// TeraValidate on both outputs, which must accept both (no error line,
// the input's checksum); then TeraValidate on a copy of ebb's output with
// its two part files swapped, which must reject it, so an acceptance
// means TeraValidate really read ebb's files in partition order. Times are
// printed, never asserted.
func TestTeraSortSmoke(t *testing.T) {
	confDir := testcluster.ConfDir(t)
	testcluster.Shared(t) // cmd/ebb's tests that need every slot wait
	work := t.TempDir()
	table := filepath.Join(work, "table.md")
	hdfsDir := fmt.Sprintf("/tmp/ebb-terasort-smoke-%d", time.Now().UnixNano())

	// Seven MapReduce jobs (TeraGen, TeraSum, TeraSort, three TeraValidates)
	// take a few minutes on a busy 2-core box; the bound only keeps a hung
	// cluster from hanging the test run.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "terasort.sh", "--smoke", "--conf-dir", confDir,
		"--work", work, "--out", table, "--hdfs-dir", hdfsDir, "--clean")
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	out, runErr := cmd.CombinedOutput()
	t.Logf("terasort.sh --smoke took %s:\n%s", time.Since(start).Round(time.Second), out)
	if runErr != nil {
		t.Errorf("terasort.sh --smoke: %v (it exits 1 when a job failed or TeraValidate did not accept an output)", runErr)
	}

	rows := readRows(t, strings.TrimSuffix(table, ".md")+".tsv")
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2 (one MapReduce, one ebb): %v", len(rows), rows)
	}
	for _, r := range rows {
		name := r["system"]
		if r["final"] != "SUCCEEDED" || !appRe.MatchString(r["app"]) {
			t.Errorf("%s: application %q ended %q, want SUCCEEDED", name, r["app"], r["final"])
		}
		if r["teravalidate"] != "accepted" {
			t.Errorf("%s: TeraValidate says %q, want accepted; its report: %s", name, r["teravalidate"],
				readReport(work, "run1-"+name))
		}
	}
	if ebb := rows[1]; ebb["system"] != "ebb" || ebb["tampered"] != "REJECTED" {
		t.Errorf("ebb's output with two part files swapped: TeraValidate says %q, want REJECTED; its report: %s",
			ebb["tampered"], readReport(work, "tampered"))
	}
}

// readReport is TeraValidate's report of one run, for failure messages.
func readReport(work, name string) string {
	b, err := os.ReadFile(filepath.Join(work, name+"-validate.txt"))
	if err != nil {
		return fmt.Sprintf("(none: %v)", err)
	}
	return string(b)
}
