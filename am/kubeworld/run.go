package kubeworld

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/kube"
)

// Start runs the pod and node informers and, once both have listed, the
// executor; it returns when the caches are filled (the Book then knows the
// nodes, and the live worker pods of an earlier AM attempt, adopted), or
// with ctx's error.
func (w *World) Start(ctx context.Context) error {
	run, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	selector := kube.WorkerSelector(w.o.Pods.App)
	pods := informers.NewSharedInformerFactoryWithOptions(w.o.Client, 0, informers.WithNamespace(w.o.Pods.Namespace),
		informers.WithTweakListOptions(func(lo *metav1.ListOptions) { lo.LabelSelector = selector }))
	nodes := informers.NewSharedInformerFactory(w.o.Client, 0)
	pi := pods.Core().V1().Pods().Informer()
	ni := nodes.Core().V1().Nodes().Informer()
	preg, err := pi.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { w.onPod(obj, false, initial) },
		UpdateFunc: func(_, obj any) { w.onPod(obj, false, false) },
		DeleteFunc: func(obj any) { w.onPod(obj, true, false) },
	})
	if err != nil {
		cancel()
		return fmt.Errorf("kubernetes: watching pods: %w", err)
	}
	nreg, err := ni.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { w.onNode(obj, false) },
		UpdateFunc: func(_, obj any) { w.onNode(obj, false) },
		DeleteFunc: func(obj any) { w.onNode(obj, true) },
	})
	if err != nil {
		cancel()
		return fmt.Errorf("kubernetes: watching nodes: %w", err)
	}
	pods.Start(run.Done())
	nodes.Start(run.Done())
	// The handlers' registrations, not the informers: synced once the
	// handlers have taken the first list (the Book knows the nodes).
	if !cache.WaitForCacheSync(ctx.Done(), preg.HasSynced, nreg.HasSynced) {
		cancel()
		return fmt.Errorf("kubernetes: listing the pods of %s and the nodes: %w", w.o.Pods.App, context.Cause(ctx))
	}
	w.done = make(chan struct{})
	go w.execute(run)
	return nil
}

// onPod hands one pod event to the Book (adopting, from the first list, a
// live pod an earlier AM attempt made) and its answers to the loop. A pod
// that ended is deleted: a drained node must end with no ebb pod.
func (w *World) onPod(obj any, deleted, initial bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	s := podStatus(p, deleted)
	ended := s.Phase == kube.PhaseSucceeded || s.Phase == kube.PhaseFailed
	w.mu.Lock()
	if initial {
		w.book.Adopt(s, groupOf(p))
		w.book.SetMemory(p.Name, memoryMB(p))
	}
	evs := w.book.PodObserved(s)
	if ended && !deleted && p.DeletionTimestamp == nil {
		w.kill[p.Name] = true
	}
	w.mu.Unlock()
	w.send(evs)
	w.poke()
}

// onNode hands one node event to the Book and its answers to the loop.
func (w *World) onNode(obj any, deleted bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	n, ok := obj.(*corev1.Node)
	if !ok {
		return
	}
	w.mu.Lock()
	evs := w.book.NodeObserved(nodeStatus(n, deleted))
	w.mu.Unlock()
	w.send(evs)
	w.poke()
}

func (w *World) send(evs []core.Event) {
	if w.o.Events == nil {
		return
	}
	for _, ev := range evs {
		w.o.Events.Send(ev)
	}
}

// execute carries out the Book's plans until the world closes: on every
// nudge, and again after a wait when an API call failed.
func (w *World) execute(ctx context.Context) {
	defer close(w.done)
	retry := time.NewTimer(w.o.Retry)
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.nudge:
		case <-retry.C:
		}
		if !w.apply(ctx) {
			retry.Reset(w.o.Retry)
		}
	}
}

// apply takes one plan and carries it out; false when a call failed and
// should be tried again.
func (w *World) apply(ctx context.Context) bool {
	w.mu.Lock()
	a := w.book.Plan()
	for name := range w.kill {
		a.Delete = append(a.Delete, name)
	}
	w.kill = map[string]bool{}
	w.mu.Unlock()
	ok := true
	for _, s := range a.Create {
		ok = w.create(ctx, s) && ok
	}
	for _, name := range a.Delete {
		ok = w.delete(ctx, name) && ok
	}
	for _, p := range a.Patch {
		ok = w.patch(ctx, p) && ok
	}
	return ok
}

// create makes one worker pod. A pod the API refused is forgotten, so the
// next plan makes it again; a refusal that will not change (forbidden,
// invalid, no such PriorityClass) fails the group instead.
func (w *World) create(ctx context.Context, s kube.PodSpec) bool {
	_, err := w.o.Client.CoreV1().Pods(s.Namespace).Create(ctx, render(s), metav1.CreateOptions{})
	if err == nil || apierrors.IsAlreadyExists(err) {
		w.count(func(st *Stats) { st.Created++ })
		return true
	}
	group := s.Annotations[kube.AnnotationGroup]
	w.mu.Lock()
	w.book.PodObserved(kube.PodStatus{Name: s.Name, Deleted: true})
	w.stats.Failed++
	permanent := apierrors.IsForbidden(err) || apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)
	first := permanent && !w.refused[group]
	if permanent {
		w.refused[group] = true
		w.book.WantNone(core.GroupInfo{Name: group})
	}
	w.mu.Unlock()
	if first {
		w.refuse(group, fmt.Sprintf("container group %s: creating worker pod %s: %v", group, s.Name, err))
	}
	if !permanent {
		w.o.Log.Warnf("kubernetes: creating worker pod %s: %v (tried again)", s.Name, err)
	}
	return permanent
}

func (w *World) delete(ctx context.Context, name string) bool {
	err := w.o.Client.CoreV1().Pods(w.o.Pods.Namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err == nil || apierrors.IsNotFound(err) {
		w.count(func(st *Stats) { st.Deleted++ })
		return true
	}
	w.o.Log.Warnf("kubernetes: deleting pod %s: %v (tried again)", name, err)
	w.mu.Lock()
	w.kill[name] = true
	w.stats.Failed++
	w.mu.Unlock()
	return false
}

func (w *World) patch(ctx context.Context, p kube.Patch) bool {
	body, err := mergePatch(p)
	if err == nil {
		_, err = w.o.Client.CoreV1().Pods(w.o.Pods.Namespace).Patch(ctx, p.Pod, types.MergePatchType, body, metav1.PatchOptions{})
	}
	if err == nil || apierrors.IsNotFound(err) {
		w.count(func(st *Stats) { st.Patched++ })
		return true
	}
	// The Book marked the patch done; an unpatched pod keeps its old
	// annotation until its next change, which is logged.
	w.o.Log.Warnf("kubernetes: patching pod %s: %v", p.Pod, err)
	w.count(func(st *Stats) { st.Failed++ })
	return true
}

func (w *World) count(f func(*Stats)) {
	w.mu.Lock()
	f(&w.stats)
	w.mu.Unlock()
}

// Close stops the executor and the watches and deletes every worker pod
// of the application.
func (w *World) Close() error {
	if w.done != nil {
		w.cancel()
		<-w.done
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := w.o.Client.CoreV1().Pods(w.o.Pods.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{LabelSelector: kube.WorkerSelector(w.o.Pods.App)})
	if err != nil {
		return fmt.Errorf("kubernetes: deleting the worker pods of %s: %w", w.o.Pods.App, err)
	}
	return nil
}
