package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/ui"
)

// getAPI reads one of the local AM's UI API answers into v.
func getAPI(t *testing.T, ta *testAM, path string, v any) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + ta.StatusAddr() + "/" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v: %s", path, resp.StatusCode, err, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, body)
	}
}

// A real task that uses more memory than it asks for is killed by its
// worker and retried with twice the memory, which is enough: the DAG
// succeeds, its diagnostics say what happened, and the UI API shows both
// attempts with the memory each asked for.
func TestLocalMemoryRetrySucceeds(t *testing.T) {
	// burn holds 300 MB resident (plus its runtime) for 4 s; the worker
	// samples every second and kills it above 200 MB + 10%. The retry asks
	// 400 MB, which holds it.
	const spec = `name: hungry
containerGroup: {name: hg, workerMemoryMB: 1024}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "300", --seconds, "4"], parallelism: 1, memoryMB: 200}
`
	ta := startTestAM(t, 3*time.Minute, "ebb.local.node.memory.mb=2048")
	id, err := ta.Submit(ta.ctx, am.SubmitRequest{Spec: []byte(spec), SpecName: "hungry.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ta.WaitDAG(ta.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	note := regexp.MustCompile(`^attempt 0 of burn\[0\] used (\d+) MB of 200 MB; retrying with 400 MB$`)
	if st.State != core.DAGSucceeded || !note.MatchString(st.Diagnostics) {
		t.Fatalf("DAG %s, diagnostics %q: want SUCCEEDED after one retry with 400 MB", st.State, st.Diagnostics)
	}
	var d ui.DAGDetail
	getAPI(t, ta, "api/v1/dags/"+id, &d)
	if len(d.Attempts) != 2 {
		t.Fatalf("%d attempts, want 2: %+v", len(d.Attempts), d.Attempts)
	}
	first, second := d.Attempts[0], d.Attempts[1]
	if first.State != "FAILED" || first.MemoryMB != 200 || first.Diagnostics != st.Diagnostics {
		t.Errorf("first attempt %s, %d MB, %q: want FAILED, 200 MB, the note", first.State, first.MemoryMB, first.Diagnostics)
	}
	if second.State != "SUCCEEDED" || second.MemoryMB != 400 {
		t.Errorf("second attempt %s, %d MB: want SUCCEEDED with 400 MB", second.State, second.MemoryMB)
	}
	t.Logf("DAG diagnostics: %s", st.Diagnostics)
}

// A DAG that leaves the worker size to ebb gets workers of the computed
// size: one map and two reducers of 256 MB share 512 MB workers, not a
// 1024 MB one; the real worker processes offer that much.
func TestLocalAutoSizedWorkers(t *testing.T) {
	input := "../../examples/wordcount-input.txt"
	spec := `name: autosize
containerGroup: {name: ag}
vertices:
  - {name: map, command: [ebb, task, wc-map], parallelism: 1, memoryMB: 256, inputs: [` + input + `]}
  - {name: reduce, command: [ebb, task, wc-reduce], parallelism: 2, memoryMB: 256}
edges:
  - {from: map, to: reduce, type: scatter-gather}
`
	ta := startTestAM(t, 3*time.Minute, "ebb.local.node.memory.mb=4096")
	out := ta.root + "/out"
	id, err := ta.Submit(ta.ctx, am.SubmitRequest{Spec: []byte(spec), SpecName: "autosize.yaml", Output: out})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ta.WaitDAG(ta.ctx, id)
	if err != nil || st.State != core.DAGSucceeded {
		t.Fatalf("DAG %s %q (%v)", st.State, st.Diagnostics, err)
	}
	sameCounts(t, readCounts(t, out), countWords(t, input))
	var groups []ui.Group
	getAPI(t, ta, "api/v1/groups", &groups)
	if len(groups) != 1 || groups[0].WorkerMemoryMB != 512 || !groups[0].SizedByEbb {
		t.Fatalf("groups %+v: want ag of 512 MB workers, sized by ebb", groups)
	}
	var workers []ui.Worker
	getAPI(t, ta, "api/v1/workers", &workers)
	if len(workers) == 0 {
		t.Fatal("no worker registered")
	}
	for _, w := range workers {
		if w.MemoryMB != 512 {
			t.Errorf("worker %s offers %d MB, want 512", w.ID, w.MemoryMB)
		}
	}
	// And the AM says how it chose the size.
	logs, err := readAMLog(ta)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs, "group ag: workers of 512 MB, sized by ebb for DAG autosize") {
		t.Errorf("the AM log does not say how it sized group ag")
	}
}

// readAMLog is the test AM's log file.
func readAMLog(ta *testAM) (string, error) {
	b, err := os.ReadFile(filepath.Join(ta.root, "logs", "am.log"))
	return string(b), err
}
