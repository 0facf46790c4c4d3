package sim

import (
	"time"
)

// The k8s-ca node scaler, after the Kubernetes cluster-autoscaler's
// documented scale-down rules: a node whose requested memory is below 50%
// of its capacity is "unneeded"; after 10 minutes unneeded, and not within
// 10 minutes of any scale-up, it is removed, provided nothing on it holds
// local data (here: no worker runs an attempt or holds an output). Scale-up
// is what every policy does: a worker that fits nowhere gets a new node.
const (
	k8sUtilThreshold = 0.5
	k8sUnneededTime  = 10 * time.Minute
	k8sDelayAfterAdd = 10 * time.Minute
)

func (w *world) k8sScaleDown(now time.Time) {
	if now.Sub(w.e.lastProvision) < k8sDelayAfterAdd {
		return
	}
	idle := map[string]bool{}
	for _, s := range w.e.core.Nodes() {
		idle[s.ID] = s.Idle
	}
	for _, n := range w.m.Nodes() {
		if !n.Ready {
			continue
		}
		if float64(n.UsedMB)/float64(n.MemoryMB) >= k8sUtilThreshold {
			delete(w.unneeded, n.ID)
			continue
		}
		since, ok := w.unneeded[n.ID]
		if !ok {
			since = now
			w.unneeded[n.ID] = now
		}
		if now.Sub(since) < k8sUnneededTime {
			continue
		}
		if len(n.Workers) == 0 {
			evs, _ := w.m.Remove(now, n.ID) // empty and known: it cannot fail
			w.apply(now, evs)
			delete(w.unneeded, n.ID)
			continue
		}
		if isIdle, known := idle[n.ID]; known && !isIdle {
			continue // a worker there runs an attempt or holds an output
		}
		if !n.Draining {
			w.m.Drain(n.ID)
			w.e.core.DrainNode(now, n.ID, "k8s-ca: under 50% requested for 10 min", false)
		}
	}
}
