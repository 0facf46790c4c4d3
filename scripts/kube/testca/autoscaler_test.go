package main

import (
	"context"
	"io"
	"log"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	listersv1 "k8s.io/client-go/listers/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
)

// world is an autoscaler over listers the test fills and a fake clientset
// that records what it did; scans are driven with explicit times.
type world struct {
	a           *autoscaler
	cs          *fake.Clientset
	nodes, pods cache.Indexer
}

func newWorld(t *testing.T, o options) *world {
	t.Helper()
	o.nodeCPU, o.nodeMemory = resource.MustParse("4"), resource.MustParse("8Gi")
	if o.threshold == 0 {
		o.threshold = 0.5
	}
	if o.maxEmptyBulkDelete == 0 {
		o.maxEmptyBulkDelete = 10
	}
	w := &world{cs: fake.NewSimpleClientset(),
		nodes: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		pods:  cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})}
	w.a = &autoscaler{o: o, cs: w.cs, log: log.New(io.Discard, "", 0),
		pods: listersv1.NewPodLister(w.pods), nodes: listersv1.NewNodeLister(w.nodes), unneeded: map[string]time.Time{}}
	return w
}

func (w *world) node(t *testing.T, name string) {
	t.Helper()
	n := w.a.template(name)
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	if err := w.nodes.Add(n); err != nil {
		t.Fatal(err)
	}
	if _, err := w.cs.CoreV1().Nodes().Create(context.Background(), n, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func (w *world) pod(t *testing.T, name, node, cpu string, annotations map[string]string) *corev1.Pod {
	t.Helper()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Annotations: annotations},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	if node == "" {
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
			Reason: corev1.PodReasonUnschedulable, Message: "0/1 nodes are available"}}
	}
	if err := w.pods.Add(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// deleted is the nodes deleted since the last call; they leave the lister.
func (w *world) deleted(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, a := range w.cs.Actions() {
		if d, ok := a.(k8stesting.DeleteAction); ok && a.GetResource().Resource == "nodes" {
			out = append(out, d.GetName())
			if err := w.nodes.Delete(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: d.GetName()}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.cs.ClearActions()
	return out
}

func (w *world) created(kind string) int {
	n := 0
	for _, a := range w.cs.Actions() {
		if c, ok := a.(k8stesting.CreateAction); ok && a.GetResource().Resource == kind {
			if _, isNode := c.GetObject().(*corev1.Node); isNode {
				n++
			}
		}
	}
	return n
}

func (w *world) scan(at time.Time) { w.a.scan(context.Background(), at) }

// Three empty nodes, two at least: none goes before 5 s unneeded, nor
// within 5 s of a scale-up; then one goes (the rest would break
// --min-nodes), the longest unneeded first, ties by name.
func TestScaleDownWaitsUnneededTimeAndKeepsMinNodes(t *testing.T) {
	w := newWorld(t, options{minNodes: 2, maxNodes: 6, unneededTime: 5 * time.Second, delayAfterAdd: 5 * time.Second})
	for _, n := range []string{"kwok-node-1", "kwok-node-2", "kwok-node-3"} {
		w.node(t, n)
	}
	w.cs.ClearActions()
	t0 := time.Unix(1000, 0)
	w.a.lastScaleUp = t0.Add(2 * time.Second)
	for _, s := range []time.Duration{0, 4 * time.Second, 6 * time.Second} {
		w.scan(t0.Add(s))
		if d := w.deleted(t); len(d) != 0 {
			t.Fatalf("at +%v deleted %v: too early (unneeded time, or the delay after the scale-up at +2s)", s, d)
		}
	}
	w.scan(t0.Add(7 * time.Second))
	if d := w.deleted(t); len(d) != 1 || d[0] != "kwok-node-1" {
		t.Fatalf("at +7s deleted %v, want [kwok-node-1]", d)
	}
	w.scan(t0.Add(20 * time.Second))
	if d := w.deleted(t); len(d) != 0 {
		t.Fatalf("deleted %v below --min-nodes=2", d)
	}
}

// A node that stops being unneeded for one scan starts from zero; a pod
// with safe-to-evict "false" keeps its node; so does a pod over the
// threshold once it is allowed to move.
func TestScaleDownTimerResetsAndPodsKeepNodes(t *testing.T) {
	w := newWorld(t, options{minNodes: 0, maxNodes: 6, unneededTime: 5 * time.Second})
	w.node(t, "a")
	w.node(t, "b")
	w.node(t, "c")
	w.cs.ClearActions()
	w.pod(t, "held", "b", "100m", map[string]string{AnnotationSafeToEvict: "false"})
	w.pod(t, "busy", "c", "3", map[string]string{AnnotationSafeToEvict: "true"})
	t0 := time.Unix(1000, 0)
	w.scan(t0)
	blip := w.pod(t, "blip", "a", "100m", nil) // no controller: immovable
	w.scan(t0.Add(3 * time.Second))
	if err := w.pods.Delete(blip); err != nil {
		t.Fatal(err)
	}
	w.scan(t0.Add(4 * time.Second))
	w.scan(t0.Add(8 * time.Second))
	if d := w.deleted(t); len(d) != 0 {
		t.Fatalf("deleted %v: a's timer should have restarted at +4s, b and c are needed", d)
	}
	w.scan(t0.Add(9 * time.Second))
	if d := w.deleted(t); len(d) != 1 || d[0] != "a" {
		t.Fatalf("at +9s deleted %v, want [a]", d)
	}
	w.scan(t0.Add(60 * time.Second))
	if d := w.deleted(t); len(d) != 0 {
		t.Fatalf("deleted %v: b holds a safe-to-evict=false pod, c is at 75%% cpu", d)
	}
}

// Unschedulable pods get the nodes they need, packed: two pods of 3 cpu
// need two 4-cpu nodes; a pod that fits where there is room, or fits no
// node at all, gets none.
func TestScaleUpPacksUnschedulablePods(t *testing.T) {
	w := newWorld(t, options{maxNodes: 5})
	w.node(t, "kwok-node-1")
	w.pod(t, "filler", "kwok-node-1", "3500m", nil)
	w.cs.ClearActions()
	w.pod(t, "p1", "", "3", nil)
	w.pod(t, "p2", "", "3", nil)
	w.pod(t, "huge", "", "5", nil)
	w.scan(time.Unix(1000, 0))
	if n := w.created("nodes"); n != 2 {
		t.Fatalf("made %d nodes, want 2", n)
	}
	w.cs.ClearActions()
	for _, name := range []string{"kwok-node-2", "kwok-node-3"} {
		n := w.a.template(name)
		if err := w.nodes.Add(n); err != nil {
			t.Fatal(err)
		}
	}
	w.scan(time.Unix(1001, 0))
	if n := w.created("nodes"); n != 0 {
		t.Fatalf("made %d more nodes: the two new ones have room for the pods still Pending", n)
	}
}

func TestImmovable(t *testing.T) {
	yes := true
	owned := []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "rs", Controller: &yes}}
	for _, c := range []struct {
		p    corev1.Pod
		want bool
	}{
		{corev1.Pod{}, true}, // no controller
		{corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned}}, false},
		{corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned, Annotations: map[string]string{AnnotationSafeToEvict: "false"}}}, true},
		{corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{AnnotationSafeToEvict: "true"}}}, false},
		{corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned}, Spec: corev1.PodSpec{Volumes: []corev1.Volume{
			{Name: "out", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}}, true},
		{corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned, Namespace: "kube-system"}}, true},
	} {
		if got := immovable(&c.p) != ""; got != c.want {
			t.Errorf("immovable(%+v) = %q, want immovable=%v", c.p.ObjectMeta, immovable(&c.p), c.want)
		}
	}
}
