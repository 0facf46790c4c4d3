package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/internal/testcluster"
)

// The UI on the real minicluster: while the application runs its pages
// and API answer through the RM's web proxy (http://RM/proxy/APP/); after
// it ends the RM's tracking URL for it still answers 200, and
// `ebb history APP` serves the finished application's pages from HDFS.
func TestYarnUIThroughTheProxyAndHistory(t *testing.T) {
	y := newYarnTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	// Three attempts of 6 s each, one at a time (one 256 MB worker): long
	// enough to look at the pages while they run.
	spec := y.writeDAG(`
name: ui-yarn
containerGroup: {name: u, workerMemoryMB: 256, maxWorkers: 1}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "1", --seconds, "6"], parallelism: 3, memoryMB: 256}
`)
	out, err := y.ebb(ctx, append([]string{"submit", "--detach", "--output", t.TempDir() + "/out", spec}, amSets...)...)
	t.Logf("ebb submit --detach:\n%s", out)
	if err != nil {
		t.Fatalf("ebb submit: %v", err)
	}
	id := y.appID(out)
	proxy := testcluster.RMWebURL(t) + "/proxy/" + id.String() + "/"
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(url string) (int, string) {
		resp, err := client.Get(url)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// Through the proxy, while it runs: the API shows the DAG running.
	var o ui.Overview
	y.waitFor("the DAG running, seen through the RM's proxy", 90*time.Second, func() bool {
		code, body := get(proxy + "api/v1/overview")
		if code != http.StatusOK || json.Unmarshal([]byte(body), &o) != nil {
			return false
		}
		// RUNNING with an attempt started: about 18 s, not only the time
		// between its first and last task, so a slow poll cannot miss it.
		return len(o.DAGs) == 1 && o.DAGs[0].State == "RUNNING" && o.DAGs[0].Running+o.DAGs[0].Succeeded > 0
	})
	if o.App.ID != id.String() || o.App.World != "yarn" || o.App.User != y.user {
		t.Errorf("the header says %+v", o.App)
	}
	dagID := o.DAGs[0].ID
	for _, p := range []string{"", "dag/" + dagID, "group/u", "workers", "metrics", "static/app.js"} {
		if code, body := get(proxy + p); code != http.StatusOK {
			t.Errorf("GET %s%s through the proxy: %d\n%s", proxy, p, code, body)
		}
	}
	var d ui.DAGDetail
	if code, body := get(proxy + "api/v1/dags/" + dagID); code != http.StatusOK || json.Unmarshal([]byte(body), &d) != nil || len(d.Attempts) == 0 {
		t.Fatalf("the DAG through the proxy: %d %s", code, body)
	}
	if l := d.Attempts[0].Logs["stdout"]; !strings.Contains(l, "/node/containerlogs/") {
		t.Errorf("an attempt's stdout link %q is not the NodeManager's container-log page", l)
	}
	// After the end: the RM's tracking URL answers, and ebb history
	// serves the pages.
	y.waitFor("the application to finish", 120*time.Second, func() bool { return y.report(id).State.Done() })
	r := y.report(id)
	if r.Final != yarn.Succeeded {
		t.Fatalf("the application ended %s: %s", r.Final, r.Diagnostics)
	}
	if code, body := get(r.TrackingURL); code != http.StatusOK {
		t.Errorf("the RM's tracking URL %s after the end: %d\n%.400s", r.TrackingURL, code, body)
	}
	cmd := exec.CommandContext(ctx, ebbBin, "history", id.String())
	cmd.Env = append(os.Environ(), "HADOOP_CONF_DIR="+y.confDir, "EBB_CONF_DIR=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("ebb history printed nothing: %v", err)
	}
	url := regexp.MustCompile(`http://\S+/`).FindString(line)
	var h ui.DAGDetail
	if code, body := get(url + "api/v1/dags/" + dagID); code != http.StatusOK || json.Unmarshal([]byte(body), &h) != nil {
		t.Fatalf("ebb history: %d %s", code, body)
	}
	if h.State != "SUCCEEDED" || len(h.Attempts) != 3 {
		t.Errorf("ebb history shows %s with %d attempts, want SUCCEEDED with 3", h.State, len(h.Attempts))
	}
	if code, page := get(url + "dag/" + dagID); code != http.StatusOK || !strings.Contains(page, "finished") {
		t.Errorf("ebb history's DAG page: %d", code)
	}
}
