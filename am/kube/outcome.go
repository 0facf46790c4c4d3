package kube

// The AM pod's container ends with status 0 whenever the AM ran to its
// end, whether its DAG succeeded or not: under restartPolicy OnFailure a
// non-zero status restarts the container, and a restarted AM finds its
// DAG ended in the recovery log and ends the same way again, for ever. A
// non-zero status is kept for an AM that did not finish (killed, crashed,
// failed to start), which the restart is for. How the DAG ended is
// written on the AM's pod, where `ebb submit` reads it.
const (
	// AnnotationOutcome is OutcomeSucceeded or OutcomeFailed once the
	// AM pod's DAG has ended.
	AnnotationOutcome = "ebb.io/outcome"
	OutcomeSucceeded  = "succeeded"
	OutcomeFailed     = "failed"
)
