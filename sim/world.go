package sim

import (
	"errors"
	"fmt"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/cluster"
	"github.com/ebb-am/ebb/packing"
)

// world is the virtual cloud as the AM core's World: the cluster model
// (placement, provisioning, reclaiming empty nodes) with the sim's clock
// on top. Every event the model returns is scheduled on the virtual clock
// at the moment the model returns it, so runs replay exactly.
type world struct {
	e      *engine
	m      *cluster.Model
	groups map[string]core.GroupInfo
	// unneeded: since when a node has been under-requested (k8s-ca).
	unneeded map[string]time.Time
	// ca: the cluster autoscaler's memory (ebb-k8s-ca).
	ca *caState
}

// cloudNodes rents the model's nodes from the virtual cloud, which bills
// them.
type cloudNodes struct{ e *engine }

var _ cluster.Provider = cloudNodes{}

func (c cloudNodes) Provision(now time.Time) (string, time.Time, error) {
	id, readyAt, err := c.e.cloud.Provision(now, "")
	if err == nil {
		c.e.lastProvision = now
	}
	return id, readyAt, err
}

func (c cloudNodes) Release(now time.Time, id string) error { return c.e.cloud.Release(now, id) }

func newWorld(e *engine, alloc packing.Allocator) (*world, error) {
	m, err := cluster.New(cluster.Options{
		NodeMB: e.cfg.nodeMB(), NodeVCores: e.cfg.Cloud.Types[0].VCores, MaxNodes: e.cfg.Cloud.MaxNodes,
		ReclaimDelay: e.cfg.Cloud.ReclaimDelay,
		// A static cluster keeps its nodes; under a node scaler (k8s-ca,
		// ca) it removes nodes itself. Billing-aware runs keep them until
		// near their paid period's end.
		KeepNodes: e.policy.Static > 0 || e.policy.NodeScaler != "" || e.billingAware(),
		// The core asks for workers only when a group's total changes, so
		// at the cap (a static cluster, --max-nodes) a worker with no room
		// waits here for one: without the queue the core counts it as
		// pending for ever and its group never runs (a 20 GiB group beside
		// a full cluster of 16 GiB workers, which all left later).
		QueueUnplaced: true,
		Allocator:     alloc, WorkerID: func(seq int) string { return fmt.Sprintf("vw%06d", seq) },
	}, cloudNodes{e})
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", e.policy.Name, err)
	}
	return &world{e: e, m: m, groups: map[string]core.GroupInfo{}, unneeded: map[string]time.Time{}, ca: newCAState()}, nil
}

// addNode adds a node that is up at once (a static cluster's). The cap is
// the static size, so a failure is a bug: the run stops with it.
func (w *world) addNode(now time.Time) {
	if _, err := w.m.AddReadyNode(now); err != nil && w.e.err == nil {
		w.e.err = fmt.Errorf("policy %s: a static node: %w", w.e.policy.Name, err)
	}
}

func (w *world) liveNodes() int { return w.m.Live() }

// nodeOf is the node a worker is placed on ("" if none).
func (w *world) nodeOf(worker string) string {
	x, _ := w.m.Worker(worker)
	return x.Node
}

// apply schedules what the model asks for on the virtual clock.
func (w *world) apply(now time.Time, evs []cluster.Event) {
	for _, ev := range evs {
		id := ev.Node
		switch ev.Kind {
		case cluster.NodeRequested:
			if ev.At.After(now) {
				w.e.clk.at(ev.At, func(t time.Time) { w.apply(t, w.m.NodeReady(t, id)) })
			}
		case cluster.StartWorker:
			w.startWorker(ev.Worker)
		case cluster.NodeEmpty:
			w.e.clk.at(ev.At, func(t time.Time) {
				evs, _ := w.m.Reclaim(t, id) // the cloud knows every node the model has
				w.apply(t, evs)
			})
		}
	}
}

// WantWorkers moves a group toward a.Total workers. The model still
// counts the workers on a.Draining's nodes, which the core counts out:
// counting them out (as the yarn and kube worlds do) moves the published
// figures, so it waits for a new measurement of them.
func (w *world) WantWorkers(now time.Time, a core.WantWorkers) {
	g := a.Group
	w.groups[g.Name] = g
	evs, err := w.m.Want(now, cluster.Group{Name: g.Name, MemoryMB: g.MemoryMB, VCores: g.VCores}, a.Total, a.Avoid)
	w.apply(now, evs)
	var big *cluster.TooBigError
	if errors.As(err, &big) && w.e.err == nil {
		w.e.err = fmt.Errorf("policy %s: group %s asks for %d MB workers, more than a %d MB node holds (raise --node-memory-mb or lower --worker-memory-mb)",
			w.e.policy.Name, big.Group, big.WorkerMB, big.NodeMB)
	}
}

// startWorker registers a worker with the core after the container start
// delay.
func (w *world) startWorker(id string) {
	w.e.clk.after(w.e.cfg.WorkerStartDelay, func(t time.Time) {
		x, ok := w.m.Worker(id)
		if !ok || x.Stopped {
			return
		}
		err := w.e.core.WorkerRegistered(t, core.WorkerInfo{ID: id, Group: x.Group, Node: x.Node,
			NodeMB: w.e.cfg.nodeMB(), MemoryMB: x.MemoryMB, VCores: x.VCores, Address: id})
		if err != nil {
			w.m.Stop(id)
			w.apply(t, w.m.Gone(t, id))
		}
		w.e.dispatch(t)
	})
}

// WorkerStopped: the core stopped a worker; in the virtual cloud it exits at once.
func (w *world) WorkerStopped(now time.Time, id string) {
	if !w.m.Stop(id) {
		return
	}
	w.e.clk.at(now, func(t time.Time) {
		w.e.core.WorkerLost(t, id, "stopped")
		w.apply(t, w.m.Gone(t, id))
		w.e.dispatch(t)
	})
}

func (w *world) WorkerMoved(now time.Time, id string, g core.GroupInfo) {
	if w.m.Move(id, g.Name) {
		w.groups[g.Name] = g
	}
}

func (w *world) Tick(now time.Time) {
	switch {
	case w.e.policy.NodeScaler == "k8s-ca":
		w.k8sScaleDown(now)
	case w.e.policy.NodeScaler == "ca":
		w.caScaleDown(now)
	case w.e.policy.Static == 0 && w.e.billingAware():
		w.billingRelease(now)
	}
}
