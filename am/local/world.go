// Package local is the embedded default world: a cluster of virtual nodes
// on this machine (count, memory, vcores, a provisioning delay, a cap) whose
// workers are real `ebb worker` processes. Nodes are added when a group
// wants workers and no node has room, and removed when they have been empty
// for a while, so autoscaling and packing can be watched without Hadoop.
package local

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/packing"
)

// Options configure the local world (the ebb.local.* keys).
type Options struct {
	Nodes          int           // virtual nodes present at start
	MaxNodes       int           // the cap
	NodeMB         int64         // memory per node
	NodeVCores     int           // vcores per node
	ProvisionDelay time.Duration // how long a new node takes
	IdleNodeTime   time.Duration // an empty node is removed after this
	// Executable is the ebb binary that runs `ebb worker`.
	Executable string
	// AMAddress and Secret are what workers connect with.
	AMAddress string
	Secret    string
	// Root holds every worker's working and log directories.
	Root string
	// Allocator chooses the node for a new worker (packing's second level).
	Allocator packing.Allocator
	Log       *logrus.Logger
	Post      am.Poster
}

type node struct {
	id         string
	readyAt    time.Time
	ready      bool
	emptySince time.Time
	workers    map[string]*proc
	usedMB     int64
}

type proc struct {
	id    string
	group string
	mb    int64
	node  *node
	cmd   *exec.Cmd
	// started: the process runs; false while it waits for a node.
	started bool
	stopped bool
}

// World is the local cluster. Its methods run on the AM loop's goroutine.
type World struct {
	o      Options
	nodes  []*node
	nextN  int
	nextW  int
	procs  map[string]*proc
	groups map[string]core.GroupInfo
	want   map[string]int
	now    time.Time
	avoid  map[string]bool // draining nodes: no new workers there
	starts struct{ processes, moved int }
}

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
	w := &World{o: o, procs: map[string]*proc{}, groups: map[string]core.GroupInfo{}, want: map[string]int{}, now: now}
	for i := 0; i < o.Nodes; i++ {
		w.addNode(now, true)
	}
	return w, nil
}

func (w *World) addNode(now time.Time, ready bool) *node {
	w.nextN++
	n := &node{id: fmt.Sprintf("local-node-%02d", w.nextN), workers: map[string]*proc{}, emptySince: now}
	if ready {
		n.ready = true
		n.readyAt = now
	} else {
		n.readyAt = now.Add(w.o.ProvisionDelay)
		w.o.Log.Infof("local world: provisioning node %s (ready in %s)", n.id, w.o.ProvisionDelay)
	}
	w.nodes = append(w.nodes, n)
	return n
}

// NodeMB reports a node's memory.
func (w *World) NodeMB(string) int64 { return w.o.NodeMB }

// WantWorkers starts or cancels workers of a group to reach total.
func (w *World) WantWorkers(now time.Time, g core.GroupInfo, total int, _ []string, avoid []string) {
	w.now = now
	w.avoid = map[string]bool{}
	for _, n := range avoid {
		w.avoid[n] = true
	}
	w.groups[g.Name] = g
	w.want[g.Name] = total
	w.reconcile(now, g.Name)
}

func (w *World) count(group string) (live, waiting int) {
	for _, p := range w.procs {
		if p.group != group || p.stopped {
			continue
		}
		if p.started {
			live++
		} else {
			waiting++
		}
	}
	return
}

// reconcile moves one group toward its wanted total: cancel waiting
// workers beyond it, place new ones on nodes with room, provision nodes
// when none has room and the cap allows. Only the group whose total
// changed is touched: another group's total may be about to change in the
// same batch of actions (a recycled worker moving between them).
func (w *World) reconcile(now time.Time, name string) {
	g := w.groups[name]
	live, waiting := w.count(name)
	for extra := live + waiting - w.want[name]; extra > 0 && waiting > 0; extra-- {
		w.cancelWaiting(name)
		waiting--
	}
	for need := w.want[name] - live - waiting; need > 0; need-- {
		w.nextW++
		p := &proc{id: fmt.Sprintf("worker-%04d", w.nextW), group: name, mb: g.MemoryMB}
		w.procs[p.id] = p
	}
	w.placeWaiting(now)
}

func (w *World) cancelWaiting(group string) {
	ids := w.sortedProcs()
	for i := len(ids) - 1; i >= 0; i-- {
		p := w.procs[ids[i]]
		if p.group == group && !p.started && !p.stopped {
			if p.node != nil {
				delete(p.node.workers, p.id)
				p.node.usedMB -= p.mb
			}
			delete(w.procs, p.id)
			return
		}
	}
}

func (w *World) sortedProcs() []string {
	ids := make([]string, 0, len(w.procs))
	for id := range w.procs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// placeWaiting gives waiting workers a node: a ready node with room chosen
// by the allocator; else a node being provisioned with room; else a new
// node if the cap allows. Workers on ready nodes start at once.
func (w *World) placeWaiting(now time.Time) {
	for _, id := range w.sortedProcs() {
		p := w.procs[id]
		if p.started || p.stopped {
			continue
		}
		if p.node == nil {
			n := w.chooseNode(p)
			if n == nil && len(w.nodes) < w.o.MaxNodes {
				n = w.addNode(now, w.o.ProvisionDelay == 0)
			}
			if n == nil {
				continue // the cap is reached: it waits for room
			}
			p.node = n
			n.workers[p.id] = p
			n.usedMB += p.mb
		}
		if p.node.ready {
			w.start(p)
		}
	}
}

func (w *World) chooseNode(p *proc) *node {
	var cands []packing.Node
	var idx []*node
	for _, n := range w.nodes {
		free := w.o.NodeMB - n.usedMB
		if free < p.mb || w.avoid[n.id] {
			continue
		}
		cands = append(cands, packing.Node{ID: n.id, CapacityMB: w.o.NodeMB, UsedMB: n.usedMB, FitsMB: free})
		idx = append(idx, n)
	}
	if len(cands) == 0 {
		return nil
	}
	// Ready nodes first: a worker should not wait for a node being
	// provisioned when one is up.
	var ready []packing.Node
	var readyIdx []*node
	for i, n := range idx {
		if n.ready {
			ready = append(ready, cands[i])
			readyIdx = append(readyIdx, n)
		}
	}
	if len(ready) > 0 {
		cands, idx = ready, readyIdx
	}
	if w.o.Allocator != nil {
		if i, ok := w.o.Allocator.Choose(cands, packing.Request{MemoryMB: p.mb, Seed: uint64(w.nextW)}); ok {
			return idx[i]
		}
		return nil
	}
	return idx[0]
}

func (w *World) start(p *proc) {
	g := w.groups[p.group]
	dir := filepath.Join(w.o.Root, "workers", p.id)
	logDir := filepath.Join(w.o.Root, "logs", p.id)
	for _, d := range []string{dir, logDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			w.o.Log.Errorf("local world: %v", err)
		}
	}
	vcores := g.VCores
	if vcores <= 0 {
		vcores = 1
	}
	args := []string{"worker", "--am", w.o.AMAddress, "--worker-id", p.id, "--group", p.group, "--node", p.node.id,
		"--memory-mb", strconv.FormatInt(p.mb, 10), "--vcores", strconv.Itoa(vcores),
		"--work-dir", dir, "--log-dir", logDir, "--container-id", p.id}
	cmd := exec.Command(w.o.Executable, args...)
	cmd.Env = append(os.Environ(), "EBB_SECRET="+w.o.Secret)
	for k, v := range g.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := os.Create(filepath.Join(logDir, "stderr"))
	if err == nil {
		cmd.Stdout, cmd.Stderr = out, out
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.o.Log.Errorf("local world: starting worker %s: %v", p.id, err)
		if out != nil {
			out.Close()
		}
		delete(p.node.workers, p.id)
		p.node.usedMB -= p.mb
		delete(w.procs, p.id)
		return
	}
	p.cmd = cmd
	p.started = true
	w.starts.processes++
	w.o.Log.Infof("local world: started worker %s (group %s, %d MB) on %s, pid %d", p.id, p.group, p.mb, p.node.id, cmd.Process.Pid)
	id := p.id
	go func() {
		err := cmd.Wait()
		if out != nil {
			out.Close()
		}
		reason := "exited"
		if err != nil {
			reason = fmt.Sprintf("exited: %v", err)
		}
		w.o.Post(func(c *core.Core, now time.Time) {
			w.exitedProc(now, id)
			c.WorkerLost(now, id, reason)
		})
	}()
}

func (w *World) exitedProc(now time.Time, id string) {
	p, ok := w.procs[id]
	if !ok {
		return
	}
	delete(w.procs, id)
	if p.node != nil {
		delete(p.node.workers, id)
		p.node.usedMB -= p.mb
		if len(p.node.workers) == 0 {
			p.node.emptySince = now
		}
	}
	if !p.stopped {
		// A worker died on its own: the Core will ask again if it still
		// wants it, through WantWorkers; count it as gone now.
		w.o.Log.Warnf("local world: worker %s exited unexpectedly", id)
	}
	w.placeWaiting(now)
}

// WorkerStopped: the AM told the worker to exit; it is no longer wanted.
func (w *World) WorkerStopped(now time.Time, id string) {
	// The Core follows every stop with a new WantWorkers total, so the
	// count of wanted workers is not changed here.
	if p, ok := w.procs[id]; ok {
		p.stopped = true
	}
}

// WorkerMoved: the worker process now serves another group.
func (w *World) WorkerMoved(now time.Time, id string, g core.GroupInfo) {
	if p, ok := w.procs[id]; ok {
		p.group = g.Name
		w.groups[g.Name] = g
	}
	w.starts.moved++
}

// Started counts worker processes started and workers moved between groups.
func (w *World) Started() (processes, moved int) { return w.starts.processes, w.starts.moved }

// Tick brings provisioned nodes up and removes nodes empty for too long.
func (w *World) Tick(now time.Time) {
	w.now = now
	for _, n := range w.nodes {
		if !n.ready && !now.Before(n.readyAt) {
			n.ready = true
			n.emptySince = now
			w.o.Log.Infof("local world: node %s is ready", n.id)
		}
	}
	kept := w.nodes[:0]
	for _, n := range w.nodes {
		if n.ready && len(n.workers) == 0 && now.Sub(n.emptySince) >= w.o.IdleNodeTime {
			w.o.Log.Infof("local world: removing node %s, empty for %s", n.id, now.Sub(n.emptySince).Round(time.Millisecond))
			continue
		}
		kept = append(kept, n)
	}
	w.nodes = kept
	w.placeWaiting(now)
}

// Close kills every worker process and waits for them to go.
func (w *World) Close() error {
	for _, p := range w.procs {
		if p.cmd != nil && p.cmd.Process != nil {
			syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
		}
	}
	return nil
}

// NodeInfo describes a node for tests and the CLI.
type NodeInfo struct {
	ID      string
	Ready   bool
	Workers []string
}

// Nodes lists the nodes (call on the loop goroutine, e.g. inside Loop.Do).
func (w *World) Nodes() []NodeInfo {
	var out []NodeInfo
	for _, n := range w.nodes {
		ni := NodeInfo{ID: n.id, Ready: n.ready}
		for id := range n.workers {
			ni.Workers = append(ni.Workers, id)
		}
		sort.Strings(ni.Workers)
		out = append(out, ni)
	}
	return out
}

// PID returns a started worker's process id (for tests that kill one).
func (w *World) PID(worker string) (int, bool) {
	p, ok := w.procs[worker]
	if !ok || p.cmd == nil || p.cmd.Process == nil {
		return 0, false
	}
	return p.cmd.Process.Pid, true
}
