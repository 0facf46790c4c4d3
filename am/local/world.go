// Package local is the embedded default world: a cluster of virtual nodes
// on this machine (count, memory, vcores, a provisioning delay, a cap) whose
// workers are real `ebb worker` processes. Nodes are added when a group
// wants workers and no node has room, and removed when they have been empty
// for a while, so autoscaling and packing can be watched without Hadoop.
// The bookkeeping of nodes and placement is package cluster's model, the
// same one the sim's virtual cloud uses; this package turns its events into
// processes and log lines.
package local

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/cluster"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/packing"
)

// Options configure the local world (the ebb.local.* keys).
type Options struct {
	Nodes      int   // virtual nodes present at start
	MaxNodes   int   // the cap
	NodeMB     int64 // memory per node
	NodeVCores int   // vcores per node
	// NodeTypes: every node's other resource types (yarn.io/gpu: 1,
	// ebb.local.node.resources); workers asking for them go only where
	// enough are free.
	NodeTypes      map[string]int64
	ProvisionDelay time.Duration // how long a new node takes
	IdleNodeTime   time.Duration // an empty node is removed after this
	// Executable is the ebb binary that runs `ebb worker`.
	Executable string
	// AMAddress and Secret are what workers connect with.
	AMAddress string
	Secret    string
	// Env is added to every worker's environment.
	Env map[string]string
	// Root holds every worker's working and log directories.
	Root string
	// LogRollKB and LogRollCount roll each worker's worker.log, as on
	// YARN (ebb.log.roll.size.kb, ebb.log.roll.count; 0 KB: never).
	LogRollKB    int64
	LogRollCount int
	// Allocator chooses the node for a new worker (packing's second level).
	Allocator packing.Allocator
	Log       *logrus.Logger
	// Events is where the world's reports go (the AM's loop).
	Events am.Sender
}

// World is the local cluster: the cluster model, whose StartWorker events
// become `ebb worker` processes. Its methods run on the AM loop's goroutine.
type World struct {
	o      Options
	m      *cluster.Model
	groups map[string]core.GroupInfo
	procs  map[string]*exec.Cmd // started worker processes
	starts struct{ processes, moved int }
}

var (
	_ am.World         = (*World)(nil)
	_ am.SpecChecker   = (*World)(nil)
	_ cluster.Provider = (*localNodes)(nil)
)

// localNodes names the virtual nodes local-node-01, -02, ... and makes
// them wait the provisioning delay; giving one back costs nothing.
type localNodes struct {
	delay time.Duration
	n     int
}

func (l *localNodes) Provision(now time.Time) (string, time.Time, error) {
	l.n++
	return fmt.Sprintf("local-node-%02d", l.n), now.Add(l.delay), nil
}

func (l *localNodes) Release(time.Time, string) error { return nil }

// New creates the world with its initial nodes, ready at once.
func New(o Options, now time.Time) (*World, error) {
	if o.NodeMB <= 0 || o.MaxNodes <= 0 {
		return nil, fmt.Errorf("local world: node memory and max nodes must be positive (ebb.local.node.memory.mb=%d, ebb.local.max.nodes=%d)", o.NodeMB, o.MaxNodes)
	}
	if o.Nodes > o.MaxNodes {
		return nil, fmt.Errorf("local world: ebb.local.nodes=%d is more than ebb.local.max.nodes=%d", o.Nodes, o.MaxNodes)
	}
	if o.Log == nil {
		o.Log = logrus.StandardLogger()
	}
	m, err := cluster.New(cluster.Options{
		NodeMB: o.NodeMB, NodeVCores: o.NodeVCores, NodeTypes: o.NodeTypes, MaxNodes: o.MaxNodes, ReclaimDelay: o.IdleNodeTime,
		// The core asks for workers only when its total changes, so a
		// worker with no room waits here for one.
		QueueUnplaced: true,
		Allocator:     o.Allocator, WorkerID: func(seq int) string { return fmt.Sprintf("worker-%04d", seq) },
	}, &localNodes{delay: o.ProvisionDelay})
	if err != nil {
		return nil, fmt.Errorf("local world: %w", err)
	}
	w := &World{o: o, m: m, groups: map[string]core.GroupInfo{}, procs: map[string]*exec.Cmd{}}
	for i := 0; i < o.Nodes; i++ {
		if _, err := m.AddReadyNode(now); err != nil {
			return nil, fmt.Errorf("local world: %w", err)
		}
	}
	return w, nil
}

// CheckSpec refuses a DAG, as it is submitted, whose group or vertex asks
// for more of a resource type than a local node has (am.SpecChecker).
func (w *World) CheckSpec(spec *dag.Spec) error {
	return spec.CheckResources(w.o.NodeTypes, "a local node (ebb.local.node.resources)")
}

// NodeMB reports a node's memory.
func (w *World) NodeMB(string) int64 { return w.o.NodeMB }

// WantWorkers starts or cancels workers of a group to reach a.Total. The
// model (shared with the simulator) still counts the workers on
// a.Draining's nodes, which the core counts out: a group all of whose
// workers drain gets no new one until they leave, which they do only
// once no running DAG needs their outputs. Counting them out moves the
// simulator's published figures, so it waits for their new measurement.
func (w *World) WantWorkers(now time.Time, a core.WantWorkers) {
	g := a.Group
	w.groups[g.Name] = g
	evs, err := w.m.Want(now, cluster.Group{Name: g.Name, MemoryMB: g.MemoryMB, VCores: g.VCores, Types: g.Resources}, a.Total, a.Avoid)
	if err != nil {
		var tb *cluster.TooBigError
		hint := "raise ebb.local.node.memory.mb"
		if errors.As(err, &tb) && tb.Type != "" {
			hint = "ebb.local.node.resources gives every node's"
		}
		reason := fmt.Sprintf("local world: %v (%s)", err, hint)
		w.o.Log.Error(reason)
		if errors.As(err, &tb) && w.o.Events != nil {
			// No node will ever hold these workers: the group's DAGs fail
			// rather than wait for ever. Posted from another goroutine, as
			// this runs on the loop's.
			go w.o.Events.Send(core.GroupRefused{Group: g.Name, Reason: reason})
		}
	}
	w.apply(now, evs)
}

// apply carries out what the model decided: start processes, and log
// the nodes coming and going.
func (w *World) apply(now time.Time, evs []cluster.Event) {
	for _, ev := range evs {
		switch ev.Kind {
		case cluster.StartWorker:
			w.start(now, ev.Worker)
		case cluster.NodeRequested:
			if ev.At.After(now) {
				w.o.Log.Infof("local world: provisioning node %s (ready in %s)", ev.Node, ev.At.Sub(now))
			}
		case cluster.NodeReady:
			w.o.Log.Infof("local world: node %s is ready", ev.Node)
		case cluster.NodeRemoved:
			w.o.Log.Infof("local world: removed node %s, empty for %s", ev.Node, w.o.IdleNodeTime)
		}
	}
}

func (w *World) start(now time.Time, id string) {
	p, ok := w.m.Worker(id)
	if !ok {
		return
	}
	g := w.groups[p.Group]
	dir := filepath.Join(w.o.Root, "workers", id)
	logDir := filepath.Join(w.o.Root, "logs", id)
	for _, d := range []string{dir, logDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			w.o.Log.Errorf("local world: %v", err)
		}
	}
	vcores := p.VCores
	if vcores <= 0 {
		vcores = 1
	}
	args := []string{"worker", "--am", w.o.AMAddress, "--worker-id", id, "--group", p.Group, "--node", p.Node,
		"--memory-mb", strconv.FormatInt(p.MemoryMB, 10), "--vcores", strconv.Itoa(vcores),
		"--work-dir", dir, "--log-dir", logDir, "--container-id", id,
		"--log-roll-kb", strconv.FormatInt(w.o.LogRollKB, 10), "--log-roll-count", strconv.Itoa(w.o.LogRollCount)}
	cmd := exec.Command(w.o.Executable, args...)
	cmd.Env = append(os.Environ(), "EBB_SECRET="+w.o.Secret)
	for k, v := range w.o.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, v := range g.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := os.Create(filepath.Join(logDir, "stderr"))
	if err == nil {
		cmd.Stdout, cmd.Stderr = out, out
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.o.Log.Errorf("local world: starting worker %s: %v", id, err)
		if out != nil {
			_ = out.Close() // nothing was written to it
		}
		// Its memory is free again; the core never saw it, and will
		// ask for it again when its total changes.
		w.m.Stop(id)
		w.apply(now, w.m.Gone(now, id))
		return
	}
	w.procs[id] = cmd
	w.starts.processes++
	w.o.Log.Infof("local world: started worker %s (group %s, %d MB) on %s, pid %d", id, p.Group, p.MemoryMB, p.Node, cmd.Process.Pid)
	go func() {
		err := cmd.Wait()
		if out != nil {
			_ = out.Close() // the worker has exited: its log is what it wrote
		}
		reason := "exited"
		if err != nil {
			reason = fmt.Sprintf("exited: %v", err)
		}
		// The loop hands the exit to WorkerExited before the Core hears.
		w.o.Events.Send(core.WorkerGone{Worker: id, Reason: reason, Exited: true})
	}()
}

var _ am.ExitWatcher = (*World)(nil)

// WorkerExited: a worker process is gone; its memory goes to waiting
// workers.
func (w *World) WorkerExited(now time.Time, id string) {
	delete(w.procs, id)
	if p, ok := w.m.Worker(id); ok && !p.Stopped {
		// A worker died on its own: the Core will ask again if it still
		// wants it, through WantWorkers; count it as gone now.
		w.o.Log.Warnf("local world: worker %s exited unexpectedly", id)
	}
	w.apply(now, w.m.Gone(now, id))
}

// WorkerStopped: the AM told the worker to exit; it is no longer wanted.
// Its memory stays taken until the process has exited.
func (w *World) WorkerStopped(now time.Time, id string) {
	// The Core follows every stop with a new WantWorkers total, so the
	// count of wanted workers is not changed here.
	w.m.Stop(id)
}

// KillWorker: the Core lost a worker to silence; its process may live on,
// wedged. SIGTERM ends it within its stop grace (ebb worker --stop-grace),
// its tasks with it; its memory is free once it has exited.
func (w *World) KillWorker(now time.Time, id string) {
	cmd, ok := w.procs[id]
	if !ok || cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		w.o.Log.Warnf("local world: stopping silent worker %s: %v", id, err)
	}
}

var _ am.WorkerKiller = (*World)(nil)

// WorkerMoved: the worker process now serves another group.
func (w *World) WorkerMoved(now time.Time, id string, g core.GroupInfo) {
	if w.m.Move(id, g.Name) {
		w.groups[g.Name] = g
	}
	w.starts.moved++
}

// Started counts worker processes started and workers moved between groups.
func (w *World) Started() (processes, moved int) { return w.starts.processes, w.starts.moved }

// Tick brings provisioned nodes up, removes nodes empty for too long, and
// places waiting workers.
func (w *World) Tick(now time.Time, _ core.Summary) {
	evs, err := w.m.Tick(now)
	if err != nil {
		w.o.Log.Warnf("local world: %v", err)
	}
	w.apply(now, evs)
}

// Close kills every worker process (their process groups). A worker
// already gone is not an error.
func (w *World) Close() error {
	var errs []error
	for id, cmd := range w.procs {
		if cmd.Process == nil {
			continue
		}
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			errs = append(errs, fmt.Errorf("local world: stopping worker %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// NodeInfo describes a node for tests and the CLI.
type NodeInfo struct {
	ID       string
	Ready    bool
	Draining bool
	UsedMB   int64
	Workers  []string
}

// Nodes lists the nodes (call on the loop goroutine, e.g. inside Loop.Do).
func (w *World) Nodes() []NodeInfo {
	var out []NodeInfo
	for _, n := range w.m.Nodes() {
		out = append(out, NodeInfo{ID: n.ID, Ready: n.Ready, Draining: n.Draining, UsedMB: n.UsedMB, Workers: n.Workers})
	}
	return out
}

// Wake is when the world next has something to do on time alone (a node
// comes up, an empty node goes); false when nothing is pending.
func (w *World) Wake() (time.Time, bool) { return w.m.Wake() }

// PID returns a started worker's process id (for tests that kill one).
func (w *World) PID(worker string) (int, bool) {
	cmd, ok := w.procs[worker]
	if !ok || cmd.Process == nil {
		return 0, false
	}
	return cmd.Process.Pid, true
}

var _ am.AMWorkerLauncher = (*World)(nil)

// AMNode is the node the in-AM worker of small DAGs names: the AM's own
// process, on no virtual node (it takes none of their memory).
const AMNode = "local-am"

// AMWorkerCommand is the in-AM worker of small DAGs (ebb.am.uber.enabled):
// an `ebb worker` child of the AM's process, outside the cluster model,
// its directories under the root beside the other workers'.
func (w *World) AMWorkerCommand(a core.StartAMWorker) (*exec.Cmd, error) {
	dir := filepath.Join(w.o.Root, "workers", a.Worker)
	logDir := filepath.Join(w.o.Root, "logs", a.Worker)
	for _, d := range []string{dir, logDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	args := []string{"worker", "--am", w.o.AMAddress, "--worker-id", a.Worker, "--group", a.Group.Name, "--node", AMNode,
		"--memory-mb", strconv.FormatInt(a.MemoryMB, 10), "--vcores", strconv.Itoa(max(a.Group.VCores, 1)),
		"--work-dir", dir, "--log-dir", logDir, "--container-id", a.Worker,
		"--log-roll-kb", strconv.FormatInt(w.o.LogRollKB, 10), "--log-roll-count", strconv.Itoa(w.o.LogRollCount)}
	cmd := exec.Command(w.o.Executable, args...)
	cmd.Env = append(os.Environ(), "EBB_SECRET="+w.o.Secret)
	for k, v := range w.o.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, v := range a.Group.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := os.Create(filepath.Join(logDir, "stderr"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = out, out
	return cmd, nil
}
