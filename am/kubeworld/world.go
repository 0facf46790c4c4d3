package kubeworld

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/client-go/kubernetes"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/kube"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/internal/lockorder"
)

// Options configure the Kubernetes world.
type Options struct {
	Client kubernetes.Interface
	// Pods are the worker pods' settings (the Book's options).
	Pods kube.Options
	// PendingTimeout: a group whose pods the scheduler has not been able
	// to place for this long fails (mr3.k8s.pod.creation.timeout.ms; 0:
	// they wait for ever).
	PendingTimeout time.Duration
	// Retry is the wait before a failed API call is tried again (default
	// 1 s).
	Retry time.Duration
	Log   *logrus.Logger
	// Events is where the world's reports go (the AM's loop).
	Events interface{ Send(core.Event) }
}

// World is the Kubernetes world. The loop's calls change the Book under
// mu and nudge the executor goroutine, which asks the Book for a plan and
// carries it out against the API server: the loop never waits on it. The
// informers' goroutines hand the Book what the watches report and send
// its answers to the loop.
type World struct {
	o Options
	// mu guards everything below it; it is never held while another lock
	// is taken or an event is sent (the loop, which calls the world, may be
	// waiting for it): concurrency_test.go holds that.
	mu   lockorder.Mutex
	book *kube.Book
	// pendingSince: when each group was first seen with a pod the
	// scheduler cannot place; refused: groups failed for it.
	pendingSince map[string]time.Time
	refused      map[string]bool
	// kill: pods to delete outside the Book's plans (ended pods, workers
	// killed for silence).
	kill   map[string]bool
	nudge  chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
	stats  Stats
}

// Stats are the world's counts, for logs and tests.
type Stats struct {
	Created, Deleted, Patched, Failed int
}

// New builds the world; Start brings it up.
func New(o Options) (*World, error) {
	if o.Client == nil {
		return nil, errors.New("kubeworld: no client")
	}
	b, err := kube.NewBook(o.Pods)
	if err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = logrus.StandardLogger()
	}
	if o.Retry <= 0 {
		o.Retry = time.Second
	}
	w := &World{o: o, book: b, pendingSince: map[string]time.Time{},
		refused: map[string]bool{}, kill: map[string]bool{}, nudge: make(chan struct{}, 1)}
	w.mu.SetClass("kubeworld.world")
	return w, nil
}

// poke wakes the executor.
func (w *World) poke() {
	select {
	case w.nudge <- struct{}{}:
	default:
	}
}

// WantWorkers records what group g wants; a group whose workers are
// larger than every node is refused instead (no pod of it could ever be
// placed).
func (w *World) WantWorkers(_ time.Time, a core.WantWorkers) {
	g := a.Group
	w.mu.Lock()
	largest := w.book.LargestNodeMB()
	if a.Total > 0 && largest > 0 && g.MemoryMB > largest {
		first := !w.refused[g.Name]
		w.refused[g.Name] = true
		w.mu.Unlock()
		if first {
			w.refuse(g.Name, fmt.Sprintf("container group %s needs %d MB workers, more than any node's allocatable memory (the largest: %d MB)", g.Name, g.MemoryMB, largest))
		}
		return
	}
	w.book.Want(a)
	w.mu.Unlock()
	w.poke()
}

// refuse fails a group's DAGs. It is called on the loop's goroutine (or
// an informer's): the event goes from another one, as the yarn world's.
func (w *World) refuse(group, reason string) {
	w.o.Log.Error("kubernetes: " + reason)
	if w.o.Events != nil {
		go w.o.Events.Send(core.GroupRefused{Group: group, Reason: reason})
	}
}

// NodeMB is a node's allocatable memory (0 when unknown).
func (w *World) NodeMB(node string) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.book.NodeMB(node)
}

// LargestNodeMB is the largest node's allocatable memory (0: none known):
// the largest worker the cluster can hold.
func (w *World) LargestNodeMB() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.book.LargestNodeMB()
}

// Tick fails the groups whose pods have stayed unschedulable longer than
// the timeout, and retries what failed.
func (w *World) Tick(now time.Time, _ core.Summary) {
	w.mu.Lock()
	stuck := w.book.Unschedulable()
	var fail []string
	for g := range w.pendingSince {
		if _, ok := stuck[g]; !ok {
			delete(w.pendingSince, g)
		}
	}
	for g, msg := range stuck {
		since, ok := w.pendingSince[g]
		if !ok {
			w.pendingSince[g] = now
			continue
		}
		if w.o.PendingTimeout > 0 && now.Sub(since) >= w.o.PendingTimeout && !w.refused[g] {
			w.refused[g] = true
			fail = append(fail, g, fmt.Sprintf("container group %s: the scheduler could not place its worker pods for %s (mr3.k8s.pod.creation.timeout.ms): %s",
				g, now.Sub(since).Round(time.Second), msg))
		}
	}
	w.mu.Unlock()
	for i := 0; i < len(fail); i += 2 {
		w.refuse(fail[i], fail[i+1])
	}
	w.poke()
}

// PendingReasons is, per group, the scheduler's message for a pod of it
// that it cannot place: the UI shows it on the group.
func (w *World) PendingReasons() map[string]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.book.Unschedulable()
}

// WorkerStopped: the worker exits on its own; its pod ends and is deleted.
func (w *World) WorkerStopped(_ time.Time, worker string) {
	w.mu.Lock()
	w.book.Stopped(worker)
	w.mu.Unlock()
	w.poke()
}

// WorkerMoved relabels the worker's pod for its new group.
func (w *World) WorkerMoved(_ time.Time, worker string, g core.GroupInfo) {
	w.mu.Lock()
	w.book.Moved(worker, g)
	w.mu.Unlock()
	w.poke()
}

// KillWorker deletes the pod of a worker that no longer answers.
func (w *World) KillWorker(_ time.Time, worker string) {
	w.mu.Lock()
	w.book.Stopped(worker)
	w.kill[worker] = true
	w.mu.Unlock()
	w.poke()
}

// WorkersViewed takes the core's workers: whether each holds outputs a
// running DAG needs (its safe-to-evict annotation).
func (w *World) WorkersViewed(_ time.Time, ws []core.WorkerView) {
	w.mu.Lock()
	for _, v := range ws {
		holds := false
		for _, n := range v.Outputs {
			holds = holds || n > 0
		}
		w.book.SetHolding(v.ID, holds)
	}
	w.mu.Unlock()
}

// CheckSpec refuses a DAG whose workers or tasks no node can hold, or
// that asks for resource types a worker pod does not carry.
func (w *World) CheckSpec(spec *dag.Spec) error {
	if err := spec.CheckResources(map[string]int64{}, "a worker pod (ebb asks Kubernetes for memory and cpu only)"); err != nil {
		return err
	}
	w.mu.Lock()
	largest := w.book.LargestNodeMB()
	w.mu.Unlock()
	if largest == 0 {
		return nil // no node known: WantWorkers checks
	}
	if spec.Group.WorkerMemoryMB > largest {
		return fmt.Errorf("containerGroup.workerMemoryMB: %d (group %s): more than any node's allocatable memory (the largest: %d MB)", spec.Group.WorkerMemoryMB, spec.Group.Name, largest)
	}
	for i, v := range spec.Vertices {
		if v.MemoryMB > largest {
			return fmt.Errorf("vertices[%d].memoryMB: %d (vertex %s): more than any node's allocatable memory (the largest: %d MB)", i, v.MemoryMB, v.Name, largest)
		}
	}
	return nil
}

// Stats returns the counts so far.
func (w *World) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}
