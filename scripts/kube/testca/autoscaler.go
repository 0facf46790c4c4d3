package main

import (
	"context"
	"log"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	listersv1 "k8s.io/client-go/listers/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// AnnotationSafeToEvict is the cluster autoscaler's: "false" keeps a pod's
// node, "true" lets a pod the other rules would keep be moved.
const AnnotationSafeToEvict = "cluster-autoscaler.kubernetes.io/safe-to-evict"

type autoscaler struct {
	o     options
	cs    kubernetes.Interface
	log   *log.Logger
	pods  listersv1.PodLister
	nodes listersv1.NodeLister

	namespaceLister listersv1.NamespaceLister

	nextNode    int
	lastScaleUp time.Time
	// unneeded: since when each node was found unneeded, for the nodes
	// found so in the latest scan only (a node that stops being unneeded
	// starts again from zero, as in the CA).
	unneeded map[string]time.Time
	// why: the latest reason each node is needed, logged when it changes.
	why map[string]string
}

func (a *autoscaler) scan(ctx context.Context, now time.Time) {
	pods, err := a.pods.List(labels.Everything())
	if err != nil {
		return
	}
	if a.scaleUp(ctx, now, pods) {
		return
	}
	a.scaleDown(ctx, now, pods)
}

func active(p *corev1.Pod) bool {
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

func requests(p *corev1.Pod) (cpu, mem int64) {
	r := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
	return r.Cpu().MilliValue(), r.Memory().Value()
}

// free is each node's allocatable less its active pods' requests.
type free struct{ cpu, mem int64 }

func (a *autoscaler) freeOn(nodes []*corev1.Node, pods []*corev1.Pod) map[string]*free {
	out := map[string]*free{}
	for _, n := range nodes {
		out[n.Name] = &free{n.Status.Allocatable.Cpu().MilliValue(), n.Status.Allocatable.Memory().Value()}
	}
	for _, p := range pods {
		if f := out[p.Spec.NodeName]; f != nil && active(p) {
			c, m := requests(p)
			f.cpu, f.mem = f.cpu-c, f.mem-m
		}
	}
	return out
}

// fits: pod p could go on node n with f free (resources, required node
// affinity and node selector, taints); the scheduler has the last word.
func fits(p *corev1.Pod, n *corev1.Node, f *free) bool {
	c, m := requests(p)
	if c > f.cpu || m > f.mem || n.Spec.Unschedulable {
		return false
	}
	if ok, err := nodeaffinity.GetRequiredNodeAffinity(p).Match(n); err != nil || !ok {
		return false
	}
	for _, t := range n.Spec.Taints {
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		tolerated := false
		for _, tol := range p.Spec.Tolerations {
			if tol.ToleratesTaint(klog.Background(), &t, false) {
				tolerated = true
			}
		}
		if !tolerated {
			return false
		}
	}
	return true
}

func unschedulable(p *corev1.Pod) (string, bool) {
	if p.Spec.NodeName != "" || p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodPending {
		return "", false
	}
	// A pod the scheduler nominated (preemption) is placed by preemption.
	if p.Status.NominatedNodeName != "" {
		return "", false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return c.Message, true
		}
	}
	return "", false
}

// scaleUp: each unschedulable pod that no node can take as things stand
// (a node just added counts, before the scheduler has tried it) but a new
// node could is packed, first fit, onto new nodes; that many are made.
func (a *autoscaler) scaleUp(ctx context.Context, now time.Time, pods []*corev1.Pod) bool {
	nodes := a.group()
	room := a.freeOn(nodes, pods)
	var fresh []*free
	var freshFor [][]string
	for _, p := range pods {
		msg, ok := unschedulable(p)
		if !ok {
			continue
		}
		placed := false
		for _, n := range nodes {
			if f := room[n.Name]; fits(p, n, f) {
				c, m := requests(p)
				f.cpu, f.mem = f.cpu-c, f.mem-m
				placed = true
				break
			}
		}
		if placed {
			continue
		}
		tmpl := a.template(NodePrefix + "new")
		for i, f := range fresh {
			if fits(p, tmpl, f) {
				c, m := requests(p)
				f.cpu, f.mem = f.cpu-c, f.mem-m
				freshFor[i] = append(freshFor[i], p.Namespace+"/"+p.Name+" ("+msg+")")
				placed = true
				break
			}
		}
		if placed {
			continue
		}
		f := &free{tmpl.Status.Allocatable.Cpu().MilliValue(), tmpl.Status.Allocatable.Memory().Value()}
		if !fits(p, tmpl, f) {
			a.log.Printf("scale-up: pod %s/%s is unschedulable but fits no new node either (requests or affinity); no node for it", p.Namespace, p.Name)
			continue
		}
		c, m := requests(p)
		f.cpu, f.mem = f.cpu-c, f.mem-m
		fresh = append(fresh, f)
		freshFor = append(freshFor, []string{p.Namespace + "/" + p.Name + " (" + msg + ")"})
	}
	added := false
	for i := range fresh {
		if len(a.group()) >= a.o.maxNodes {
			a.log.Printf("scale-up: at --max-nodes=%d; pods left unschedulable: %v", a.o.maxNodes, freshFor[i])
			break
		}
		name, err := a.addNode(ctx)
		if err != nil {
			a.log.Printf("scale-up: %v", err)
			break
		}
		a.log.Printf("scale-up: rule 'pod unschedulable, fits a new node': added node %s for %v", name, freshFor[i])
		a.lastScaleUp, added = now, true
		// The lister learns of the node later; count it now.
		waitFor(func() bool { _, err := a.nodes.Get(name); return err == nil })
		nodes = a.group()
	}
	return added
}

func waitFor(cond func() bool) {
	for i := 0; i < 50 && !cond(); i++ {
		time.Sleep(20 * time.Millisecond)
	}
}

// needed says why node n must stay ("" when it is unneeded): a pod that
// cannot be moved, or requests at or above the threshold.
func (a *autoscaler) needed(n *corev1.Node, on []*corev1.Pod) string {
	var cpu, mem int64
	for _, p := range on {
		if why := immovable(p); why != "" {
			return "pod " + p.Namespace + "/" + p.Name + " cannot be moved: " + why
		}
		c, m := requests(p)
		cpu, mem = cpu+c, mem+m
	}
	ac, am := n.Status.Allocatable.Cpu().MilliValue(), n.Status.Allocatable.Memory().Value()
	if ac > 0 && float64(cpu)/float64(ac) >= a.o.threshold {
		return "cpu requests at or above the threshold"
	}
	if am > 0 && float64(mem)/float64(am) >= a.o.threshold {
		return "memory requests at or above the threshold"
	}
	return ""
}

// immovable is why the CA would not move pod p ("" if it would), by its
// FAQ's "What types of pods can prevent CA from removing a node?".
func immovable(p *corev1.Pod) string {
	switch p.Annotations[AnnotationSafeToEvict] {
	case "false":
		return AnnotationSafeToEvict + "=false"
	case "true":
		return ""
	}
	if metav1.GetControllerOf(p) == nil {
		return "not backed by a controller"
	}
	for _, v := range p.Spec.Volumes {
		if v.EmptyDir != nil || v.HostPath != nil {
			return "local storage (volume " + v.Name + ")"
		}
	}
	if p.Namespace == metav1.NamespaceSystem {
		return "a kube-system pod"
	}
	return ""
}

func ready(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// scaleDown finds the unneeded nodes, keeps their timers, and deletes the
// ones unneeded long enough: the empty ones in bulk, else one whose pods
// are first evicted.
func (a *autoscaler) scaleDown(ctx context.Context, now time.Time, pods []*corev1.Pod) {
	if a.why == nil {
		a.why = map[string]string{}
	}
	on := map[string][]*corev1.Pod{}
	for _, p := range pods {
		if p.Spec.NodeName != "" && active(p) {
			on[p.Spec.NodeName] = append(on[p.Spec.NodeName], p)
		}
	}
	nodes := a.group()
	unneeded := map[string]time.Time{}
	for _, n := range nodes {
		why := "not Ready"
		if ready(n) {
			why = a.needed(n, on[n.Name])
		}
		if prev, seen := a.why[n.Name]; !seen || why != prev {
			if why == "" {
				a.log.Printf("scale-down: node %s is unneeded (rule: requests under %.2f and every pod movable); timer starts", n.Name, a.o.threshold)
			} else if _, was := a.unneeded[n.Name]; was {
				a.log.Printf("scale-down: node %s is needed again (%s); timer reset", n.Name, why)
			}
			a.why[n.Name] = why
		}
		if why != "" {
			continue
		}
		since, ok := a.unneeded[n.Name]
		if !ok {
			since = now
		}
		unneeded[n.Name] = since
	}
	a.unneeded = unneeded
	if now.Sub(a.lastScaleUp) < a.o.delayAfterAdd {
		return // timers run, nothing goes
	}
	var ripe, ripeEmpty []string
	for name, since := range unneeded {
		if now.Sub(since) >= a.o.unneededTime {
			if len(on[name]) == 0 {
				ripeEmpty = append(ripeEmpty, name)
			} else {
				ripe = append(ripe, name)
			}
		}
	}
	// Longest unneeded first.
	byAge := func(s []string) {
		sort.Slice(s, func(i, j int) bool {
			return unneeded[s[i]].Before(unneeded[s[j]]) || unneeded[s[i]].Equal(unneeded[s[j]]) && s[i] < s[j]
		})
	}
	byAge(ripeEmpty)
	byAge(ripe)
	left := len(nodes)
	for i, name := range ripeEmpty {
		if i >= a.o.maxEmptyBulkDelete || left <= a.o.minNodes {
			return
		}
		a.removeNode(ctx, name, nil, now.Sub(unneeded[name]))
		left--
	}
	if len(ripeEmpty) == 0 && len(ripe) > 0 && left > a.o.minNodes {
		a.removeNode(ctx, ripe[0], on[ripe[0]], now.Sub(unneeded[ripe[0]]))
	}
}

// removeNode evicts the node's pods (Eviction API, as the CA drains) and
// deletes the node; the pods still bound to it are then deleted as the pod
// garbage collector would.
func (a *autoscaler) removeNode(ctx context.Context, name string, pods []*corev1.Pod, idle time.Duration) {
	for _, p := range pods {
		err := a.cs.CoreV1().Pods(p.Namespace).EvictV1(ctx, &policyv1.Eviction{
			ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}})
		if err != nil && !apierrors.IsNotFound(err) {
			a.log.Printf("scale-down: node %s: evicting %s/%s: %v; node kept", name, p.Namespace, p.Name, err)
			return
		}
		a.log.Printf("scale-down: node %s: evicted %s/%s", name, p.Namespace, p.Name)
	}
	if err := a.cs.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		a.log.Printf("scale-down: deleting node %s: %v", name, err)
		return
	}
	kind := "empty"
	if len(pods) > 0 {
		kind = "drained"
	}
	a.log.Printf("scale-down: rule 'unneeded for --scale-down-unneeded-time=%v': deleted %s node %s (unneeded %v)", a.o.unneededTime, kind, name, idle.Round(time.Second))
	delete(a.unneeded, name)
	delete(a.why, name)
	a.orphans(ctx, name)
}
