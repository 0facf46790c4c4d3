// Command faultsargs prints the minicluster launcher arguments of the
// fault-injection cluster (testcluster.EnvFaultsConfDir), for
// EBB_MINICLUSTER_ARGS: one place for them, read by scripts/test.sh.
package main

import (
	"fmt"
	"strings"
)

func main() {
	const rm = "yarn.resourcemanager."
	sets := []string{
		// Restart and failover keep the applications: the RM recovers
		// them from a state store both RMs share, and work-preserving
		// recovery keeps their running containers.
		rm + "recovery.enabled=true",
		rm + "store.class=org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore",
		// On the local disk, not in HDFS: the NameNode is restarted too.
		rm + "fs.state-store.uri=file://${hadoop.tmp.dir}/rmstore",
		rm + "work-preserving-recovery.enabled=true",
		// A recovered RM waits this long for the NodeManagers' container
		// reports before scheduling anew (Hadoop's default 10000).
		rm + "work-preserving-recovery.scheduling-wait-ms=3000",
		// How every client of the RM (ebb's gateway and AM, the NMs)
		// outlasts the restart and the failover: Hadoop's defaults wait
		// 30 s between failovers and 15 minutes in all, longer than a test
		// may take; these keys are read by ebb from the cluster's
		// yarn-site.xml as on a production cluster.
		"yarn.client.failover-sleep-base-ms=200",
		"yarn.client.failover-sleep-max-ms=1000",
		rm + "connect.retry-interval.ms=500",
		rm + "connect.max-wait.ms=120000",
		// The RM expires an AM it has not heard from for this long and
		// starts the next attempt (Hadoop's default 600000): short, so
		// that cmd/ebb's TestYarnAMPaused can stop an AM past it. The
		// AMs of the RM tests heartbeat every 250 ms and reach a
		// restarted RM within a second of its recovery.
		"yarn.am.liveness-monitor.expiry-interval-ms=15000",
		// NodeManager work-preserving restart: an NM keeps its containers'
		// state in a leveldb store and, supervised (restarted by whatever
		// stopped it, as the launcher's control channel does), leaves them
		// running when it stops, to take them back when it starts. The
		// launcher gives each NM its own recovery directory and a fixed
		// port, which Hadoop requires for this.
		"yarn.nodemanager.recovery.enabled=true",
		"yarn.nodemanager.recovery.supervised=true",
	}
	// Two RMs (rm0 active, rm1 standby) imply --restartable.
	fmt.Println("--resourcemanagers=2 --set " + strings.Join(sets, " --set "))
}
