package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/am/ui"
)

// historyOnS3 checks an application's history under an S3 history
// directory (keys relative to it: NAME.json and NAME/<DAG id>.json, one
// DAG, with their contents), which holds no secret, then serves it with cmd (`ebb history APP` or `ebb ui --history
// s3://...`) and reads the DAG's page back: SUCCEEDED.
func historyOnS3(t *testing.T, keys map[string]string, name, secret string, cmd *exec.Cmd) {
	t.Helper()
	for k, body := range keys {
		if strings.Contains(body, secret) {
			t.Errorf("the history object %s holds the secret key", k)
		}
	}
	if _, ok := keys[name+".json"]; !ok {
		t.Fatalf("no %s.json in the S3 history directory: %v", name, mapKeys(keys))
	}
	var dagID string
	for k := range keys {
		if rest, ok := strings.CutPrefix(k, name+"/"); ok && strings.HasSuffix(rest, ".json") {
			dagID = strings.TrimSuffix(rest, ".json")
		}
	}
	if dagID == "" {
		t.Fatalf("no DAG record under %s/ in the S3 history directory: %v", name, mapKeys(keys))
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url := regexp.MustCompile(`http://\S+/`).FindString(line)
	if err != nil || url == "" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("%s printed %q (%v), no address:\n%s", strings.Join(cmd.Args, " "), line, err, stderr.String())
	}
	resp, err := http.Get(url + "api/v1/dags/" + dagID)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	var d ui.DAGDetail
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &d) != nil || d.State != "SUCCEEDED" {
		t.Errorf("%s: DAG %s: %d %.300s, want SUCCEEDED", strings.Join(cmd.Args, " "), dagID, resp.StatusCode, body)
	}
}

func mapKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
