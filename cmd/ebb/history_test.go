package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/ui"
)

// A local AM writes its history as it stops; `ebb ui --history FILE`
// serves the finished application's pages from it: the DAG SUCCEEDED with
// every attempt, a working stdout link, and no application secret.
func TestHistoryServesTheFinishedApplication(t *testing.T) {
	ta := startTestAM(t, 2*time.Minute)
	spec, err := os.ReadFile("../../examples/wordcount.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := filepath.Abs("../../examples")
	id, err := ta.Submit(ta.ctx, am.SubmitRequest{Spec: spec, SpecName: "wordcount.yaml", BaseDir: base, Output: filepath.Join(ta.root, "out")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ta.WaitDAG(ta.ctx, id); err != nil {
		t.Fatal(err)
	}
	ta.Stop("test over")
	var files []string
	for len(files) == 0 {
		files, _ = filepath.Glob(filepath.Join(ta.root, "history", "local-*.json"))
		select {
		case <-ta.ctx.Done():
			t.Fatal("no history was written")
		case <-time.After(50 * time.Millisecond):
		}
	}
	secret, err := os.ReadFile(filepath.Join(ta.root, "secret"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(files[0]); strings.Contains(string(b), string(secret)) {
		t.Fatal("the history holds the application secret")
	}
	cmd := exec.CommandContext(ta.ctx, ebbBin, "ui", "--history", files[0])
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url := regexp.MustCompile(`http://\S+/`).FindString(line)
	if url == "" {
		t.Fatalf("ebb ui printed %q", line)
	}
	fetch := func(path string) string {
		t.Helper()
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		if strings.Contains(b.String(), string(secret)) {
			t.Fatalf("GET %s shows the secret", path)
		}
		return b.String()
	}
	if page := fetch(""); !strings.Contains(page, "finished") || !strings.Contains(page, id) {
		t.Errorf("the history's overview does not show the finished application and its DAG")
	}
	var d ui.DAGDetail
	if err := json.Unmarshal([]byte(fetch("api/v1/dags/"+id)), &d); err != nil {
		t.Fatal(err)
	}
	if d.State != "SUCCEEDED" || len(d.Attempts) < d.Tasks || d.Attempts[0].Logs["stdout"] == "" {
		t.Fatalf("history of %s: %s, %d attempts for %d tasks, logs %v", id, d.State, len(d.Attempts), d.Tasks, d.Attempts[0].Logs)
	}
	fetch(d.Attempts[0].Logs["stdout"]) // the local world's logs outlive the AM
	fetch("dag/" + id)
}
