// Package cloud owns the sim's virtual cloud as plain data: the node types
// it offers, how long a node takes to come up, when an idle node is given
// back, how nodes are billed, and how many may exist at once. It has no
// clock: every call takes the virtual time `now`, so the event loop that
// drives it decides what time it is and tests can compute every figure by
// hand.
//
// Billing starts when a node is requested (clouds bill from launch, not
// from when the node joins the cluster) and ends when it is released. With
// BillingPeriod 0 a node pays per started second (at least MinBilled);
// with a period, e.g. 3600 s, every started period is paid in full.
// NodeSeconds counts the same span, unrounded.
//
// It imports no other ebb package.
package cloud
