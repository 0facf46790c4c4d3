package kubeworld

// Adopted lists the running worker pods the first list of the pod watch
// found (Start has returned): an earlier run of the AM's container made
// them, and their workers come back to this one (they rejoin in place),
// holding the outputs and running the attempts the recovery log names.
// The AM's recovery waits for them (core.RecoverOptions.Expect) before it
// queues anything again, as it waits on YARN for the containers an
// earlier attempt kept.
func (w *World) Adopted() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.book.Running()
}
