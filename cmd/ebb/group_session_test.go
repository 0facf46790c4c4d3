package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
)

// In one session (a local AM whose nodes have 2048 MB): a DAG defining the
// group `default` at 3072 MB fails at once (no node can hold its workers;
// it does not wait for ever), and then a DAG defining `default` at 1024 MB
// runs: the failed DAG's group was released, not locked for the session.
func TestSessionRedefinesAGroupAfterAFailedDAG(t *testing.T) {
	ta := startTestAM(t, 2*time.Minute, "ebb.local.node.memory.mb=2048")
	ctx, cancel := context.WithTimeout(ta.ctx, time.Minute)
	defer cancel()
	run := func(mb string) core.DAGStatus {
		t.Helper()
		id, err := ta.Submit(ctx, am.SubmitRequest{SpecName: "g" + mb + ".yaml", Spec: []byte(`
name: g` + mb + `
containerGroup: {name: default, workerMemoryMB: ` + mb + `}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 512}]
`)})
		if err != nil {
			t.Fatalf("submitting the %s MB DAG: %v", mb, err)
		}
		st, err := ta.WaitDAG(ctx, id)
		if err != nil {
			t.Fatalf("waiting for the %s MB DAG: %v", mb, err)
		}
		return st
	}
	if st := run("3072"); st.State != core.DAGFailed || !strings.Contains(st.Diagnostics, "ebb.local.node.memory.mb") {
		t.Fatalf("the 3072 MB DAG: %s %q, want FAILED naming the node memory key", st.State, st.Diagnostics)
	}
	if st := run("1024"); st.State != core.DAGSucceeded {
		t.Fatalf("the 1024 MB DAG: %s %q, want SUCCEEDED", st.State, st.Diagnostics)
	}
}
