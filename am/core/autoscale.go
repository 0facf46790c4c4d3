package core

import (
	"fmt"
	"sort"
	"time"

	"github.com/ebb-am/ebb/scheduler"
)

// autoscaled is one group's autoscaler and what it asked for.
type autoscaled struct {
	a          *scheduler.Autoscaler
	lastSample time.Time
	target     int  // workers wanted: live + requested, as the autoscaler decided
	wants      bool // the last step's WantsWorkers
}

// autoscaler returns the group's state machine, creating it on first use.
func (c *Core) autoscaler(g *group) (*autoscaled, error) {
	if g.as != nil {
		return g.as, nil
	}
	a, err := scheduler.NewAutoscaler(g.info.Name, c.opts.Autoscale)
	if err != nil {
		return nil, err
	}
	g.as = &autoscaled{a: a}
	return g.as, nil
}

// autoscale samples every group's usage each interval and steps its state
// machine, turning decisions into worker totals and node drains.
func (c *Core) autoscale() {
	if c.opts.Scaling != ScaleAutoscaler {
		return
	}
	interval := c.opts.Autoscale.Interval
	for _, g := range c.gorder {
		as, err := c.autoscaler(g)
		if err != nil {
			c.warnf("group %s: autoscaler: %v", g.info.Name, err)
			continue
		}
		live := len(g.workers) - g.unavail
		// A group with queued work and no worker must not wait a whole
		// interval for its first one.
		urgent := live == 0 && g.pending == 0 && g.queue.Len() > 0
		if !urgent && !as.lastSample.IsZero() && c.now.Sub(as.lastSample) < interval {
			continue
		}
		as.lastSample = c.now
		snap := c.groupSnapshot(g)
		as.a.Sample(scheduler.Sample{At: c.now, RunningMB: snap.runningMB + g.reserveHeld, OfferedMB: snap.offeredMB,
			Workers: live, RunningAttempts: snap.running})
		d := as.a.Step(c.now, snap.GroupSnapshot)
		as.wants = as.a.WantsWorkers(snap.GroupSnapshot)
		c.apply(g, as, d, live)
	}
}

type groupSnap struct {
	scheduler.GroupSnapshot
	runningMB, offeredMB int64
	running              int
}

func (c *Core) groupSnapshot(g *group) groupSnap {
	var s groupSnap
	s.WorkerMB = g.info.MemoryMB
	s.QueuedAttempts = g.queue.Len()
	s.QueuedMB = g.queuedMB
	s.PendingWorkers = g.pending
	byNode := map[string]*scheduler.NodeLoad{}
	var durSum time.Duration
	var durN int
	for w := range g.workers {
		if w.draining {
			continue
		}
		s.Workers++
		s.offeredMB += w.info.MemoryMB
		s.runningMB += w.info.MemoryMB - w.freeMB
		s.running += len(w.running)
		nl := byNode[w.node.id]
		if nl == nil {
			nl = &scheduler.NodeLoad{ID: w.node.id}
			byNode[w.node.id] = nl
		}
		nl.Workers++
		nl.RunningAttempts += len(w.running)
		nl.RunningMB += w.info.MemoryMB - w.freeMB
		for _, n := range w.outputs {
			nl.NeededOutputs += n
		}
		nl.PaidUntil = c.nodePaidUntil(w.node.id)
	}
	ids := make([]string, 0, len(byNode))
	for id := range byNode {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		s.Nodes = append(s.Nodes, *byNode[id])
	}
	s.RunningAttempts = s.running
	ramp := ""
	for d := range g.owners {
		if !d.state.Done() {
			s.ActiveDAGs = append(s.ActiveDAGs, d.id)
			if d.ramp != "" && (ramp == "" || d.ramp == "aggressive") {
				ramp = d.ramp
			}
			durSum += d.attemptTime
			durN += d.attemptsDone
		}
	}
	sort.Strings(s.ActiveDAGs)
	s.Ramp = ramp
	if durN > 0 {
		s.MeanAttemptDuration = durSum / time.Duration(durN)
	}
	if c.opts.Autoscale.Predictive {
		c.estimateWork(g, &s)
	}
	return s
}

// apply carries out one autoscaler decision.
func (c *Core) apply(g *group, as *autoscaled, d scheduler.Decision, live int) {
	// A change of state, or a request for workers within SCALE_OUT (the
	// work in sight asking again during a boot): each is a decision an
	// operator should see with its reason.
	if d.From != d.To || d.RequestWorkers > 0 {
		msg := fmt.Sprintf("group %s: %s → %s: %s", g.info.Name, d.From, d.To, d.Reason)
		c.logf("%s", msg)
		c.transitions = append(c.transitions, Transition{At: c.now, Group: g.info.Name, From: d.From.String(), To: d.To.String(), Reason: d.Reason})
		if len(c.transitions) > maxTransitions {
			c.transitions = c.transitions[len(c.transitions)-maxTransitions:]
		}
	}
	if d.RequestWorkers > 0 {
		as.target = live + g.pending + d.RequestWorkers
	}
	if d.CancelPending {
		as.target = live
	}
	for _, n := range d.DrainNodes {
		c.DrainNode(c.now, n, fmt.Sprintf("group %s scale-in", g.info.Name), len(d.WaitForDAGs) > 0)
	}
}

// Transition is one autoscaler state change, kept for operators.
type Transition struct {
	At     time.Time
	Group  string
	From   string
	To     string
	Reason string
}

const maxTransitions = 1000

// Transitions returns the recent autoscaler transitions, oldest first.
func (c *Core) Transitions() []Transition { return append([]Transition(nil), c.transitions...) }

// SetThresholds retunes the autoscalers of one group ("" = all) while the
// AM runs, like MR3's MasterControl.
func (c *Core) SetThresholds(group string, outPercent, inPercent, minHosts int) error {
	err := c.forGroups(group, func(a *scheduler.Autoscaler) error {
		return a.SetThresholds(outPercent, inPercent, minHosts)
	})
	if err != nil || group != "" {
		return err
	}
	c.opts.Autoscale.OutThresholdPercent = outPercent
	c.opts.Autoscale.InThresholdPercent = inPercent
	c.opts.Autoscale.MinHosts = minHosts
	return nil
}

// forGroups hands set the autoscaler of the group named, or of every
// group when group is "", stopping at the first error. The run-time
// commands (thresholds, latency target) address groups alike through it,
// so a name no group has is refused the same way for each.
func (c *Core) forGroups(group string, set func(*scheduler.Autoscaler) error) error {
	found := false
	for _, g := range c.gorder {
		if group != "" && g.info.Name != group {
			continue
		}
		found = true
		as, err := c.autoscaler(g)
		if err != nil {
			return err
		}
		if err := set(as.a); err != nil {
			return err
		}
	}
	if group != "" && !found {
		return fmt.Errorf("no ContainerGroup %q", group)
	}
	return nil
}
