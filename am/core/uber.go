package core

import (
	"fmt"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// Small DAGs in the AM's container, as MapReduce's uber mode
// (mapreduce.job.ubertask.*) and Tez's local mode: a DAG below the
// thresholds of UberOptions runs on one worker process inside the AM's own
// container (the in-AM worker), which costs no ResourceManager ask and no
// container start. The Core decides here whether a DAG qualifies and when
// the in-AM worker starts (StartAMWorker); the executor starts the process.
// The in-AM worker then registers, runs attempts, serves its outputs and
// commits like any worker: only the world never counts it (WantWorkers'
// Total leaves it out), since no container of the RM holds it.
//
// A group whose every unfinished DAG runs uber asks the world for no
// worker: its attempts wait for the in-AM worker. Should that worker fail
// to start or be lost, its DAGs stop being uber and the group asks the
// world as usual, so a DAG never waits on a worker that will not come.

// UberOptions are the ebb.am.uber.* keys.
type UberOptions struct {
	// Enabled: small DAGs run in the AM's container (ebb.am.uber.enabled).
	Enabled bool
	// MaxTasks: a DAG of more tasks (all vertices) is not small
	// (ebb.am.uber.max.tasks).
	MaxTasks int
	// MaxInputBytes: a DAG whose input splits hold more is not small
	// (ebb.am.uber.max.input.mb).
	MaxInputBytes int64
	// MemoryMB is the in-AM worker's memory (ebb.am.uber.memory.mb), which
	// the AM's container holds on top of its own; a DAG with a task larger
	// than this is not small.
	MemoryMB int64
}

// UberQualifies is the rule: whether a DAG with these splits runs in the
// AM's container under o, and if not, why not (for the log).
func UberQualifies(o UberOptions, spec *dag.Spec, splits map[string][][]Split) (bool, string) {
	if !o.Enabled {
		return false, "ebb.am.uber.enabled is false"
	}
	tasks := 0
	for _, v := range spec.Vertices {
		tasks += v.Parallelism
		if v.MemoryMB > o.MemoryMB {
			return false, fmt.Sprintf("vertex %s's tasks ask %d MB, more than ebb.am.uber.memory.mb=%d", v.Name, v.MemoryMB, o.MemoryMB)
		}
	}
	if tasks > o.MaxTasks {
		return false, fmt.Sprintf("%d tasks, more than ebb.am.uber.max.tasks=%d", tasks, o.MaxTasks)
	}
	if len(spec.Group.Resources) > 0 {
		// The AM's container has none of the group's other resource types.
		return false, fmt.Sprintf("container group %s asks resource types (%v) the AM's container does not hold", spec.Group.Name, spec.Group.Resources)
	}
	var bytes int64
	for _, tasks := range splits {
		for _, ss := range tasks {
			for _, s := range ss {
				bytes += s.Length
			}
		}
	}
	if bytes > o.MaxInputBytes {
		return false, fmt.Sprintf("%d input bytes, more than ebb.am.uber.max.input.mb=%d MB", bytes, o.MaxInputBytes>>20)
	}
	return true, ""
}

// StartAMWorker asks the executor to start the in-AM worker: an `ebb
// worker` process in the AM's own container that registers as Worker in
// Group, offering MemoryMB. Its exit (or a failure to start) comes back as
// WorkerGone for Worker.
type StartAMWorker struct {
	Worker   string
	Group    GroupInfo
	MemoryMB int64
}

func (a StartAMWorker) carryOut(now time.Time, x Executor) { x.StartAMWorker(now, a) }

// amWorker is the Core's in-AM worker: at most one at a time, since the
// AM's container holds memory for one.
type amWorker struct {
	id    string
	group *group
	seq   int
	// w is the registered worker (nil while it starts, since started).
	w       *workerRun
	started time.Time
}

// isAMWorker says whether id is the in-AM worker (starting or registered).
func (c *Core) isAMWorker(id string) bool { return c.amw.id != "" && c.amw.id == id }

// considerUber marks d uber when it qualifies and the in-AM worker is free
// for its group, starting that worker if none runs.
func (c *Core) considerUber(d *dagRun) {
	ok, why := UberQualifies(c.opts.Uber, d.spec, d.sub.Splits)
	if !ok {
		if c.opts.Uber.Enabled {
			c.logf("DAG %s (%s) runs in worker containers: %s", d.id, d.spec.Name, why)
		}
		return
	}
	if c.amw.w != nil && c.amw.w.stopping {
		c.logf("DAG %s (%s) runs in worker containers: the in-AM worker is stopping", d.id, d.spec.Name)
		return
	}
	// By name: a group no DAG used may have been replaced by one of the
	// same name (groupFor) while the in-AM worker started.
	if c.amw.id != "" && c.amw.group.info.Name != d.group.info.Name {
		c.logf("DAG %s (%s) runs in worker containers: the in-AM worker serves group %s", d.id, d.spec.Name, c.amw.group.info.Name)
		return
	}
	d.uber = true
	start := c.amw.id == ""
	if start {
		c.amw.seq++
		c.amw.id = fmt.Sprintf("%samworker_%02d", c.opts.IDPrefix, c.amw.seq)
		c.amw.group = d.group
		c.amw.started = c.now
	}
	c.logf("DAG %s (%s) runs in the AM's container (uber), on worker %s", d.id, d.spec.Name, c.amw.id)
	if start {
		c.emit(StartAMWorker{Worker: c.amw.id, Group: d.group.info, MemoryMB: c.opts.Uber.MemoryMB})
	}
}

// uberOnly says whether every unfinished DAG of g runs uber: then g asks
// the world for no worker of its own.
func (g *group) uberOnly() bool {
	if len(g.owners) == 0 {
		return false
	}
	for d := range g.owners {
		if !d.uber {
			return false
		}
	}
	return true
}

// amWorkerRegistered notes the in-AM worker's registration in g.
func (c *Core) amWorkerRegistered(w *workerRun) {
	c.amw.w, c.amw.group = w, w.group
}

// amWorkersIn counts the in-AM worker among g's live workers: the world
// holds no container for it, so WantWorkers' Total leaves it out.
func (c *Core) amWorkersIn(g *group) int {
	if w := c.amw.w; w != nil && w.group == g && !w.draining {
		return 1
	}
	return 0
}

// amWorkerGone forgets the in-AM worker (it exited, was lost, or never
// started): the DAGs that waited for it ask the world for workers.
func (c *Core) amWorkerGone(reason string) {
	c.amw = amWorker{seq: c.amw.seq}
	for _, d := range c.active {
		if d.uber {
			d.uber = false
			c.warnf("DAG %s (%s) leaves the AM's container (%s): it runs in worker containers", d.id, d.spec.Name, reason)
		}
	}
}

// checkAMWorkerStart gives up an in-AM worker that has not registered
// within the worker timeout (mr3.heartbeat.container.timeout.ms, as for a
// registered worker that falls silent): its process is stopped and its
// DAGs run in worker containers rather than wait for ever.
func (c *Core) checkAMWorkerStart() {
	if c.amw.id == "" || c.amw.w != nil || c.now.Sub(c.amw.started) < c.opts.WorkerTimeout {
		return
	}
	id := c.amw.id
	c.emit(StopWorker{Worker: id, Reason: fmt.Sprintf("the in-AM worker did not register within %s", c.opts.WorkerTimeout)})
	c.amWorkerGone(fmt.Sprintf("worker %s did not register within %s", id, c.opts.WorkerTimeout))
}
