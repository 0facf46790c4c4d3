package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/testcluster"
)

// TestBenchSmoke runs mr-vs-ebb.sh --smoke on the test run's cluster: the
// same machinery as the benchmark (build, seeded input into HDFS,
// MapReduce's WordCount, ebb's word count, the RM's usage report, the output
// comparison, the tables) on the 1 MiB input, once each. It asserts what the
// tables must say for any machine: both applications succeeded, every
// report field is there, and the two outputs are the same word->count set.
// Times are printed, never asserted.
func TestBenchSmoke(t *testing.T) {
	confDir := testcluster.ConfDir(t)
	testcluster.Shared(t) // cmd/ebb's tests that need every slot wait
	work := t.TempDir()
	table := filepath.Join(work, "table.md")
	hdfsDir := fmt.Sprintf("/tmp/ebb-bench-smoke-%d", time.Now().UnixNano())

	// MapReduce on a busy 2-core box takes a minute or two for 1 MiB; the
	// bound only keeps a hung cluster from hanging the test run.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "mr-vs-ebb.sh", "--smoke", "--conf-dir", confDir,
		"--work", work, "--out", table, "--hdfs-dir", hdfsDir, "--clean")
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	out, runErr := cmd.CombinedOutput()
	t.Logf("mr-vs-ebb.sh --smoke took %s:\n%s", time.Since(start).Round(time.Second), out)

	rows := readRows(t, strings.TrimSuffix(table, ".md")+".tsv")
	if runErr != nil {
		t.Errorf("mr-vs-ebb.sh --smoke: %v (it exits 1 when a job failed or the outputs differ)", runErr)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2 (one MapReduce, one ebb): %v", len(rows), rows)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r["system"]] = true
		checkRow(t, r)
	}
	if !seen["mr"] || !seen["ebb"] {
		t.Errorf("systems %v, want mr and ebb", seen)
	}
	if rows[0]["distinct"] != rows[1]["distinct"] || rows[0]["words"] != rows[1]["words"] {
		t.Errorf("distinct words %s vs %s, total words %s vs %s: the outputs differ",
			rows[0]["distinct"], rows[1]["distinct"], rows[0]["words"], rows[1]["words"])
	}

	md, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| input | run | system | wall s | RM s | MB-seconds | vcore-seconds | containers |",
		"| 1m | 1 | MapReduce |", "| 1m | 1 | ebb |", "| input | MR wall s | ebb wall s | wall MR/ebb |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the markdown table has no %q:\n%s", want, md)
		}
	}
}

var appRe = regexp.MustCompile(`^application_\d+_\d+$`)

// checkRow checks one job's row: it succeeded, the RM reported it, and its
// output agreed with the other system's.
func checkRow(t *testing.T, r map[string]string) {
	t.Helper()
	name := r["system"]
	if r["final"] != "SUCCEEDED" {
		t.Errorf("%s: final status %q, want SUCCEEDED", name, r["final"])
	}
	if !appRe.MatchString(r["app"]) {
		t.Errorf("%s: application id %q", name, r["app"])
	}
	for _, k := range []string{"wall_s", "rm_s"} {
		if v, err := strconv.ParseFloat(r[k], 64); err != nil || v <= 0 {
			t.Errorf("%s: %s = %q, want a positive number of seconds", name, k, r[k])
		}
	}
	// An application has at least its AM container, hence some memory
	// usage; MapReduce's word count also has at least one task container,
	// where ebb's 1 MiB DAG runs on the worker inside its AM's container
	// (the bench turns ebb.am.uber.enabled on): exactly one container, so
	// a small DAG that asked the RM for a worker fails here. vcore-seconds
	// may be 0: the RM counts whole vcore-seconds per container, and ebb's
	// 1 MiB job runs its container for under a second.
	least := map[string]int64{"mb_s": 1, "vcore_s": 0, "containers": 2, "distinct": 1, "words": 1}
	if name == "ebb" {
		least["containers"] = 1
		if r["containers"] != "1" {
			t.Errorf("ebb: %s containers, want 1 (the AM's, with the DAG on its in-AM worker)", r["containers"])
		}
	}
	for k, least := range least {
		if v, err := strconv.ParseInt(r[k], 10, 64); err != nil || v < least {
			t.Errorf("%s: %s = %q, want an integer of at least %d", name, k, r[k], least)
		}
	}
	if r["maps"] != "1" {
		t.Errorf("%s: %s maps for 1 MiB, want 1 (one HDFS block, one MapReduce split)", name, r["maps"])
	}
	if r["agree"] != "yes" {
		t.Errorf("%s: outputs agree = %q, want yes", name, r["agree"])
	}
}

// readRows reads the script's TSV: a header line naming the columns, then
// one row per job.
func readRows(t *testing.T, path string) []map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the script wrote no rows: %v", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	header := strings.Split(lines[0], "\t")
	var rows []map[string]string
	for i, line := range lines[1:] {
		f := strings.Split(line, "\t")
		if len(f) != len(header) {
			t.Fatalf("%s:%d: %d fields, want %d (%v)", path, i+2, len(f), len(header), header)
		}
		r := map[string]string{}
		for j, h := range header {
			r[h] = f[j]
		}
		rows = append(rows, r)
	}
	return rows
}
