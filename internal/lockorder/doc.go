// Package lockorder is a lock-order checker for tests: Mutex and RWMutex
// are sync's mutexes that, built with the tag lockorder, record for every
// goroutine which locks it holds when it takes another ("held A while
// taking B"), keep these edges in one graph for the whole process, and
// report a cycle in it (an order inversion, with the stacks of both
// orders) the moment the closing edge appears, whether or not the
// goroutines involved ever actually deadlock. The race detector cannot see
// an inversion; this can, from one run that takes the locks both ways.
//
// Without the tag the types are sync's, embedded, and SetClass is an empty
// method: production code pays nothing. scripts/test.sh runs the packages
// that use it (worker, am) with -tags lockorder, and their TestMain fails
// the run when Verify reports a violation.
//
// Locks are grouped into classes, as Linux's lockdep does: every attempt's
// mutex is one class, "worker.attempt", so an inversion between the
// worker's mutex and any attempt's is found even when the two orders were
// taken on different attempts. A mutex whose class is never set is a class
// of its own. Holding two locks of one class at once is reported too: it is
// an inversion waiting for two goroutines to pick them in opposite order.
package lockorder
