// Package scheduler owns ebb's decisions about work and workers: which
// TaskAttempt runs next and where (FIFO, fair, and resource-aware with
// completion-time goals), the ContainerScheduler that recycles workers
// between the ContainerGroups of one ContainerKind, and the autoscaler
// that sizes each ContainerGroup.
//
// Everything here is policy: pure functions and small state machines that
// take a snapshot and the time `now` and return decisions. Nothing reads a
// clock, sleeps or does IO, and nothing imports the config library; the AM
// passes plain, typed values and carries out what comes back.
//
// # Task order
//
// A TaskOrder (ebb.scheduler.scheme) decides which DAG's queued attempt
// starts next in a ContainerGroup: fifo (priority, then submission), fair
// (fewest running attempts first) or ras (resource-aware with completion-
// time goals, enforcing the RASPlan made every control cycle). The orders
// are looked up by name in one literal registry (NewTaskOrder), which
// refuses an unknown name with the key and the names it knows. An order
// chooses the attempt, never the node: the AM gives the attempt to the
// packing allocator, which picks among the nodes where it fits (for ras,
// those where its profile fits too and the plan has a slot of its DAG
// free), so ebb.packing.scheme holds under every order.
//
// # ContainerGroups and kinds
//
// MergeGroup is the one rule for a DAG naming a group already in use:
// identical properties share the group, anything else is a
// *GroupConflictError. KindKey says which groups may swap workers.
//
// # Autoscaler
//
// One Autoscaler per ContainerGroup. Every sampling interval the AM calls
// Sample with the group's memory figures and then Step with a
// GroupSnapshot; Step returns a Decision (request workers, cancel pending
// requests, drain nodes). Usage is the memory of running attempts over the
// memory the group's workers offer, combined over a window by average or
// maximum (see window.go for the samples that do not count).
//
//	              (a)
//	         ┌──────────────────────────────────────────────┐
//	         │                                              ▼
//	     ┌────────┐                (b)                ┌───────────┐
//	────►│ STABLE │◄──────────────────────────────────│ SCALE_OUT │
//	     └────────┘                                   └───────────┘
//	       │    ▲
//	   (c) │    │ (d)
//	       ▼    │
//	     ┌──────────┐
//	     │ SCALE_IN │
//	     └──────────┘
//
//	(a) usage ≥ out% and attempts queued, or no worker and attempts
//	    queued: request workers
//	(b) every requested worker launched, or the out grace period passed:
//	    then cancel the requests still pending
//	(c) usage ≤ in%, workers > 0, nodes > min hosts, and the delay after
//	    leaving SCALE_OUT passed: drain nodes
//	(d) the group has no worker left, or the in grace period passed
//
// Scale-out counts workers, scale-in counts nodes. SCALE_IN requests no
// worker until it ends; a group that comes back to STABLE with no worker
// and attempts queued takes (a) in the same step, since nothing else
// would ever run them. Only becomeStable, becomeScaleOut and
// becomeScaleIn change the state, and each records the transition with
// its reason in a bounded history.
package scheduler
