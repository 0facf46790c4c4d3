package kube

import (
	"strconv"
	"strings"
)

// Adopt takes into the book a live worker pod of this application that it
// did not plan: one an earlier AM attempt created, found by the pod
// watch's first list when the AM container restarts in its pod (the pods
// keep their owner, the AM pod, so they are still ours). It counts toward
// its group from now on (its worker reconnects to the AM's Service and
// registers again), and new pods are numbered past it so that no name is
// reused. A pod the book already knows is left as it is.
func (b *Book) Adopt(s PodStatus, group string) {
	if _, ok := b.pods[s.Name]; ok || s.Deleted || s.Phase == PhaseSucceeded || s.Phase == PhaseFailed {
		return
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(s.Name, b.o.App+"-w-")) // not a number: 0, numbered as the oldest
	b.seq = max(b.seq, n)
	p := &pod{name: s.Name, group: group, seq: n, labelled: group}
	b.pods[s.Name] = p
	b.advance(p, s)
}

// NodeMB is a node's allocatable memory as the node watch last said (0:
// no such node).
func (b *Book) NodeMB(node string) int64 { return b.nodes[node] }

// LargestNodeMB is the largest allocatable memory of any node (0: none
// known yet): a worker larger than it can never be placed.
func (b *Book) LargestNodeMB() int64 {
	var m int64
	for _, mb := range b.nodes {
		m = max(m, mb)
	}
	return m
}

// SetMemory records the memory limit of an adopted pod (its spec's), for
// the OOMKilled diagnostics.
func (b *Book) SetMemory(name string, mb int64) {
	if p, ok := b.pods[name]; ok {
		p.memoryMB = mb
	}
}

// Running lists the pods the book knows to be running, by name: at the
// AM's start, the live workers it adopted, which the recovery waits for.
func (b *Book) Running() []string {
	var out []string
	for _, p := range b.sorted() {
		if p.state == podRunning && p.counts() {
			out = append(out, p.name)
		}
	}
	return out
}

// WorkerSelector selects the worker pods of application app: not its AM
// pod, which carries the same application label (and whose container,
// restarting, must not adopt its own pod as a worker).
func WorkerSelector(app string) string {
	return LabelApp + "=" + app + "," + LabelRole + "=worker"
}
