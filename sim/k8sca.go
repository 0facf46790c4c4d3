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
	for _, n := range w.nodes {
		if n.removed || !n.ready {
			continue
		}
		if float64(n.reservedMB)/float64(w.e.cfg.nodeMB()) >= k8sUtilThreshold {
			n.unneeded = time.Time{}
			continue
		}
		if n.unneeded.IsZero() {
			n.unneeded = now
		}
		if now.Sub(n.unneeded) < k8sUnneededTime {
			continue
		}
		if len(n.workers) == 0 {
			w.remove(now, n)
			continue
		}
		if isIdle, known := idle[n.id]; known && !isIdle {
			continue // a worker there runs an attempt or holds an output
		}
		if !n.draining {
			n.draining = true
			w.e.core.DrainNode(now, n.id, "k8s-ca: under 50% requested for 10 min", false)
		}
	}
}
