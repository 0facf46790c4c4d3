package scheduler

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Autoscaler is the state machine of one ContainerGroup. It has no clock
// and does no IO: the AM feeds it a Sample every interval and calls Step
// with the time and a snapshot of the group, then carries out the
// Decision. It is not safe for concurrent use; the AM's event loop owns
// it.
type Autoscaler struct {
	group string
	cfg   AutoscaleConfig

	state State
	since time.Time // when state was entered
	// leftScaleOut is when the group last left SCALE_OUT (zero = never):
	// the scale-in delay counts from there, so that workers just asked
	// for are not emptied before their work arrives.
	leftScaleOut time.Time
	requested    int // workers asked for on entering SCALE_OUT
	// lowSince is when the usage last went to or below the scale-in
	// threshold and has stayed there (zero: it is above, or unknown).
	lowSince time.Time

	win     window
	peaks   []demandAt    // the headroom window's running maximum (autoscale_headroom.go)
	track   slowdownTrack // the latency target's feedback (autoscale_target.go)
	usage   float64       // percent, as of the last Step
	usageOK bool
	history []Transition
}

// NewAutoscaler validates cfg and starts the group in STABLE.
func NewAutoscaler(group string, cfg AutoscaleConfig) (*Autoscaler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("autoscaler for group %s: %w", group, err)
	}
	return &Autoscaler{group: group, cfg: cfg, state: StateStable, win: window{length: cfg.Window}}, nil
}

// Group is the name of the group this autoscaler sizes.
func (a *Autoscaler) Group() string { return a.group }

// Config is the configuration in force, thresholds as last retuned.
func (a *Autoscaler) Config() AutoscaleConfig { return a.cfg }

// State is the current state.
func (a *Autoscaler) State() State { return a.state }

// Usage is the window's usage in percent as of the last Step; ok is false
// while no sample counts (no worker yet, or none in the window).
func (a *Autoscaler) Usage() (percent float64, ok bool) { return a.usage, a.usageOK }

// History is the recent transitions, oldest first.
func (a *Autoscaler) History() []Transition { return slices.Clone(a.history) }

// Sample records one measurement of the group. Take one every
// cfg.Interval, before the Step of that interval.
func (a *Autoscaler) Sample(s Sample) { a.win.add(s) }

// SetThresholds retunes a running autoscaler, like MR3's MasterControl.
// The new values are validated together with the rest of the config; on
// error nothing changes.
func (a *Autoscaler) SetThresholds(outPercent, inPercent, minHosts int) error {
	c := a.cfg
	c.OutThresholdPercent, c.InThresholdPercent, c.MinHosts = outPercent, inPercent, minHosts
	if err := c.Validate(); err != nil {
		return fmt.Errorf("autoscaler for group %s: %w", a.group, err)
	}
	a.cfg = c
	return nil
}

// SetTarget changes the latency target (KeyTargetSlowdown) at run time, as
// `ebb autoscale --target` asks: the horizon follows from the next step
// on. The slowdowns measured so far and the feedback they built are kept:
// they describe the workload, not the target.
func (a *Autoscaler) SetTarget(p95Slowdown float64) error {
	c := a.cfg
	c.TargetSlowdown = p95Slowdown
	if err := c.Validate(); err != nil {
		return fmt.Errorf("autoscaler for group %s: %w", a.group, err)
	}
	a.cfg = c
	return nil
}

// Step applies the rules for the current state at now and says what to
// do. It makes at most one transition, with one exception: a group that
// returns to STABLE with no worker while attempts are queued asks for
// workers in the same step, because nothing else would ever run them.
func (a *Autoscaler) Step(now time.Time, snap GroupSnapshot) Decision {
	frac, ok := a.win.usage(now, a.cfg.Scheme)
	a.usage, a.usageOK = 100*frac, ok
	a.trackLow(now)
	a.noteDemand(now, snap)

	d := Decision{From: a.state}
	switch a.state {
	case StateScaleOut:
		a.stepScaleOut(now, snap, &d)
	case StateScaleIn:
		a.stepScaleIn(now, snap, &d)
	default:
		a.stepStable(now, snap, &d)
	}
	if d.From != StateStable && a.state == StateStable && !d.CancelPending &&
		snap.Workers <= 0 && snap.QueuedAttempts > 0 {
		first := d.Reason
		a.stepStable(now, snap, &d)
		d.Reason = first + "; then " + d.Reason
	}
	d.To = a.state
	return d
}

// stepScaleOut waits for the requested workers, for at most the grace
// period plus a node's boot time. Pending requests are cancelled at its
// end: YARN may never grant them, and a stale ask would launch a worker
// long after the load that wanted it has gone. The boot is added because
// a worker that needs a new node cannot arrive before the node does:
// cancelling it earlier throws away a node already paid for and asks
// again a moment later (seen in the sim as a minute's grace against a
// three-minute boot, requests cancelled and renewed every 70 s).
func (a *Autoscaler) stepScaleOut(now time.Time, s GroupSnapshot, d *Decision) {
	grace := a.cfg.OutGracePeriod + a.cfg.BootTime
	switch {
	case a.askAgain(now, s, d):
		// askAgain has filled in d.
	case s.PendingWorkers <= 0:
		d.Reason = "all requested workers launched"
		a.becomeStable(now, d.Reason)
	case now.Sub(a.since) >= grace:
		d.CancelPending = true
		d.Reason = fmt.Sprintf("scale-out grace period %ss passed, cancelling %d pending %s",
			secs(grace), s.PendingWorkers, plural(s.PendingWorkers, "worker"))
		a.becomeStable(now, d.Reason)
	default:
		d.Reason = fmt.Sprintf("waiting for %d pending %s, grace period ends in %ss",
			s.PendingWorkers, plural(s.PendingWorkers, "worker"), secs(grace-now.Sub(a.since)))
	}
}

// stepScaleIn waits for the drained nodes to empty. It never requests a
// worker: the nodes chosen a moment ago are still emptying, and asking
// for new ones now would pay twice for the same capacity.
func (a *Autoscaler) stepScaleIn(now time.Time, s GroupSnapshot, d *Decision) {
	grace := a.cfg.InGracePeriod
	switch {
	case s.Workers <= 0:
		d.Reason = "the group has no worker left"
		a.becomeStable(now, d.Reason)
	case now.Sub(a.since) >= grace:
		d.Reason = fmt.Sprintf("scale-in grace period %ss passed", secs(grace))
		a.becomeStable(now, d.Reason)
	case s.QueuedAttempts > 0:
		d.Reason = fmt.Sprintf("%s, %d attempts queued: no scale-out while a scale-in is in progress",
			a.usageText(), s.QueuedAttempts)
	default:
		d.Reason = fmt.Sprintf("scale-in in progress, grace period ends in %ss", secs(grace-now.Sub(a.since)))
	}
}

// stepStable checks the rules in order: a group with queued work and no
// worker; the scale-out threshold; the predicted time to drain the
// queue; the scale-in threshold.
func (a *Autoscaler) stepStable(now time.Time, s GroupSnapshot, d *Decision) {
	out, in := float64(a.cfg.OutThresholdPercent), float64(a.cfg.InThresholdPercent)
	switch {
	case s.Workers <= 0 && s.QueuedAttempts > 0:
		a.firstWorkers(now, s, d)
	case a.usageOK && a.usage >= out && s.QueuedAttempts > 0:
		a.thresholdScaleOut(now, s, d)
	case a.cfg.Predictive && a.predictiveScaleOut(now, s, d):
		// predictiveScaleOut has filled in d.
	case a.boundaryScaleIn(now, s, d):
		// boundaryScaleIn has filled in d.
	case a.usageOK && a.usage <= in && s.Workers > 0:
		a.scaleIn(now, s, d)
	case s.Workers <= 0:
		d.Reason = "no worker and no attempt queued"
	case !a.usageOK:
		d.Reason = "no usage sample counts yet"
	case a.usage >= out:
		d.Reason = fmt.Sprintf("%s ≥ %d%% but no attempt queued", a.usageText(), a.cfg.OutThresholdPercent)
	default:
		d.Reason = fmt.Sprintf("%s between %d%% and %d%%", a.usageText(),
			a.cfg.InThresholdPercent, a.cfg.OutThresholdPercent)
	}
}

// firstWorkers starts a group that has queued work and no worker. It is
// not gated by usage (there is none without a worker) nor by any delay.
func (a *Autoscaler) firstWorkers(now time.Time, s GroupSnapshot, d *Decision) {
	n := a.initialWorkers(s)
	if n <= 0 {
		d.Reason = fmt.Sprintf("no worker, %d attempts queued, %d %s already requested",
			s.QueuedAttempts, s.PendingWorkers, plural(s.PendingWorkers, "worker"))
		return
	}
	d.RequestWorkers = n
	d.Reason = fmt.Sprintf("no worker, %d attempts queued (%d MB), requesting %d %s",
		s.QueuedAttempts, s.QueuedMB, n, plural(n, "worker"))
	a.becomeScaleOut(now, n, d.Reason)
}

func (a *Autoscaler) thresholdScaleOut(now time.Time, s GroupSnapshot, d *Decision) {
	n := a.scaleOutCount(s)
	head := fmt.Sprintf("%s ≥ %d%%, %d attempts queued", a.usageText(), a.cfg.OutThresholdPercent, s.QueuedAttempts)
	if capped := a.capByWork(n, s); capped < n {
		if capped <= 0 {
			d.Reason = fmt.Sprintf("%s, but the work in sight (%s MB·s) ends before a new node would boot (%ss)",
				head, mbsText(s.QueuedWork+s.RunningWork), secs(a.cfg.BootTime))
			return
		}
		n = capped
	}
	if n <= 0 {
		d.Reason = fmt.Sprintf("%s, but the %d pending %s cover the queue",
			head, s.PendingWorkers, plural(s.PendingWorkers, "worker"))
		return
	}
	d.RequestWorkers = n
	d.Reason = fmt.Sprintf("%s, requesting %d %s", head, n, plural(n, "worker"))
	if need, ok := a.workNeed(s); ok && a.cfg.Predictive {
		// Capped by the work in sight: say so in the target's terms.
		d.Reason += fmt.Sprintf(" (the work in sight needs %d: %s)", need, a.targetText())
	}
	a.becomeScaleOut(now, n, d.Reason)
}

// scaleIn empties nodes when every guard allows it.
func (a *Autoscaler) scaleIn(now time.Time, s GroupSnapshot, d *Decision) {
	head := fmt.Sprintf("%s ≤ %d%%", a.usageText(), a.cfg.InThresholdPercent)
	if len(s.Nodes) <= a.cfg.MinHosts {
		d.Reason = fmt.Sprintf("%s but %d %s ≤ min hosts %d", head, len(s.Nodes), plural(len(s.Nodes), "node"), a.cfg.MinHosts)
		return
	}
	if !a.leftScaleOut.IsZero() {
		if since, delay := now.Sub(a.leftScaleOut), a.inDelay(); since < delay {
			d.Reason = fmt.Sprintf("%s but only %ss since scale-out (delay %ss)",
				head, secs(since), secs(delay))
			return
		}
	}
	if why := a.tooSoonLow(now); why != "" {
		d.Reason = fmt.Sprintf("%s but %s", head, why)
		return
	}
	nodes, why := a.chooseNodes(now, s, false)
	if len(nodes) == 0 {
		d.Reason = fmt.Sprintf("%s but %s", head, why)
		return
	}
	d.DrainNodes = nodes
	if a.cfg.WaitDAGFinished {
		d.WaitForDAGs = slices.Clone(s.ActiveDAGs)
	}
	d.Reason = fmt.Sprintf("%s, %d %s > min hosts %d, draining %d %s: %s", head, len(s.Nodes),
		plural(len(s.Nodes), "node"), a.cfg.MinHosts, len(nodes), plural(len(nodes), "node"), strings.Join(nodes, ", "))
	a.becomeScaleIn(now, d.Reason)
}

// becomeStable, becomeScaleOut and becomeScaleIn are the only writers of
// a.state, so every transition is recorded with its reason.
func (a *Autoscaler) becomeStable(now time.Time, reason string) {
	if a.state == StateScaleOut {
		a.leftScaleOut = now
	}
	a.record(now, StateStable, reason)
	a.state = StateStable
	a.requested = 0
}

func (a *Autoscaler) becomeScaleOut(now time.Time, requested int, reason string) {
	a.record(now, StateScaleOut, reason)
	a.state = StateScaleOut
	a.requested = requested
}

func (a *Autoscaler) becomeScaleIn(now time.Time, reason string) {
	a.record(now, StateScaleIn, reason)
	a.state = StateScaleIn
}

func (a *Autoscaler) record(now time.Time, to State, reason string) {
	a.since = now
	a.history = append(a.history, Transition{At: now, From: a.state, To: to, Reason: reason})
	if len(a.history) > maxHistory {
		a.history = slices.Delete(a.history, 0, len(a.history)-maxHistory)
	}
}

// usageText is the usage as reasons quote it.
func (a *Autoscaler) usageText() string {
	if !a.usageOK {
		return "usage unknown"
	}
	return "usage " + percentText(a.usage) + "%"
}

// percentText writes whole percentages without decimals and others with
// one, so that a reason never says "80% < 80%".
func percentText(p float64) string {
	if p == float64(int64(p)) {
		return strconv.FormatInt(int64(p), 10)
	}
	return strconv.FormatFloat(p, 'f', 1, 64)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
