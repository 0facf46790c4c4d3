// Command preemptargs prints the minicluster launcher arguments of the
// preemption cluster (testcluster.EnvPreemptConfDir), for
// EBB_MINICLUSTER_ARGS: one place for them, read by scripts/test.sh.
package main

import (
	"fmt"
	"strings"
)

func main() {
	const c = "yarn.scheduler.capacity."
	const p = "yarn.resourcemanager.monitor.capacity.preemption."
	sets := []string{
		c + "root.queues=a,b",
		c + "root.a.capacity=50", c + "root.b.capacity=50",
		c + "root.a.maximum-capacity=100", c + "root.b.maximum-capacity=100",
		// One user could otherwise not grow past its queue's capacity.
		c + "root.a.user-limit-factor=2", c + "root.b.user-limit-factor=2",
		// Two AMs of 256 MB in a queue of half of 12 GB.
		c + "maximum-am-resource-percent=0.5",
		"yarn.resourcemanager.scheduler.monitor.enable=true",
		"yarn.resourcemanager.scheduler.monitor.policies=org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy",
		p + "max_wait_before_kill=10000",
		// Take the whole gap in one round, without a dead zone: the
		// policy's damping would otherwise leave b short for minutes.
		p + "natural_termination_factor=1", p + "max_ignored_over_capacity=0", p + "total_preemption_per_round=1",
	}
	fmt.Println("--set " + strings.Join(sets, " --set "))
}
