package core

import (
	"slices"
	"time"
)

// The asks in flight (issue 23, the ask cap): under packing, a group's
// WantWorkers names a node for each worker it asks for. The worlds keep
// only the newest Prefer list and, like YARN's book, ask for as many of
// its first entries as they still lack containers (wanted minus held,
// where held counts containers allocated but not yet registered). So a
// plan made from the registered workers alone put the next worker on the
// node the ones still starting were about to fill: with the ask capped at
// 10 and 11 workers wanted, the 11th became a strict ask for a full node
// and waited until a worker there stopped. g.asked remembers where the
// workers still on their way were asked for; new plans count them as
// used and come first in Prefer.

// planAsks returns the Prefer list for a group that now waits for n
// workers: the new workers' nodes first (planned around the registered
// workers and every group's asks in flight), then the asks already in
// flight. Nil when not packing.
func (c *Core) planAsks(g *group, n int) []string {
	if n <= 0 || c.opts.Allocator.Name() != "packed" {
		g.asked = nil
		return nil
	}
	kept := g.asked[:min(len(g.asked), n)] // fewer wanted: the oldest asks go
	fresh := c.preferNodes(g, n-len(kept))
	if len(fresh) == 0 && len(kept) == 0 {
		g.asked = nil
		return nil
	}
	// No known node for the new ones: anywhere, not round-robin over
	// the nodes of the asks in flight, which they may fill.
	for len(fresh) < n-len(kept) {
		fresh = append(fresh, "")
	}
	asked := make([]ask, 0, n)
	for _, node := range fresh {
		asked = append(asked, ask{node: node, at: c.now})
	}
	g.asked = append(asked, kept...)
	prefer := make([]string, len(g.asked))
	for i, a := range g.asked {
		prefer[i] = a.node
	}
	return prefer
}

// ask is a worker asked for and not yet registered: the node named for it
// ("" = anywhere) and when it was named (asktimeout.go).
type ask struct {
	node string
	at   time.Time
}

// askArrived notes that a worker of g registered on node: it is no longer
// pending, and the ask it answers (one for that node, else one for
// anywhere, else the oldest: the cluster may place a relaxed ask elsewhere)
// is no longer in flight.
func (g *group) askArrived(node string) {
	if g.pending > 0 {
		g.pending--
	}
	if len(g.asked) == 0 {
		return
	}
	i := slices.IndexFunc(g.asked, func(a ask) bool { return a.node == node })
	if i < 0 {
		i = slices.IndexFunc(g.asked, func(a ask) bool { return a.node == "" })
	}
	if i < 0 {
		i = len(g.asked) - 1
	}
	g.asked = slices.Delete(g.asked, i, i+1)
}

// inFlightMB is the memory of every group's workers asked for on node and
// not yet registered.
func (c *Core) inFlightMB(node string) int64 {
	var mb int64
	for _, g := range c.gorder {
		for _, a := range g.asked {
			if a.node == node {
				mb += g.info.MemoryMB
			}
		}
	}
	return mb
}
