package core

import "time"

// Executor carries out the Core's actions in one world: the AM's Loop
// (local and yarn worlds), the simulator's engine, and the tests' recording
// fake. It has one method per action, and every action calls its own
// method (Action.carryOut), so a world that forgets an action, or a new
// action no world handles yet, is a compile error rather than a silent drop.
//
// The simulator's methods feed events back into the Core (a virtual worker
// registers, a virtual task ends): Drain picks up the actions those events
// cause in the same call, for at most maxDrainRounds rounds. The AM's loop
// feeds nothing back mid-Drain: its executor queues what it learns (an
// attempt that could not be delivered) as an event for a later round.
type Executor interface {
	WantWorkers(now time.Time, a WantWorkers)
	RunAttempt(now time.Time, a RunAttempt)
	KillAttempt(now time.Time, a KillAttempt)
	GrantCommit(now time.Time, a GrantCommit)
	StopWorker(now time.Time, a StopWorker)
	MoveWorker(now time.Time, a MoveWorker)
	DAGEnded(now time.Time, a DAGEnded)
	Log(now time.Time, a Log)
	AttemptInputs(now time.Time, a AttemptInputs)
	StartAMWorker(now time.Time, a StartAMWorker)
}

// maxDrainRounds bounds Drain against a world and a Core that keep causing
// each other's actions forever; what is left stays pending for the next
// Drain. No run has needed more than a handful of rounds.
const maxDrainRounds = 100

// Drain hands every pending action to x in the order the Core emitted
// them, then the actions that carrying them out caused, until none are
// left. It is the only way actions leave the Core.
func (c *Core) Drain(now time.Time, x Executor) {
	for round := 0; round < maxDrainRounds; round++ {
		acts := c.actions
		if len(acts) == 0 {
			return
		}
		c.actions = nil
		for _, a := range acts {
			c.observe(now, a)
			a.carryOut(now, x)
		}
	}
}

// Pending reports whether actions wait to be drained.
func (c *Core) Pending() bool { return len(c.actions) > 0 }
