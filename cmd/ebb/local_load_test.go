package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/amclient"
	"github.com/ebb-am/ebb/internal/loadtest"
)

// TestLocalSessionUnderManyClients: many clients at once, each with its own
// connection to a local session's client API, submit the same DAG file
// without an output and follow each DAG to its end: every DAG SUCCEEDS with
// an output of its own, none is refused, lost or stuck. Issue 24's run is
// EBB_LOAD=200x50 (10,000 DAGs), ten times in a row with -count=10.
func TestLocalSessionUnderManyClients(t *testing.T) {
	clients, each := loadSize(t, 40, 5)
	a := startTestAM(t, time.Duration(5+clients*each/200)*time.Minute, "ebb.local.nodes=2", "ebb.local.max.nodes=2",
		"ebb.local.node.memory.mb=8192", "mr3.am.max.num.concurrent.dags=256", "ebb.session.idle.timeout.secs=0")
	secret, err := os.ReadFile(filepath.Join(a.root, "secret"))
	if err != nil {
		t.Fatal(err)
	}
	res := loadtest.Run(a.ctx, loadtest.Options{Clients: clients, Each: each, Spec: []byte(tinyDAG), SpecName: "tiny.yaml",
		Dial: func(context.Context) (*amclient.Client, error) {
			return amclient.Dial(amclient.Target{Addr: a.Addr(), Secret: strings.TrimSpace(string(secret))}, amclient.Options{})
		},
		Every: max(clients*each/10, 1), OnEvery: func(n int) { t.Logf("%d DAGs ended; RSS %s", n, amRSS(os.Getpid())) },
	})
	t.Logf("%d clients x %d DAGs into a local session: %s", clients, each, res)
	if !res.OK() {
		t.Errorf("want every DAG SUCCEEDED with its own output: %s", res)
	}
}
