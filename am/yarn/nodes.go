package yarn

import (
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/proto/hadooppb"
)

// nodeStates maps the RM's node states to the Core's. NS_NEW is a node
// not yet running: the Core places nothing there until it is.
var nodeStates = map[hadooppb.NodeStateProto]core.NodeState{
	hadooppb.NodeStateProto_NS_NEW:             core.NodeNew,
	hadooppb.NodeStateProto_NS_RUNNING:         core.NodeRunning,
	hadooppb.NodeStateProto_NS_UNHEALTHY:       core.NodeUnhealthy,
	hadooppb.NodeStateProto_NS_DECOMMISSIONED:  core.NodeDecommissioned,
	hadooppb.NodeStateProto_NS_LOST:            core.NodeLost,
	hadooppb.NodeStateProto_NS_REBOOTED:        core.NodeRebooted,
	hadooppb.NodeStateProto_NS_DECOMMISSIONING: core.NodeDecommissioning,
	hadooppb.NodeStateProto_NS_SHUTDOWN:        core.NodeShutdown,
}

// nodeStateFrom is the Core's state for the RM's; a state this code does
// not know (a newer RM) is taken as not usable.
func nodeStateFrom(s hadooppb.NodeStateProto) core.NodeState {
	if st, ok := nodeStates[s]; ok {
		return st
	}
	return core.NodeUnhealthy
}

// nodeChanged is the Core's event for an updated node report: its state,
// size and, while decommissioning, how long the RM waits before it kills
// what still runs there. heldMB is the memory of this AM's containers on
// the node.
func nodeChanged(n NodeReport, heldMB int64) core.NodeChanged {
	return core.NodeChanged{Node: clusterNode(n, heldMB), State: n.State, DrainTimeout: n.DrainTimeout}
}

// clusterNode is the Core's view of a node report. What the node's
// containers hold beyond this AM's workers (heldMB) is others': this AM's
// own container, and other applications'.
func clusterNode(n NodeReport, heldMB int64) core.ClusterNode {
	return core.ClusterNode{ID: n.Node, CapacityMB: n.MemoryMB, Types: ParseTypes(n.Types), Label: n.Label,
		OthersMB: max(0, n.UsedMB-heldMB)}
}

// drainTimeoutFrom reads decommissioning_timeout (seconds; absent = none).
func drainTimeoutFrom(n *hadooppb.NodeReportProto) time.Duration {
	return time.Duration(n.GetDecommissioningTimeout()) * time.Second
}
