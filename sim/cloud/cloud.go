package cloud

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Errors a caller acts on: at the cap, wait for nodes to go; an unknown
// type or node, or a second release, is a bug in the caller.
var (
	ErrAtCap       = errors.New("the cloud is at its node cap")
	ErrUnknownType = errors.New("unknown node type")
	ErrUnknownNode = errors.New("unknown node")
	ErrReleased    = errors.New("node already released")
	ErrBeforeStart = errors.New("time before the node was requested")
)

// Node is one rented node's record.
type Node struct {
	ID        string
	Type      NodeType
	Requested time.Time // billing starts here
	ReadyAt   time.Time // Requested + ProvisionDelay
	Released  time.Time // zero while the node exists
}

// Live says whether the node exists (provisioning or ready) at now.
func (n Node) Live(now time.Time) bool {
	return !now.Before(n.Requested) && (n.Released.IsZero() || now.Before(n.Released))
}

// Ready says whether the node is up and not yet released at now.
func (n Node) Ready(now time.Time) bool { return n.Live(now) && !now.Before(n.ReadyAt) }

// end is when the node's existence ends as seen at now.
func (n Node) end(now time.Time) time.Time {
	if !n.Released.IsZero() && n.Released.Before(now) {
		return n.Released
	}
	if now.Before(n.Requested) {
		return n.Requested
	}
	return now
}

// Cloud is the virtual cloud's bookkeeping: which nodes exist, since when,
// and what they cost. It is not safe for concurrent use; one sim run owns
// one Cloud.
type Cloud struct {
	cfg   Config
	types map[string]NodeType
	nodes []Node         // in provisioning order
	index map[string]int // node id -> position in nodes
	live  int
}

// New checks cfg and returns an empty cloud.
func New(cfg Config) (*Cloud, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := &Cloud{cfg: cfg, types: map[string]NodeType{}, index: map[string]int{}}
	for _, t := range cfg.Types {
		c.types[t.Name] = t
	}
	return c, nil
}

// Config returns the rules the cloud was made with.
func (c *Cloud) Config() Config { return c.cfg }

// Provision requests a node of type typ ("" for the first type) at now.
// It is ready ProvisionDelay later and billed from now.
func (c *Cloud) Provision(now time.Time, typ string) (id string, readyAt time.Time, err error) {
	t := c.cfg.Types[0]
	if typ != "" {
		var ok bool
		if t, ok = c.types[typ]; !ok {
			names := make([]string, len(c.cfg.Types))
			for i, t := range c.cfg.Types {
				names[i] = t.Name
			}
			return "", time.Time{}, fmt.Errorf("%w %q: the cloud offers %s", ErrUnknownType, typ, strings.Join(names, ", "))
		}
	}
	if c.cfg.MaxNodes > 0 && c.live >= c.cfg.MaxNodes {
		return "", time.Time{}, fmt.Errorf("%w: %d of %d nodes exist", ErrAtCap, c.live, c.cfg.MaxNodes)
	}
	id = fmt.Sprintf("node%05d", len(c.nodes)+1)
	n := Node{ID: id, Type: t, Requested: now, ReadyAt: now.Add(c.cfg.ProvisionDelay)}
	c.index[id] = len(c.nodes)
	c.nodes = append(c.nodes, n)
	c.live++
	return id, n.ReadyAt, nil
}

// Release gives node id back at now (also before it is ready: the request
// is cancelled, but the time since the request is still paid).
func (c *Cloud) Release(now time.Time, id string) error {
	i, ok := c.index[id]
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownNode, id)
	}
	n := &c.nodes[i]
	if !n.Released.IsZero() {
		return fmt.Errorf("%w: %s at %s", ErrReleased, id, n.Released.Format(time.RFC3339))
	}
	if now.Before(n.Requested) {
		return fmt.Errorf("%w: releasing %s at %s, requested at %s", ErrBeforeStart, id,
			now.Format(time.RFC3339), n.Requested.Format(time.RFC3339))
	}
	n.Released = now
	c.live--
	return nil
}

// Node returns node id's record.
func (c *Cloud) Node(id string) (Node, bool) {
	i, ok := c.index[id]
	if !ok {
		return Node{}, false
	}
	return c.nodes[i], true
}

// Nodes returns every node ever requested, in request order (a copy).
func (c *Cloud) Nodes() []Node { return append([]Node(nil), c.nodes...) }

// Live is how many nodes exist (provisioning or ready): what MaxNodes caps.
func (c *Cloud) Live() int { return c.live }

// ReclaimAt is when a node idle since idleSince is given back.
func (c *Cloud) ReclaimAt(idleSince time.Time) time.Time { return idleSince.Add(c.cfg.ReclaimDelay) }
