package kube

import (
	"fmt"
	"slices"
	"sort"

	"github.com/ebb-am/ebb/am/core"
)

// PodObserved takes one pod watch event and returns the core's events it
// means. A pod that ends after it ran is a lost worker: preempted (its
// DisruptionTarget condition's reason PreemptionByScheduler) or evicted
// (any other reason of it, or the pod's reason Evicted) without a failure
// counted, its attempts failed on the memory retry path when it was
// OOMKilled. The worker's connection usually closed before: the core
// counts the cause against that loss (am/core/lostcause.go). A pod
// that ends before it ran was never a worker: it is forgotten, and the
// next Plan replaces it if its group still wants it. Pods the Book did not
// plan are ignored.
func (b *Book) PodObserved(s PodStatus) []core.Event {
	p, ok := b.pods[s.Name]
	if !ok {
		return nil
	}
	ended := s.Deleted || s.Phase == PhaseSucceeded || s.Phase == PhaseFailed
	if !ended {
		b.advance(p, s)
		return nil
	}
	delete(b.pods, s.Name)
	if p.state != podRunning {
		return nil
	}
	return lostWorker(p, s)
}

// advance moves a live pod forward (never back: a stale event after a
// newer one changes nothing).
func (b *Book) advance(p *pod, s PodStatus) {
	next := podPending
	switch {
	case s.Phase == PhaseRunning:
		next = podRunning
	case s.Node != "":
		next = podBound
	}
	if next >= p.state {
		p.state = next
		if s.Node != "" {
			p.node = s.Node
		}
	}
	p.unschedulable = ""
	if p.state == podPending {
		p.unschedulable = s.Unschedulable
	}
}

// lostWorker is the core's events for a worker pod that ended.
func lostWorker(p *pod, s PodStatus) []core.Event {
	gone := core.WorkerGone{Worker: p.name, Exited: true}
	switch {
	case s.Disruption == DisruptionPreemption:
		gone.Preempted = true
		gone.Reason = fmt.Sprintf("pod %s was %s", p.name, disruptionText(s.Disruption))
	case s.Disruption != "":
		gone.Evicted = true
		gone.Reason = fmt.Sprintf("pod %s was %s", p.name, disruptionText(s.Disruption))
	case s.Reason == ReasonEvicted:
		gone.Evicted = true
		gone.Reason = fmt.Sprintf("pod %s was evicted by the kubelet: %s", p.name, orUnknown(s.Message))
	case s.Terminated != nil && s.Terminated.Reason == ReasonOOMKilled:
		gone.OOMKilledMB = p.memoryMB
		gone.Reason = fmt.Sprintf("pod %s was OOMKilled at its %d MB limit", p.name, p.memoryMB)
	case s.Terminated != nil && s.Phase == PhaseFailed:
		gone.Reason = fmt.Sprintf("pod %s failed: %s, exit code %d", p.name, orUnknown(s.Terminated.Reason), s.Terminated.ExitCode)
	case s.Phase == PhaseFailed:
		gone.Reason = fmt.Sprintf("pod %s failed", p.name)
	case s.Phase == PhaseSucceeded:
		gone.Reason = fmt.Sprintf("pod %s exited", p.name)
	default:
		gone.Reason = fmt.Sprintf("pod %s was deleted", p.name)
	}
	return []core.Event{gone}
}

// disruptionText says who ended a pod, from its DisruptionTarget reason.
func disruptionText(reason string) string {
	switch reason {
	case DisruptionPreemption:
		return "preempted by the scheduler for a higher-priority pod (" + reason + ")"
	case DisruptionEviction:
		return "evicted through the Eviction API, e.g. a node drain (" + reason + ")"
	case DisruptionKubelet:
		return "terminated by the kubelet: node pressure or shutdown (" + reason + ")"
	case DisruptionTaint:
		return "deleted by the taint manager: its node is unreachable or tainted NoExecute (" + reason + ")"
	case DisruptionPodGC:
		return "deleted by the pod garbage collector: its node is gone (" + reason + ")"
	}
	return "disrupted by the cluster (" + reason + ")"
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown reason"
	}
	return s
}

// NodeObserved takes one node watch event and returns the core's events
// it means: for a node that is gone, every worker that ran there as lost
// (the pod watch may say so only much later, when the pod garbage
// collector gets to them), then the node list when a node was added,
// removed or resized.
func (b *Book) NodeObserved(s NodeStatus) []core.Event {
	var evs []core.Event
	if s.Deleted {
		delete(b.nodes, s.Name)
		for _, p := range b.sorted() {
			if p.node != s.Name {
				continue
			}
			delete(b.pods, p.name)
			if p.state == podRunning {
				evs = append(evs, core.WorkerGone{Worker: p.name, Exited: true, Evicted: true,
					Reason: fmt.Sprintf("its node %s was removed", s.Name)})
			}
		}
	} else {
		b.nodes[s.Name] = s.AllocatableMB
	}
	nodes := make([]core.ClusterNode, 0, len(b.nodes))
	for n, mb := range b.nodes {
		nodes = append(nodes, core.ClusterNode{ID: n, CapacityMB: mb})
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].ID < nodes[j].ID })
	if !slices.EqualFunc(nodes, b.reported, func(x, y core.ClusterNode) bool { return x.ID == y.ID && x.CapacityMB == y.CapacityMB }) {
		b.reported = nodes
		evs = append(evs, core.NodesReported{Nodes: nodes})
	}
	return evs
}
