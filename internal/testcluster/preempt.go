package testcluster

import (
	"errors"
	"os"
	"testing"
)

// EnvPreemptConfDir names the variable that points tests at the
// preemption cluster: queues a and b (capacity 50 each, both may grow to
// 100) with the CapacityScheduler's ProportionalCapacityPreemptionPolicy
// on. scripts/test.sh starts it with PreemptArgs.
const EnvPreemptConfDir = "EBB_TEST_PREEMPT_HADOOP_CONF_DIR"

var errPreemptUnset = errors.New(EnvPreemptConfDir + " is unset")

const preemptHint = "start one with\n\texport " + EnvPreemptConfDir + "=$(EBB_MINICLUSTER_ARGS=\"$(go run ./internal/testcluster/preemptargs)\" scripts/minicluster/start.sh /tmp/ebb-preempt | tail -n1)\n" +
	"(scripts/test.sh does) and stop it with scripts/minicluster/stop.sh /tmp/ebb-preempt"

// PreemptConfDir returns the preemption cluster's HADOOP_CONF_DIR, or
// skips (fails under CI=true) as ConfDir does.
func PreemptConfDir(t testing.TB) string {
	t.Helper()
	dir, err := locateVar(os.Getenv, EnvPreemptConfDir, errPreemptUnset)
	switch {
	case err == nil:
		return dir
	case errors.Is(err, errPreemptUnset) && os.Getenv("CI") != "true":
		t.Skipf("SKIPPING PREEMPTION TEST %s: no preemption cluster (%s is unset); %s", t.Name(), EnvPreemptConfDir, preemptHint)
	default:
		t.Fatalf("integration test %s needs the preemption cluster: %v; %s", t.Name(), err, preemptHint)
	}
	return ""
}
