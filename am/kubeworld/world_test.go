package kubeworld

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/kube"
	"github.com/ebb-am/ebb/dag"
)

// events records what the world sends the loop.
type events struct {
	mu  sync.Mutex
	evs []core.Event
}

func (e *events) Send(ev core.Event) {
	e.mu.Lock()
	e.evs = append(e.evs, ev)
	e.mu.Unlock()
}

func (e *events) all() []core.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]core.Event(nil), e.evs...)
}

// eventually waits, up to a deadline, for cond; the fake API server's
// watches deliver on their own goroutines.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 10 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func node(name string, mb int64) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
		corev1.ResourceMemory: *resource.NewQuantity(mb<<20, resource.BinarySI), corev1.ResourceCPU: resource.MustParse("8")}}}
}

func testPods() kube.Options {
	return kube.Options{App: "app1", Namespace: "batch", Image: "ebb:test", AMAddress: "app1-am:7000", SecretName: "app1-secret",
		Owner:             kube.OwnerRef{APIVersion: "v1", Kind: "Pod", Name: "app1-am", UID: "u-1"},
		PriorityClassName: "batch-low", PreemptionPolicy: kube.PreemptNever}
}

// start runs a world over a fake API server holding objs.
func start(t *testing.T, timeout time.Duration, objs ...any) (*World, *fake.Clientset, *events) {
	t.Helper()
	var ros []any
	ros = append(ros, objs...)
	cs := fake.NewClientset()
	for _, o := range ros {
		switch o := o.(type) {
		case *corev1.Node:
			if _, err := cs.CoreV1().Nodes().Create(context.Background(), o, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		case *corev1.Pod:
			if _, err := cs.CoreV1().Pods(o.Namespace).Create(context.Background(), o, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ev := &events{}
	log := logrus.New()
	log.SetLevel(logrus.WarnLevel)
	w, err := New(Options{Client: cs, Pods: testPods(), PendingTimeout: timeout, Retry: 10 * time.Millisecond, Log: log, Events: ev})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w, cs, ev
}

func listPods(t *testing.T, cs *fake.Clientset) []corev1.Pod {
	t.Helper()
	l, err := cs.CoreV1().Pods("batch").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l.Items
}

func setStatus(t *testing.T, cs *fake.Clientset, name string, f func(*corev1.Pod)) {
	t.Helper()
	p, err := cs.CoreV1().Pods("batch").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f(p)
	if _, err := cs.CoreV1().Pods("batch").UpdateStatus(context.Background(), p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

var gMap = core.GroupInfo{Name: "map", MemoryMB: 4096, VCores: 2}

// The core's wish becomes pods as the Book renders them: requests equal
// to limits, the group's labels, the AM as owner, the priority class, the
// preferred node; the nodes' allocatable memory reaches the core.
func TestWantedWorkersBecomePods(t *testing.T) {
	w, cs, ev := start(t, 0, node("n1", 16384), node("n2", 8192))
	eventually(t, "node report", func() bool {
		for _, e := range ev.all() {
			if n, ok := e.(core.NodesReported); ok && len(n.Nodes) == 2 {
				return true
			}
		}
		return false
	})
	if got := w.NodeMB("n2"); got != 8192 {
		t.Errorf("NodeMB(n2) = %d, want 8192", got)
	}
	w.WantWorkers(time.Now(), core.WantWorkers{Group: gMap, Total: 2, Prefer: []string{"n1"}})
	eventually(t, "two pods", func() bool { return len(listPods(t, cs)) == 2 })
	p := listPods(t, cs)[0]
	c := p.Spec.Containers[0]
	if c.Resources.Requests.Memory().Value() != 4096<<20 || c.Resources.Limits.Cpu().MilliValue() != 2000 {
		t.Errorf("resources %v, want 4096 MiB and 2 cpu as requests and limits", c.Resources)
	}
	if p.Labels[kube.LabelGroup] != "map" || p.Labels[kube.LabelApp] != "app1" || p.OwnerReferences[0].UID != "u-1" {
		t.Errorf("labels %v owner %v", p.Labels, p.OwnerReferences)
	}
	if p.Spec.PriorityClassName != "batch-low" || *p.Spec.PreemptionPolicy != corev1.PreemptNever || p.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("priority %q %v restart %v", p.Spec.PriorityClassName, p.Spec.PreemptionPolicy, p.Spec.RestartPolicy)
	}
	if c.Command[0] != "ebb" || c.Args[0] != "worker" {
		t.Errorf("command %v %v", c.Command, c.Args)
	}
	pref := p.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	if len(pref) != 1 || pref[0].Preference.MatchExpressions[0].Values[0] != "n1" {
		t.Errorf("preferred affinity %v, want n1", pref)
	}
	// Fewer wanted: the surplus pod, not running, is deleted.
	w.WantWorkers(time.Now(), core.WantWorkers{Group: gMap, Total: 1})
	eventually(t, "one pod left", func() bool { return len(listPods(t, cs)) == 1 })
}

// A running worker pod that the scheduler preempts is a lost worker,
// lost as preempted (no failure counted); the ended pod is deleted.
func TestPreemptedPodIsALostWorkerNotAFailure(t *testing.T) {
	w, cs, ev := start(t, 0, node("n1", 16384))
	w.WantWorkers(time.Now(), core.WantWorkers{Group: gMap, Total: 1})
	eventually(t, "a pod", func() bool { return len(listPods(t, cs)) == 1 })
	name := listPods(t, cs)[0].Name
	setStatus(t, cs, name, func(p *corev1.Pod) { p.Spec.NodeName = "n1"; p.Status.Phase = corev1.PodRunning })
	// The watch delivers the two updates in order: the Book sees the pod
	// run, then fail.
	setStatus(t, cs, name, func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodFailed
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: kube.DisruptionPreemption})
	})
	var gone core.WorkerGone
	eventually(t, "the worker lost", func() bool {
		for _, e := range ev.all() {
			if g, ok := e.(core.WorkerGone); ok {
				gone = g
				return true
			}
		}
		return false
	})
	if !gone.Preempted || gone.Worker != name || !strings.Contains(gone.Reason, "PreemptionByScheduler") {
		t.Errorf("WorkerGone %+v, want %s preempted by the scheduler", gone, name)
	}
	eventually(t, "the ended pod deleted and replaced", func() bool {
		ps := listPods(t, cs)
		return len(ps) == 1 && ps[0].Name != name
	})
}

// A pod the scheduler cannot place: its message is the group's pending
// reason (the UI shows it) and, once the timeout has passed on the ticks'
// clock, the group is refused with it, never a silent hang.
func TestUnschedulablePodFailsItsGroupAfterTheTimeout(t *testing.T) {
	w, cs, ev := start(t, 5*time.Minute, node("n1", 16384))
	w.WantWorkers(time.Now(), core.WantWorkers{Group: gMap, Total: 1})
	eventually(t, "a pod", func() bool { return len(listPods(t, cs)) == 1 })
	const msg = "0/1 nodes are available: 1 Insufficient memory. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
	setStatus(t, cs, listPods(t, cs)[0].Name, func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
			Reason: corev1.PodReasonUnschedulable, Message: msg}}
	})
	eventually(t, "the pending reason", func() bool { return w.PendingReasons()["map"] == msg })
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w.Tick(t0, core.Summary{})
	w.Tick(t0.Add(5*time.Minute-time.Millisecond), core.Summary{})
	for _, e := range ev.all() {
		if _, ok := e.(core.GroupRefused); ok {
			t.Fatalf("refused before the timeout: %+v", e)
		}
	}
	w.Tick(t0.Add(5*time.Minute), core.Summary{})
	var r core.GroupRefused
	eventually(t, "the group refused", func() bool {
		for _, e := range ev.all() {
			if g, ok := e.(core.GroupRefused); ok {
				r = g
				return true
			}
		}
		return false
	})
	if r.Group != "map" || !strings.Contains(r.Reason, msg) || !strings.Contains(r.Reason, "mr3.k8s.pod.creation.timeout.ms") {
		t.Errorf("refused %+v, want group map with the scheduler's message and the key", r)
	}
}

// A worker larger than every node is refused: no pod is created, and a
// DAG asking for one is refused at submit.
func TestWorkerLargerThanAnyNodeIsRefused(t *testing.T) {
	w, cs, ev := start(t, 0, node("n1", 8192), node("n2", 4096))
	eventually(t, "nodes", func() bool { return w.NodeMB("n2") == 4096 })
	big := core.GroupInfo{Name: "big", MemoryMB: 16384, VCores: 1}
	w.WantWorkers(time.Now(), core.WantWorkers{Group: big, Total: 1})
	eventually(t, "the group refused", func() bool {
		for _, e := range ev.all() {
			if g, ok := e.(core.GroupRefused); ok && g.Group == "big" && strings.Contains(g.Reason, "largest: 8192 MB") {
				return true
			}
		}
		return false
	})
	if n := len(listPods(t, cs)); n != 0 {
		t.Errorf("%d pods created for a group no node holds", n)
	}
	spec, err := dag.Parse("x.yaml", []byte(`
name: k
containerGroup: {name: big, workerMemoryMB: 16384}
vertices: [{name: v, command: "true", parallelism: 1, memoryMB: 1024}]
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.CheckSpec(spec); err == nil || !strings.Contains(err.Error(), "containerGroup.workerMemoryMB: 16384") {
		t.Errorf("CheckSpec: %v, want containerGroup.workerMemoryMB refused", err)
	}
}

// A live worker pod of an earlier AM attempt (the AM's container
// restarted in its pod) is adopted: it counts, so no second pod is made,
// and new pods are numbered past it.
func TestLiveWorkerPodsAreAdoptedAtStart(t *testing.T) {
	old := render(kube.PodSpec{Name: "app1-w-7", Namespace: "batch", Image: "ebb:test", Args: []string{"ebb", "worker"},
		Labels:      map[string]string{kube.LabelApp: "app1", kube.LabelGroup: "map", kube.LabelRole: "worker"},
		Annotations: map[string]string{kube.AnnotationGroup: "map"}, MemoryMB: 4096, MilliCPU: 2000, OutputDir: "/ebb/work"})
	old.Spec.NodeName = "n1"
	old.Status.Phase = corev1.PodRunning
	w, cs, _ := start(t, 0, node("n1", 16384), old)
	w.WantWorkers(time.Now(), core.WantWorkers{Group: gMap, Total: 2})
	eventually(t, "a second pod", func() bool { return len(listPods(t, cs)) == 2 })
	names := []string{listPods(t, cs)[0].Name, listPods(t, cs)[1].Name}
	if names[0] != "app1-w-7" || names[1] != "app1-w-8" {
		t.Errorf("pods %v, want the adopted app1-w-7 and a new app1-w-8", names)
	}
}

// A worker holding outputs a running DAG needs is marked safe-to-evict
// "false", and unmarked when it holds none.
func TestWorkerHoldingOutputsIsNotSafeToEvict(t *testing.T) {
	w, cs, _ := start(t, 0, node("n1", 16384))
	w.WantWorkers(time.Now(), core.WantWorkers{Group: gMap, Total: 1})
	eventually(t, "a pod", func() bool { return len(listPods(t, cs)) == 1 })
	name := listPods(t, cs)[0].Name
	setStatus(t, cs, name, func(p *corev1.Pod) { p.Spec.NodeName = "n1"; p.Status.Phase = corev1.PodRunning })
	annotation := func() string { return listPods(t, cs)[0].Annotations[kube.AnnotationSafeToEvict] }
	// The Book must have seen it run before a patch applies.
	eventually(t, "safe-to-evict false", func() bool {
		w.WorkersViewed(time.Now(), []core.WorkerView{{ID: name, Outputs: map[string]int{"dag_1": 2}}})
		w.Tick(time.Now(), core.Summary{})
		return annotation() == "false"
	})
	w.WorkersViewed(time.Now(), []core.WorkerView{{ID: name, Outputs: map[string]int{}}})
	w.Tick(time.Now(), core.Summary{})
	eventually(t, "the annotation removed", func() bool { _, ok := listPods(t, cs)[0].Annotations[kube.AnnotationSafeToEvict]; return !ok })
}
