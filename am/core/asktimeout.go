package core

import "time"

// Asks nobody answers (a shared cluster): packed asks name nodes with room
// as far as the Core knows, from its own workers and asks and from what
// the node reports said others held (ClusterNode.OthersMB). Others'
// containers come and go after that report unseen, so a strict ask can
// name room that has gone: YARN then reserves the node for it and the
// worker waits until something there ends, however much room other nodes
// have. An ask for a named node that no worker answered within
// ebb.packing.ask.timeout.ms is given up: the node counts as full for as
// long again (no ask names it), and the worker is planned anew, elsewhere
// or anywhere.

// expireAsks gives up the asks that waited past the timeout.
func (c *Core) expireAsks() {
	d := c.opts.AskTimeout
	if d <= 0 {
		return
	}
	for node, until := range c.fullUntil {
		if !c.now.Before(until) {
			delete(c.fullUntil, node)
		}
	}
	for _, g := range c.gorder {
		var expired map[string]int // asks given up, by node
		kept := g.asked[:0]
		for _, a := range g.asked {
			if a.node == "" || c.now.Sub(a.at) < d {
				kept = append(kept, a)
				continue
			}
			if expired == nil {
				expired = map[string]int{}
			}
			expired[a.node]++
		}
		g.asked = kept
		for _, node := range sortedKeys(expired) {
			if c.fullUntil == nil {
				c.fullUntil = map[string]time.Time{}
			}
			c.fullUntil[node] = c.now.Add(d)
			g.replan = true
			c.logf("group %s: no worker came for its %d asks on node %s in %s (ebb.packing.ask.timeout.ms): the node counts as full for as long, and the workers are asked for elsewhere",
				g.info.Name, expired[node], node, d)
		}
	}
}

// askedFull reports whether node left an ask unanswered lately.
func (c *Core) askedFull(node string) bool {
	until, ok := c.fullUntil[node]
	return ok && c.now.Before(until)
}
