package am

import "github.com/ebb-am/ebb/am/core"

// Fault injection for crash tests (ebb.fault.am.hold.at): the loop of the
// application's first AM attempt stops for good at one named step of a
// protocol with a worker, so that a test can kill -9 the AM exactly
// there and check what the next attempt makes of it. Holding the loop
// goroutine stops the whole AM at once: no event reaches the Core, no
// action goes out and the recovery log hears of nothing more, which is
// what a kill -9 at that instant leaves. Later attempts never hold (the
// caller leaves HoldAt empty), or recovery would stop too.
const (
	// HoldAMWorkerStarted: right after the in-AM worker's process was
	// started, before its registration reaches the Core.
	HoldAMWorkerStarted = "amworker-started"
	// HoldCommitGranted: right after the first CommitGranted was sent,
	// before anything more of that attempt reaches the Core.
	HoldCommitGranted = "commit-granted"
	// HoldCommitReported: when the first attempt granted its commit says
	// it succeeded (its files are committed), before the Core hears it.
	HoldCommitReported = "commit-reported"
)

// faultHold is a Loop's hold point; touched on the loop goroutine only.
type faultHold struct {
	at      string
	granted string // the first attempt granted its commit
	// stop is what holding does: block for good (a test of the loop
	// replaces it to see the hold reached).
	stop func()
}

func newFaultHold(at string) *faultHold {
	return &faultHold{at: at, stop: func() { select {} }}
}

// hold stops the loop when step is the hold point.
func (l *Loop) hold(step, what string) {
	h := l.fault
	if h == nil || h.at != step {
		return
	}
	h.at = "" // once
	l.log.Warnf("AM held at %s (%s; ebb.fault.am.hold.at): this AM attempt stops here until it is killed", step, what)
	h.stop()
}

// granted notes a CommitGranted sent (and holds at HoldCommitGranted).
func (l *Loop) granted(attempt string) {
	if h := l.fault; h != nil && h.granted == "" {
		h.granted = attempt
		l.hold(HoldCommitGranted, "commit granted to attempt "+attempt)
	}
}

// holdReported holds at HoldCommitReported when ev is the success of the
// first attempt granted its commit.
func (l *Loop) holdReported(ev core.Event) {
	h := l.fault
	if h == nil || h.granted == "" {
		return
	}
	if e, ok := ev.(core.AttemptUpdated); ok && e.Update.AttemptID == h.granted && e.Update.Result == core.AttemptSucceeded {
		l.hold(HoldCommitReported, "attempt "+h.granted+" reported its commit done")
	}
}
