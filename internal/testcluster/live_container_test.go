package testcluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLiveContainerRuns proves the cluster can run a container at all and
// that its logs land where NMLogDirs says: it submits, through the RM's REST
// API, an application whose AM command only writes to its log dir. The AM
// never registers, so the application ends FAILED; what matters is the file.
func TestLiveContainerRuns(t *testing.T) {
	ConfDir(t)
	client := &http.Client{Timeout: 10 * time.Second}
	rm := RMWebURL(t)

	var newApp struct {
		ID string `json:"application-id"`
	}
	postJSON(t, client, rm+"/ws/v1/cluster/apps/new-application?user.name=root", nil, http.StatusOK, &newApp)
	if newApp.ID == "" {
		t.Fatal("new-application returned no id")
	}

	marker := "testcluster-" + newApp.ID
	cmd := fmt.Sprintf("echo %s 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr; env >><LOG_DIR>/stdout", marker)
	sub := map[string]any{
		"application-id":    newApp.ID,
		"application-name":  "testcluster-smoke",
		"application-type":  "TESTCLUSTER",
		"max-app-attempts":  1,
		"resource":          map[string]int{"memory": 64, "vCores": 1},
		"am-container-spec": map[string]any{"commands": map[string]string{"command": cmd}},
	}
	postJSON(t, client, rm+"/ws/v1/cluster/apps?user.name=root", sub, http.StatusAccepted, nil)

	state := waitAppDone(t, client, rm, newApp.ID, time.Minute)
	t.Logf("%s ended %s", newApp.ID, state)

	dirs := ContainerLogDirs(t, newApp.ID)
	if len(dirs) != 1 {
		t.Fatalf("found %d container log dirs for %s under %v, want 1: %v", len(dirs), newApp.ID, NMLogDirs(t), dirs)
	}
	var found []string
	for _, d := range dirs {
		found = append(found, filepath.Join(d, "stdout"))
	}
	out, err := os.ReadFile(found[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), marker+"\n") {
		t.Errorf("%s starts %q, want the marker %q", found[0], firstLine(out), marker)
	}
	// start.sh gives the NodeManagers HADOOP_CONF_DIR, as a real cluster does.
	if want := "HADOOP_CONF_DIR=" + ConfDir(t) + "\n"; !strings.Contains(string(out), want) {
		t.Errorf("container environment lacks %q", strings.TrimSpace(want))
	}
}

// waitAppDone polls the RM until the application reaches a final state.
func waitAppDone(t *testing.T, c *http.Client, rm, id string, limit time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	last := ""
	for time.Now().Before(deadline) {
		var r struct {
			App struct {
				State string `json:"state"`
			} `json:"app"`
		}
		getJSON(t, c, rm+"/ws/v1/cluster/apps/"+id, &r)
		last = r.App.State
		switch last {
		case "FINISHED", "FAILED", "KILLED":
			return last
		}
		time.Sleep(200 * time.Millisecond) // polling a condition, bounded by deadline
	}
	t.Fatalf("%s still %s after %v", id, last, limit)
	return ""
}

func postJSON(t *testing.T, c *http.Client, url string, body any, wantCode int, into any) {
	t.Helper()
	var buf bytes.Buffer
	if body != nil {
		if err := json.NewEncoder(&buf).Encode(body); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequest(http.MethodPost, url, &buf)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != wantCode {
		t.Fatalf("POST %s: %s, want %d", url, resp.Status, wantCode)
	}
	if into != nil {
		if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
			t.Fatalf("POST %s: decoding: %v", url, err)
		}
	}
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}
