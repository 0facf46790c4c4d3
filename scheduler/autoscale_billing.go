package scheduler

import "time"

// Billing-aware node handling (ebb.billing.period.secs > 0), after
// Qubole's 2012 design: a node's current billing period is already paid,
// so giving the node back early saves nothing, while keeping it makes its
// capacity free until the period ends. A node is therefore kept until
// near the end of its paid period and removed then only if the work in
// sight does not need it.

// KeepEmptyNode says whether an empty node, paid until paidUntil, should
// be kept at now. It goes only when its period ends within margin (the
// caller's step, so that one step is sure to see it before it renews) and
// neither queued nor predicted work needs it (needed); otherwise it stays,
// and a node kept past its boundary is paid for one more period. An
// unknown paid period (zero) keeps nothing: the node is billed per second
// or its owner cannot say, and the caller's own idle rule applies.
func KeepEmptyNode(now, paidUntil time.Time, margin time.Duration, needed bool) bool {
	if paidUntil.IsZero() {
		return false
	}
	if paidUntil.Sub(now) > margin {
		return true
	}
	return needed
}

// nearBoundary says whether a node paid until paidUntil is close enough
// to the end of its period at now to be worth emptying: within margin for
// an idle node (it empties at once), within margin plus drain for a busy
// one (its attempts must end first). A node far from its boundary is
// never drained: its hour is paid, and draining it would only leave paid
// capacity unused.
func nearBoundary(now, paidUntil time.Time, busy bool, margin, drain time.Duration) bool {
	left := max(paidUntil.Sub(now), 0)
	if busy {
		return left <= margin+drain
	}
	return left <= margin
}
