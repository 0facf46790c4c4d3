package sim

import (
	"slices"
	"time"
)

// The cluster autoscaler's scale-down as the policy "ebb-k8s-ca" meets it:
// ebb empties nodes (its own scale-in drains them), and only the cluster
// autoscaler (CA) gives them back, by its documented rules with their
// defaults. Sources (kubernetes/autoscaler, cluster-autoscaler/):
//
//   - FAQ.md, "How does scale-down work?": every --scan-interval (10 s) CA
//     finds the unneeded nodes. A node is unneeded when the sum of its pods'
//     cpu requests and the sum of their memory requests are both below
//     --scale-down-utilization-threshold (0.5) of its allocatable, and all
//     its pods can be moved elsewhere. "If a node is unneeded for more than
//     10 minutes [--scale-down-unneeded-time], it will be terminated."
//     Empty nodes go in bulk, up to --max-empty-bulk-delete (10) per loop.
//   - FAQ.md, "What types of pods can prevent CA from removing a node?":
//     pods not backed by a controller object, pods with local storage
//     (emptyDir), pods annotated cluster-autoscaler.kubernetes.io/
//     safe-to-evict: "false". An ebb worker pod is all three when it holds
//     an output (its owner is the AM pod, not a controller CA knows; its
//     outputs are in an emptyDir), and the first two always: CA never
//     evicts one. So here a node is unneeded only while it holds no worker;
//     the utilisation rule is kept as written and is then always met.
//   - core/scaledown/unneeded/nodes.go, Nodes.Update: each loop replaces
//     the set of unneeded nodes, keeping the timestamp of those found
//     before; a node that stops being unneeded loses its timestamp.
//   - core/static_autoscaler.go: the unneeded set is updated every loop
//     (UpdateClusterState) whether or not scale-down is in cooldown; only
//     deleting waits. isScaleDownInCooldown: in cooldown while the last
//     scale-up plus --scale-down-delay-after-add (10 min), or the last
//     deletion plus --scale-down-delay-after-delete (default: the scan
//     interval), is after now.
//
// The older "k8s-ca" policy (k8sca.go) keeps its own, looser reading (a
// node's timer runs while its workers are busy; no timers during the delay
// after a scale-up); its figures are left as they were.
const (
	caScanInterval     = 10 * time.Second
	caUtilThreshold    = 0.5
	caUnneededTime     = 10 * time.Minute
	caDelayAfterAdd    = 10 * time.Minute
	caDelayAfterDelete = caScanInterval
	caMaxEmptyBulk     = 10
)

// caState is the autoscaler's memory between loops: when each unneeded
// node was first found so, and when it last looked and deleted.
type caState struct {
	since      map[string]time.Time
	lastScan   time.Time
	lastDelete time.Time
	scanned    bool
}

func newCAState() *caState { return &caState{since: map[string]time.Time{}} }

// caNode is what one loop of the autoscaler sees of a node.
type caNode struct {
	id               string
	ready            bool
	memFrac, cpuFrac float64 // requested / allocatable
	pods             int     // ebb worker pods on it: none can be moved
}

// unneeded: below the threshold in both resources, and no pod CA cannot
// move.
func (n caNode) unneeded() bool {
	return n.ready && n.memFrac < caUtilThreshold && n.cpuFrac < caUtilThreshold && n.pods == 0
}

// due says whether a scan is due at now: the first call, then every scan
// interval (the sim's tick is finer).
func (s *caState) due(now time.Time) bool {
	return !s.scanned || now.Sub(s.lastScan) >= caScanInterval
}

// loop is one scan at now: it updates the unneeded set and returns the
// nodes to delete, longest unneeded first, at most caMaxEmptyBulk.
// lastScaleUp is the latest node request.
func (s *caState) loop(now, lastScaleUp time.Time, nodes []caNode) []string {
	s.scanned, s.lastScan = true, now
	next := make(map[string]time.Time, len(s.since))
	for _, n := range nodes {
		if !n.unneeded() {
			continue
		}
		if t, ok := s.since[n.id]; ok {
			next[n.id] = t
		} else {
			next[n.id] = now
		}
	}
	s.since = next
	if lastScaleUp.Add(caDelayAfterAdd).After(now) || (!s.lastDelete.IsZero() && s.lastDelete.Add(caDelayAfterDelete).After(now)) {
		return nil // in cooldown: the timers ran, nothing is deleted
	}
	var out []string
	for _, n := range nodes {
		if t, ok := next[n.id]; ok && now.Sub(t) >= caUnneededTime {
			out = append(out, n.id)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return next[a].Compare(next[b]) })
	if len(out) > caMaxEmptyBulk {
		out = out[:caMaxEmptyBulk]
	}
	if len(out) > 0 {
		s.lastDelete = now
		for _, id := range out {
			delete(s.since, id)
		}
	}
	return out
}

// caScaleDown runs the autoscaler's loop over the model's nodes and
// removes what it deletes.
func (w *world) caScaleDown(now time.Time) {
	if !w.ca.due(now) {
		return
	}
	mn := w.m.Nodes()
	nodes := make([]caNode, 0, len(mn))
	for _, n := range mn {
		var vc int
		for _, id := range n.Workers {
			if x, ok := w.m.Worker(id); ok {
				vc += x.VCores
			}
		}
		nodes = append(nodes, caNode{id: n.ID, ready: n.Ready, memFrac: float64(n.UsedMB) / float64(n.MemoryMB),
			cpuFrac: float64(vc) / float64(n.VCores), pods: len(n.Workers)})
	}
	for _, id := range w.ca.loop(now, w.e.lastProvision, nodes) {
		evs, _ := w.m.Remove(now, id) // empty (no pod) and known: it cannot fail
		w.apply(now, evs)
	}
}
