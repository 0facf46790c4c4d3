package testcluster

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// TestLiveCluster checks the cluster the integration tests will use, so that
// a broken minicluster shows up here, named, rather than as odd failures in
// ebb's own tests: the RM's REST API lists NM_COUNT RUNNING nodes with the
// configured memory and the ids cluster.env gives, and the NameNode answers
// WebHDFS.
func TestLiveCluster(t *testing.T) {
	ConfDir(t)
	client := &http.Client{Timeout: 10 * time.Second}

	var nodes struct {
		Nodes struct {
			Node []struct {
				ID            string `json:"id"`
				State         string `json:"state"`
				AvailMemoryMB int    `json:"availMemoryMB"`
				UsedMemoryMB  int    `json:"usedMemoryMB"`
			} `json:"node"`
		} `json:"nodes"`
	}
	getJSON(t, client, RMWebURL(t)+"/ws/v1/cluster/nodes", &nodes)
	want, err := strconv.Atoi(EnvValue(t, "NM_COUNT"))
	if err != nil {
		t.Fatalf("NM_COUNT: %v", err)
	}
	wantMB, err := strconv.Atoi(EnvValue(t, "NM_MEMORY_MB"))
	if err != nil {
		t.Fatalf("NM_MEMORY_MB: %v", err)
	}
	running := 0
	for _, n := range nodes.Nodes.Node {
		if n.State == "RUNNING" {
			running++
		}
		if total := n.AvailMemoryMB + n.UsedMemoryMB; total != wantMB {
			t.Errorf("node %s has %d MB, want %d", n.ID, total, wantMB)
		}
	}
	if running != want {
		t.Errorf("RM reports %d RUNNING nodes of %d, want %d", running, len(nodes.Nodes.Node), want)
	}
	// cluster.env must name the nodes the way the RM does (host:port).
	rmIDs := map[string]bool{}
	for _, n := range nodes.Nodes.Node {
		rmIDs[n.ID] = true
	}
	for _, id := range NodeIDs(t) {
		if !rmIDs[id] {
			t.Errorf("cluster.env node %s is unknown to the RM (RM has %v)", id, rmIDs)
		}
	}

	var st struct {
		FileStatus struct {
			Type string `json:"type"`
		} `json:"FileStatus"`
	}
	url := fmt.Sprintf("http://%s/webhdfs/v1/?op=GETFILESTATUS&user.name=root",
		Property(t, "hdfs-site.xml", "dfs.namenode.http-address"))
	getJSON(t, client, url, &st)
	if st.FileStatus.Type != "DIRECTORY" {
		t.Errorf("WebHDFS says / is %q, want DIRECTORY", st.FileStatus.Type)
	}
}

func getJSON(t *testing.T, c *http.Client, url string, into any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		t.Fatalf("GET %s: decoding: %v", url, err)
	}
}
