package cluster

import (
	"errors"
	"fmt"
	"time"

	"github.com/ebb-am/ebb/packing"
)

// Group is what the model needs of a worker group: its name and the size
// of its workers.
type Group struct {
	Name     string
	MemoryMB int64
	VCores   int
	// Types: other resource types each worker takes (yarn.io/gpu: 1).
	Types map[string]int64
}

// Provider rents nodes. Provision requests one at now; it is ready at
// readyAt (now or later). An error means no node can be had now (e.g. the
// cloud's own cap): the worker that needed it waits or is dropped, as at
// the model's cap. Release gives a node back.
type Provider interface {
	Provision(now time.Time) (id string, readyAt time.Time, err error)
	Release(now time.Time, id string) error
}

// Options are a cluster's shape and the model's policy switches.
type Options struct {
	NodeMB     int64 // memory of every node
	NodeVCores int   // vcores of every node (reported, not placed by)
	// NodeTypes: every node's other resource types (yarn.io/gpu: 2),
	// placed by: a worker goes only where enough of each is free.
	NodeTypes map[string]int64
	MaxNodes  int // the cap on nodes that exist (provisioning or ready); 0 = none
	// ReclaimDelay is how long a ready node stays empty before it is
	// removed.
	ReclaimDelay time.Duration
	// KeepNodes: never remove empty nodes (a fixed cluster, or a node
	// scaler on top that removes them itself with Remove).
	KeepNodes bool
	// QueueUnplaced: a worker with no room (at the cap) waits in a queue
	// and is placed as soon as room appears. Without it the worker is not
	// created and Want stops there: the caller will ask again.
	QueueUnplaced bool
	// Allocator chooses among the nodes with room; nil takes the first.
	Allocator packing.Allocator
	// WorkerID names the seq-th worker (from 1); nil gives "w000001".
	WorkerID func(seq int) string
}

// ErrOptions is wrapped by every error about bad Options.
var ErrOptions = errors.New("bad cluster options")

// ErrNodeBusy: a node with workers on it cannot be removed.
var ErrNodeBusy = errors.New("node has workers")

// ErrUnknownNode: no node of that id exists (it may have been removed).
var ErrUnknownNode = errors.New("unknown node")

// TooBigError is a group whose workers no node can hold: asking again
// will not help, the configuration must change. Type, when set, is the
// resource type no node has enough of (Want per worker, NodeHas per
// node); else memory is.
type TooBigError struct {
	Group    string
	WorkerMB int64
	NodeMB   int64
	Type     string
	Want     int64
	NodeHas  int64
}

func (e *TooBigError) Error() string {
	if e.Type != "" {
		return fmt.Sprintf("group %s asks for %d %s per worker, more than a node has (%d)", e.Group, e.Want, e.Type, e.NodeHas)
	}
	return fmt.Sprintf("group %s asks for %d MB workers, more than a %d MB node holds", e.Group, e.WorkerMB, e.NodeMB)
}

type node struct {
	id         string
	readyAt    time.Time
	ready      bool
	draining   bool
	emptySince time.Time        // when the node last became empty (or ready)
	usedMB     int64            // memory of the workers placed here
	usedTypes  map[string]int64 // and their other resource types
	workers    []*worker        // in seq order
}

type worker struct {
	id      string
	seq     int
	group   string
	mb      int64
	vcores  int
	types   map[string]int64
	node    *node // nil while queued
	started bool  // the caller was told to start it
	stopped bool  // the AM stopped it; its memory is held until Gone
}

// Model is one cluster. It is not safe for concurrent use: one loop owns it.
type Model struct {
	o       Options
	p       Provider
	nodes   []*node // nodes that exist, in provisioning order
	byID    map[string]*node
	workers []*worker // in seq order
	byW     map[string]*worker
	want    map[string]int
	avoid   map[string]bool
	seq     int
}

// New checks o and returns an empty cluster that gets nodes from p.
func New(o Options, p Provider) (*Model, error) {
	switch {
	case p == nil:
		return nil, fmt.Errorf("%w: no Provider", ErrOptions)
	case o.NodeMB <= 0:
		return nil, fmt.Errorf("%w: NodeMB = %d: want a positive number of MB", ErrOptions, o.NodeMB)
	case o.MaxNodes < 0:
		return nil, fmt.Errorf("%w: MaxNodes = %d: want 0 (no cap) or more", ErrOptions, o.MaxNodes)
	case o.ReclaimDelay < 0:
		return nil, fmt.Errorf("%w: ReclaimDelay = %s: want 0 or more", ErrOptions, o.ReclaimDelay)
	}
	if o.WorkerID == nil {
		o.WorkerID = func(seq int) string { return fmt.Sprintf("w%06d", seq) }
	}
	return &Model{o: o, p: p, byID: map[string]*node{}, byW: map[string]*worker{}, want: map[string]int{}, avoid: map[string]bool{}}, nil
}

// NodeMB is every node's memory.
func (m *Model) NodeMB() int64 { return m.o.NodeMB }

// Live is how many nodes exist, provisioning or ready: what the cap counts.
func (m *Model) Live() int { return len(m.nodes) }

// AddReadyNode provisions a node that is ready at once (a cluster's
// initial nodes). It fails at the cap or when the provider does.
func (m *Model) AddReadyNode(now time.Time) (string, error) {
	if m.atCap() {
		return "", fmt.Errorf("cluster: %d nodes exist, the cap", len(m.nodes))
	}
	n, err := m.provision(now, true, nil)
	if err != nil {
		return "", err
	}
	return n.id, nil
}

func (m *Model) atCap() bool { return m.o.MaxNodes > 0 && len(m.nodes) >= m.o.MaxNodes }

// provision requests a node; ready makes it ready at once whatever the
// provider says.
func (m *Model) provision(now time.Time, ready bool, ev *[]Event) (*node, error) {
	id, readyAt, err := m.p.Provision(now)
	if err != nil {
		return nil, err
	}
	n := &node{id: id, readyAt: readyAt, emptySince: now}
	if ready || !readyAt.After(now) {
		n.ready, n.readyAt = true, now
	}
	m.nodes = append(m.nodes, n)
	m.byID[id] = n
	if ev != nil {
		*ev = append(*ev, Event{Kind: NodeRequested, Node: id, At: n.readyAt})
	}
	return n, nil
}
