package kube

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/ebb-am/ebb/am/core"
)

// Book is the bookkeeping between the core's wishes and the API server:
// what each group wants, which worker pods exist and in what state, what
// each was last told (its group label, its safe-to-evict annotation). It
// does no IO and reads no clock; the world calls it from one goroutine.
//
// A pod counts toward its group from the moment it is planned (its create
// is in flight) until the core stops its worker or the pod ends. Plan
// creates what is missing and deletes surplus pods that are not running
// yet, unscheduled ones first, newest first: the scheduler may bind a
// pod at any moment, so a pod already bound is given up last.
type Book struct {
	o      Options
	groups map[string]*groupBook
	// avoid: the nodes no new pod may go to; draining: the nodes whose
	// pods no longer count toward their groups (core.WantWorkers).
	avoid    map[string]bool
	draining map[string]bool
	pods     map[string]*pod
	seq      int
	nodes    map[string]int64 // node → allocatable MB
	// reported: the node list the core was last told, to send only
	// changes.
	reported []core.ClusterNode
}

type groupBook struct {
	info   core.GroupInfo
	want   int
	prefer []string
}

// podState is where a pod is in its life as the Book knows it.
type podState int

const (
	// podPlanned: the create was handed to the world; no watch event yet.
	podPlanned podState = iota
	podPending
	podBound // Pending, with a node
	podRunning
)

type pod struct {
	name, group string
	seq         int
	state       podState
	node        string
	memoryMB    int64
	stopped     bool // the AM told its worker to exit
	deleting    bool // the Book asked for its deletion
	// unschedulable: the scheduler's message, while it cannot place it.
	unschedulable string
	// labelled: the group its LabelGroup names; holding / marked: whether
	// it holds an output a running DAG needs, and whether its annotation
	// says so.
	labelled        string
	holding, marked bool
}

// NewBook returns an empty book for valid options.
func NewBook(o Options) (*Book, error) {
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("kube: %w", err)
	}
	if o.OutputDir == "" {
		o.OutputDir = "/ebb/work"
	}
	return &Book{o: o, groups: map[string]*groupBook{}, avoid: map[string]bool{}, draining: map[string]bool{},
		pods: map[string]*pod{}, nodes: map[string]int64{}}, nil
}

// Want records a group's wished total (its pods that count, planned to
// running). Prefer names the nodes its new pods should go to ("" for
// anywhere); Avoid the nodes no new pod may go to; Draining the nodes
// whose pods no longer count. Both lists replace the previous ones.
func (b *Book) Want(a core.WantWorkers) {
	b.WantNone(a.Group)
	gb := b.groups[a.Group.Name]
	gb.want, gb.prefer = a.Total, slices.Clone(a.Prefer)
	b.avoid = setOf(a.Avoid)
	b.draining = setOf(a.Draining)
}

// WantNone sets a group's wished total to 0, the node lists unchanged (a
// group refused by the API server).
func (b *Book) WantNone(g core.GroupInfo) {
	gb, ok := b.groups[g.Name]
	if !ok {
		gb = &groupBook{}
		b.groups[g.Name] = gb
	}
	gb.info, gb.want, gb.prefer = g, 0, nil
}

func setOf(names []string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}

// Counted is how many pods count toward a group: not told to stop, not
// being deleted, and not on a draining node. The core counts a draining
// worker out of its group as soon as its node drains (it is leaving), so
// the total it wants is of the others; a worker that stays on to serve
// its outputs must not stand in for a new one its group needs meanwhile
// (with every node draining, that new worker would never come). A pod on
// a node merely avoided (a slow one, kept clear for speculative backups)
// still counts: the core counts its worker live, and a new pod for it
// would be surplus.
func (b *Book) Counted(group string) int {
	n := 0
	for _, p := range b.pods {
		if p.group == group && p.counts() && !b.draining[p.node] {
			n++
		}
	}
	return n
}

func (p *pod) counts() bool { return !p.stopped && !p.deleting }

// Stopped: the AM told the worker in pod name to exit; it no longer counts
// and goes when its process does.
func (b *Book) Stopped(name string) {
	if p, ok := b.pods[name]; ok {
		p.stopped = true
	}
}

// Moved: recycling gave the worker in pod name to another group; the next
// Plan relabels it.
func (b *Book) Moved(name string, g core.GroupInfo) {
	if p, ok := b.pods[name]; ok {
		p.group = g.Name
	}
}

// SetHolding records whether the worker in pod name holds an output a
// running DAG needs; the next Plan marks it safe-to-evict "false" while it
// does.
func (b *Book) SetHolding(name string, holds bool) {
	if p, ok := b.pods[name]; ok {
		p.holding = holds
	}
}

// Unschedulable is, per group, the scheduler's message for a pod of it
// that it cannot place (the oldest such pod's), for the UI.
func (b *Book) Unschedulable() map[string]string {
	out := map[string]string{}
	for _, p := range b.sorted() {
		if p.unschedulable != "" && p.counts() {
			if _, ok := out[p.group]; !ok {
				out[p.group] = p.unschedulable
			}
		}
	}
	return out
}

// sorted lists the pods oldest first.
func (b *Book) sorted() []*pod {
	out := make([]*pod, 0, len(b.pods))
	for _, p := range b.pods {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// Plan is what the world must do now: delete pods bound to a draining
// node before they run, delete each group's surplus pods that are not
// running, create its missing ones, and patch live pods whose group label
// or safe-to-evict annotation is stale.
func (b *Book) Plan() Actions {
	var a Actions
	for _, p := range b.sorted() {
		if p.state == podBound && b.avoid[p.node] && !p.deleting {
			p.deleting = true
			a.Delete = append(a.Delete, p.name)
		}
	}
	names := make([]string, 0, len(b.groups))
	for n := range b.groups {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		gb := b.groups[name]
		have := b.Counted(name)
		switch {
		case have > gb.want:
			a.Delete = append(a.Delete, b.surplus(name, have-gb.want)...)
		case have < gb.want:
			a.Create = append(a.Create, b.create(gb, gb.want-have)...)
		}
	}
	a.Patch = b.patches()
	return a
}

// surplus marks up to n of a group's pods that are not running for
// deletion: unscheduled before bound, newest first.
func (b *Book) surplus(group string, n int) []string {
	var cands []*pod
	for _, p := range b.pods {
		if p.group == group && p.counts() && p.state != podRunning {
			cands = append(cands, p)
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		bi, bj := cands[i].state == podBound, cands[j].state == podBound
		if bi != bj {
			return !bi
		}
		return cands[i].seq > cands[j].seq
	})
	var out []string
	for _, p := range cands[:min(n, len(cands))] {
		p.deleting = true
		out = append(out, p.name)
	}
	return out
}

// create plans n new pods of a group, dealing its preferred nodes round
// robin (the first pod to the best node), as the YARN book deals strict
// node asks.
func (b *Book) create(gb *groupBook, n int) []PodSpec {
	var prefer []string
	for _, node := range gb.prefer {
		if node == "" || !b.avoid[node] {
			prefer = append(prefer, node)
		}
	}
	out := make([]PodSpec, 0, n)
	for i := 0; i < n; i++ {
		b.seq++
		p := &pod{name: b.o.App + "-w-" + strconv.Itoa(b.seq), group: gb.info.Name, seq: b.seq,
			memoryMB: gb.info.MemoryMB, labelled: gb.info.Name}
		b.pods[p.name] = p
		node := ""
		if len(prefer) > 0 {
			node = prefer[i%len(prefer)]
		}
		out = append(out, b.spec(p, gb.info, node))
	}
	return out
}

// patches are the label and annotation changes live pods need.
func (b *Book) patches() []Patch {
	var out []Patch
	for _, p := range b.sorted() {
		if p.deleting || p.state == podPlanned {
			continue
		}
		var pt Patch
		if p.labelled != p.group {
			pt.Labels = map[string]string{LabelGroup: groupLabel(p.group)}
			pt.Annotations = map[string]string{AnnotationGroup: p.group}
			p.labelled = p.group
		}
		if p.holding != p.marked {
			if pt.Annotations == nil {
				pt.Annotations = map[string]string{}
			}
			pt.Annotations[AnnotationSafeToEvict] = ""
			if p.holding {
				pt.Annotations[AnnotationSafeToEvict] = "false"
			}
			p.marked = p.holding
		}
		if pt.Labels != nil || pt.Annotations != nil {
			pt.Pod = p.name
			out = append(out, pt)
		}
	}
	return out
}
