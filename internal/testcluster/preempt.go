package testcluster

import (
	"testing"
)

// EnvPreemptConfDir names the variable that points tests at the
// preemption cluster: queues a and b (capacity 50 each, both may grow to
// 100) with the CapacityScheduler's ProportionalCapacityPreemptionPolicy
// on. scripts/test.sh starts it with PreemptArgs.
const EnvPreemptConfDir = "EBB_TEST_PREEMPT_HADOOP_CONF_DIR"

const preemptHint = "start one with\n\texport " + EnvPreemptConfDir + "=$(EBB_MINICLUSTER_ARGS=\"$(go run ./internal/testcluster/preemptargs)\" scripts/minicluster/start.sh /tmp/ebb-preempt | tail -n1)\n" +
	"(scripts/test.sh does) and stop it with scripts/minicluster/stop.sh /tmp/ebb-preempt"

// PreemptConfDir returns the preemption cluster's HADOOP_CONF_DIR, or
// skips (fails under CI=true) as ConfDir does.
func PreemptConfDir(t testing.TB) string {
	t.Helper()
	return SpecialConfDir(t, EnvPreemptConfDir, preemptHint)
}
