package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/amclient"
	"github.com/ebb-am/ebb/internal/loadtest"
)

// tinyDAG: one task that does nothing, no output given: the AM names one.
const tinyDAG = `
name: tiny
containerGroup: {name: t, workerMemoryMB: 1024}
vertices:
  - {name: v, command: "true", parallelism: 1, memoryMB: 128}
`

// loadSize reads EBB_LOAD (CLIENTSxDAGS, e.g. 200x50, issue 24's load) or
// returns the default: the CI's run is small, the benchmark's is the
// issue's.
func loadSize(t *testing.T, clients, each int) (int, int) {
	v := os.Getenv("EBB_LOAD")
	if v == "" {
		return clients, each
	}
	c, e, ok := strings.Cut(v, "x")
	ci, err1 := strconv.Atoi(c)
	ei, err2 := strconv.Atoi(e)
	if !ok || err1 != nil || err2 != nil || ci < 1 || ei < 1 {
		t.Fatalf("EBB_LOAD=%q: want CLIENTSxDAGS, e.g. 200x50", v)
	}
	return ci, ei
}

// TestYarnSessionUnderManyClients: many clients at once submit the same
// DAG file without an output into one YARN session and follow each DAG to
// its end: every DAG is accepted and SUCCEEDS with an output of its own;
// none is lost or stuck. EBB_LOAD=200x50 makes it issue 24's load run
// (throughput and the AM's RSS are logged).
func TestYarnSessionUnderManyClients(t *testing.T) {
	y := newYarnTest(t)
	clients, each := loadSize(t, 40, 5)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(10+clients*each/20)*time.Minute)
	defer cancel()
	out, err := y.ebb(ctx, append([]string{"submit", "--detach", "--name", "load", "--set", "ebb.session.idle.timeout.secs=600"}, amSets...)...)
	if err != nil {
		t.Fatalf("starting a session: %v\n%s", err, out)
	}
	id := y.appID(out)
	defer func() { _, _ = y.ebb(context.Background(), "kill", id.String()) }()
	y.waitFor("the session's AM to answer", 60*time.Second, func() bool {
		c, _, err := y.currentAM(ctx, id)
		if err == nil {
			_, err = c.List(ctx, amclient.Page{Limit: 1})
			_ = c.Close() // one read
		}
		return err == nil
	})
	pid := y.amPID(id)
	rss := func() string { return amRSS(pid) }
	t.Logf("session %s up; AM RSS %s", id, rss())
	res := loadtest.Run(ctx, loadtest.Options{Clients: clients, Each: each, Spec: []byte(tinyDAG), SpecName: "tiny.yaml",
		Dial: func(ctx context.Context) (*amclient.Client, error) {
			c, _, err := y.currentAM(ctx, id)
			return c, err
		},
		Every: max(clients*each/10, 1), OnEvery: func(n int) { t.Logf("%d DAGs ended; AM RSS %s", n, rss()) },
	})
	t.Logf("%d clients x %d DAGs into session %s: %s; AM RSS %s", clients, each, id, res, rss())
	if !res.OK() {
		t.Errorf("want every DAG SUCCEEDED with its own output: %s", res)
	}
	if r := y.report(id); r.State != yarn.StateRunning {
		t.Errorf("the session is %s %s (%s) after the load, want RUNNING", r.State, r.Final, r.Diagnostics)
	}
}

// amRSS reads a process's resident set from /proc.
func amRSS(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
