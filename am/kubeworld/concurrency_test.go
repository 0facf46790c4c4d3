package kubeworld

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/kube"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/internal/lockorder"
)

// loopModel stands for the AM's loop: one goroutine applies each event
// the world sends and then calls the world back, as the loop's dispatch
// does. The loop's queue is bounded, so a Send can wait for the event
// being applied; the model's mutex, held while an event is applied and
// taken by Send, makes that wait a lock the checker sees: a world that
// sends while it holds its own lock, which the loop needs to call it,
// closes a cycle (and, in a build without the checker, may deadlock,
// which the test's deadline reports).
type loopModel struct {
	mu      lockorder.Mutex
	q       chan core.Event
	done    chan struct{}
	w       *World
	applied atomic.Int64
}

func newLoopModel() *loopModel {
	l := &loopModel{q: make(chan core.Event, 1), done: make(chan struct{})}
	l.mu.SetClass("am.loop")
	return l
}

func (l *loopModel) Send(ev core.Event) {
	l.mu.Lock()
	l.mu.Unlock() //nolint:staticcheck // waits for the event being applied, as a full queue does
	select {
	case l.q <- ev:
	case <-l.done:
	}
}

func (l *loopModel) run() {
	for {
		select {
		case ev := <-l.q:
			l.mu.Lock()
			l.apply(ev)
			l.mu.Unlock()
		case <-l.done:
			return
		}
	}
}

// apply calls the world as the loop does after an event: a lost worker's
// pod killed, the groups' wishes, the workers' view, a tick.
func (l *loopModel) apply(ev core.Event) {
	now := time.Now()
	n := int(l.applied.Add(1))
	if g, ok := ev.(core.WorkerGone); ok {
		l.w.KillWorker(now, g.Worker)
	}
	l.w.WantWorkers(now, core.WantWorkers{Group: gMap, Total: 1 + n%4, Prefer: []string{"n1"}})
	l.w.WorkersViewed(now, []core.WorkerView{{ID: fmt.Sprintf("app1-w-%d", n%8), Outputs: map[string]int{"dag_1": n % 2}}})
	l.w.Tick(now, core.Summary{})
}

// Many callers at once: the API server's pod and node changes through the
// informers' goroutines, the loop applying what they report and calling
// the world back, other callers of the loop's methods, and the UI's
// readers, with the executor creating, deleting and patching pods all the
// while. Under the race detector, and the lock-order checker in its
// build; afterwards the executor still answers a new wish.
func TestWorldUnderManyConcurrentCallers(t *testing.T) {
	cs := fake.NewClientset()
	ctx := context.Background()
	for _, n := range []*corev1.Node{node("n1", 16384), node("n2", 8192)} {
		if _, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	log := logrus.New()
	log.SetLevel(logrus.FatalLevel)
	loop := newLoopModel()
	w, err := New(Options{Client: cs, Pods: testPods(), PendingTimeout: time.Millisecond, Retry: time.Millisecond, Log: log, Events: loop})
	if err != nil {
		t.Fatal(err)
	}
	loop.w = w
	go loop.run()
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := w.Start(sctx); err != nil {
		t.Fatal(err)
	}
	spec, err := dag.Parse("x.yaml", []byte("name: k\ncontainerGroup: {name: map, workerMemoryMB: 4096}\nvertices: [{name: v, command: \"true\", parallelism: 1, memoryMB: 1024}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	// The API server's changes drive the run (rounds each); the loop's
	// other callers and the UI's readers call on until they end.
	const rounds = 12
	var api, others sync.WaitGroup
	stop := make(chan struct{})
	pods := cs.CoreV1().Pods("batch")
	drive := func(f func(i int)) {
		api.Add(1)
		go func() {
			defer api.Done()
			for i := range rounds {
				f(i)
			}
		}()
	}
	call := func(f func(i int)) {
		others.Add(1)
		go func() {
			defer others.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				f(i)
				time.Sleep(time.Millisecond) // pacing: leave the CPU to the API's goroutines
			}
		}()
	}
	for d := range 2 {
		drive(func(i int) { churnPods(ctx, cs, d, i) })
	}
	drive(func(i int) {
		n := node("n3", int64(4096+1024*(i%3)))
		if i%2 == 0 {
			_, _ = cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
			_, _ = cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		} else {
			_ = cs.CoreV1().Nodes().Delete(ctx, "n3", metav1.DeleteOptions{})
		}
	})
	call(func(i int) {
		now := time.Now()
		w.WantWorkers(now, core.WantWorkers{Group: core.GroupInfo{Name: "reduce", MemoryMB: 2048, VCores: 1}, Total: i % 3, Avoid: []string{"n2"}})
		w.WorkerStopped(now, fmt.Sprintf("app1-w-%d", i%8))
		w.WorkerMoved(now, fmt.Sprintf("app1-w-%d", (i+3)%8), core.GroupInfo{Name: "reduce", MemoryMB: 2048})
	})
	reads := atomic.Int64{}
	for range 3 {
		call(func(int) {
			_ = w.PendingReasons()
			_ = w.NodeMB("n1") + w.LargestNodeMB()
			_ = w.Stats()
			_ = w.CheckSpec(spec)
			reads.Add(1)
		})
	}
	finished := make(chan struct{})
	go func() { api.Wait(); close(stop); others.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(2 * time.Minute):
		buf := make([]byte, 1<<22)
		t.Fatalf("the callers did not finish within 2 min: a deadlock?\n%s", buf[:runtime.Stack(buf, true)])
	}
	// The executor still answers: a new group's wish becomes a pod.
	w.WantWorkers(time.Now(), core.WantWorkers{Group: core.GroupInfo{Name: "last", MemoryMB: 1024, VCores: 1}, Total: 1})
	eventually(t, "the last group's pod", func() bool {
		l, err := pods.List(ctx, metav1.ListOptions{LabelSelector: kube.LabelGroup + "=last"})
		return err == nil && len(l.Items) == 1
	})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	close(loop.done)
	t.Logf("%d events applied by the loop, %d rounds of the UI's reads; %+v", loop.applied.Load(), reads.Load(), w.Stats())
}

// churnPods moves the application's pods through their lives as a
// kubelet and the scheduler would: bound and running, unschedulable,
// preempted (DisruptionTarget, then Failed), OOMKilled, deleted.
func churnPods(ctx context.Context, cs *fake.Clientset, d, i int) {
	pods := cs.CoreV1().Pods("batch")
	l, err := pods.List(ctx, metav1.ListOptions{})
	if err != nil || len(l.Items) == 0 {
		return
	}
	p := l.Items[(i*7+d)%len(l.Items)]
	switch (i + d) % 5 {
	case 0, 1:
		p.Spec.NodeName, p.Status.Phase = "n1", corev1.PodRunning
	case 2:
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
			Reason: corev1.PodReasonUnschedulable, Message: "0/2 nodes are available: 2 Insufficient memory."}}
	case 3:
		p.Status.Phase = corev1.PodFailed
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: kube.DisruptionPreemption}}
	case 4:
		p.Status.Phase = corev1.PodFailed
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: workerContainer,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: kube.ReasonOOMKilled, ExitCode: 137}}}}
	}
	if i%11 == 10 {
		_ = pods.Delete(ctx, p.Name, metav1.DeleteOptions{})
		return
	}
	_, _ = pods.UpdateStatus(ctx, &p, metav1.UpdateOptions{})
}
