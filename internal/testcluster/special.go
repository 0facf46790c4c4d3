package testcluster

import (
	"errors"
	"os"
	"testing"
)

// SpecialConfDir returns the HADOOP_CONF_DIR that the variable env names:
// a cluster with settings of its own (preemption queues, priorities, GPUs,
// a NodeManager that can be decommissioned alone), which scripts/test.sh
// starts beside the plain one. Unset, the test skips with hint (how to
// start one), or fails under CI=true, as ConfDir does.
func SpecialConfDir(t testing.TB, env, hint string) string {
	t.Helper()
	unset := errors.New(env + " is unset")
	dir, err := locateVar(os.Getenv, env, unset)
	switch {
	case err == nil:
		return dir
	case errors.Is(err, unset) && os.Getenv("CI") != "true":
		t.Skipf("SKIPPING INTEGRATION TEST %s: %v; %s", t.Name(), err, hint)
	default:
		t.Fatalf("integration test %s needs its own cluster: %v; %s", t.Name(), err, hint)
	}
	return ""
}
