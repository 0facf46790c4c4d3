package am

import (
	"context"
	"fmt"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// A superseded AM attempt: the cluster may replace an AM attempt it has
// not heard from (YARN's RM expires it after
// yarn.am.liveness-monitor.expiry-interval-ms and starts the next, which
// recovers the DAGs from the recovery log and finishes them). If the old
// attempt was only stopped (SIGSTOP, a frozen VM) and wakes up, it must
// neither promote an output (the next attempt does) nor remove a staged
// one (the next attempt's recovered tasks have their files there), nor
// record a DAG's end. So before each promotion the AM asks its world to
// confirm that it is still the current attempt, within the bound
// (Options.ConfirmWithin); unconfirmed, it settles nothing and stops.

// AttemptConfirmer is a World whose AM attempt can be superseded.
type AttemptConfirmer interface {
	// ConfirmCurrent returns nil once a round trip to the cluster begun
	// after the call showed this attempt current; an error otherwise.
	ConfirmCurrent(ctx context.Context) error
	// Superseded says why the attempt is no longer current ("" while it is).
	Superseded() string
}

// mayCommit confirms, for a DAG about to be promoted, that this AM
// attempt is still the current one. An error is why it is not, or why
// that is not known within the bound: the AM then stops as superseded.
func (a *AM) mayCommit(dag string) error {
	c, ok := a.loop.world.(AttemptConfirmer)
	if !ok {
		return nil
	}
	bound := a.opts.ConfirmWithin
	if bound <= 0 {
		bound = 10 * time.Minute // yarn.am.liveness-monitor.expiry-interval-ms's default
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	start := time.Now()
	err := c.ConfirmCurrent(ctx)
	if err == nil {
		return nil
	}
	err = fmt.Errorf("DAG %s: not committing its output, which stays staged for the next AM attempt: %w (confirming this attempt with the cluster, bound %s, waited %s)",
		dag, err, bound, time.Since(start).Round(time.Millisecond))
	a.supersede(err.Error())
	return err
}

// supersede stops this AM attempt for good as replaced: from now on it
// settles no output (superseded says so).
func (a *AM) supersede(reason string) {
	a.loop.superseded.CompareAndSwap(nil, &reason)
	a.log.Errorf("superseded: %s", reason)
	a.Stop("superseded: " + reason)
}

// supersededBy says why this attempt may no longer settle outputs: it
// found itself superseded, or its world did ("" = neither).
func (a *AM) supersededBy() string { return a.loop.supersededBy() }

// supersededBy is the loop's view: the AM found its attempt superseded,
// or the world did ("" = neither).
func (l *Loop) supersededBy() string {
	if r := l.superseded.Load(); r != nil {
		return *r
	}
	if c, ok := l.world.(AttemptConfirmer); ok {
		return c.Superseded()
	}
	return ""
}

// settleUnlessSuperseded settles a DAG's output (settleOutput) unless
// this attempt is superseded; false when it left the output staged.
func (a *AM) settleUnlessSuperseded(s core.DAGStatus, plan outputPlan) (core.DAGStatus, bool) {
	if s.State == core.DAGSucceeded {
		if err := a.mayCommit(s.ID); err != nil {
			return s, false
		}
	} else if r := a.supersededBy(); r != "" {
		a.log.Warnf("DAG %s ended %s, but this AM attempt is superseded (%s): its staged output stays for the next attempt", s.ID, s.State, r)
		return s, false
	}
	return a.settleOutput(s, plan), true
}
