package kube

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/am/core"
)

func testOptions() Options {
	return Options{App: "app1", Namespace: "batch", Image: "ebb:test", AMAddress: "app1-am:7000", SecretName: "app1-secret",
		Owner:             OwnerRef{APIVersion: "v1", Kind: "Pod", Name: "app1-am", UID: "u-1"},
		PriorityClassName: "batch-low", PreemptionPolicy: PreemptNever}
}

var (
	gMap    = core.GroupInfo{Name: "map", MemoryMB: 4096, VCores: 2}
	gReduce = core.GroupInfo{Name: "reduce", MemoryMB: 8192, VCores: 1}
)

// describe renders a plan as one line per action, for the scripts.
func describe(a Actions) []string {
	var out []string
	for _, c := range a.Create {
		s := fmt.Sprintf("create %s group=%s", c.Name, c.Labels[LabelGroup])
		if len(c.PreferNodes) > 0 {
			s += " prefer=" + strings.Join(c.PreferNodes, ",")
		}
		if len(c.AvoidNodes) > 0 {
			s += " avoid=" + strings.Join(c.AvoidNodes, ",")
		}
		out = append(out, s)
	}
	for _, d := range a.Delete {
		out = append(out, "delete "+d)
	}
	for _, p := range a.Patch {
		var kv []string
		for k, v := range p.Labels {
			kv = append(kv, "label "+k+"="+v)
		}
		for k, v := range p.Annotations {
			kv = append(kv, k+"="+v)
		}
		sort.Strings(kv)
		out = append(out, "patch "+p.Pod+" "+strings.Join(kv, " "))
	}
	return out
}

func describeEvents(evs []core.Event) []string {
	var out []string
	for _, ev := range evs {
		switch e := ev.(type) {
		case core.WorkerGone:
			out = append(out, fmt.Sprintf("gone %s exited=%t preempted=%t evicted=%t oom=%d: %s", e.Worker, e.Exited, e.Preempted, e.Evicted, e.OOMKilledMB, e.Reason))
		case core.AttemptUpdated:
			out = append(out, fmt.Sprintf("attempt %s failed=%t used=%d", e.Update.AttemptID, e.Update.Result == core.AttemptFailed, e.Update.MemoryUsedMB))
		case core.NodesReported:
			var ns []string
			for _, n := range e.Nodes {
				ns = append(ns, fmt.Sprintf("%s:%d", n.ID, n.CapacityMB))
			}
			out = append(out, "nodes "+strings.Join(ns, " "))
		default:
			out = append(out, fmt.Sprintf("%T", ev))
		}
	}
	return out
}

// step is one line of a script: something happens to the Book, and what
// it answers (a plan's actions, or the core's events).
type step struct {
	do   func(b *Book) []string
	want []string
}

func want(g core.GroupInfo, n int, prefer, avoid []string) func(*Book) []string {
	return wants(core.WantWorkers{Group: g, Total: n, Prefer: prefer, Avoid: avoid})
}
func wants(a core.WantWorkers) func(*Book) []string {
	return func(b *Book) []string { b.Want(a); return describe(b.Plan()) }
}
func podEv(s PodStatus) func(*Book) []string {
	return func(b *Book) []string { return describeEvents(b.PodObserved(s)) }
}
func node(s NodeStatus) func(*Book) []string {
	return func(b *Book) []string { return describeEvents(b.NodeObserved(s)) }
}
func plan(b *Book) []string { return describe(b.Plan()) }

func running(name, node string) PodStatus {
	return PodStatus{Name: name, Phase: PhaseRunning, Node: node}
}

func runScript(t *testing.T, steps []step) *Book {
	t.Helper()
	b, err := NewBook(testOptions())
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range steps {
		got := s.do(b)
		if !slices.Equal(got, s.want) {
			t.Fatalf("step %d: got\n  %s\nwant\n  %s", i+1, strings.Join(got, "\n  "), strings.Join(s.want, "\n  "))
		}
	}
	return b
}

// Wants become pods, prefer becomes one preferred node per pod dealt
// round robin, avoid a NotIn on every new pod; a smaller want deletes the
// newest pods not yet running, unscheduled before bound; running pods are
// the core's to stop.
func TestBookPodsFollowWants(t *testing.T) {
	runScript(t, []step{
		{want(gMap, 3, []string{"n1", "n2"}, nil), []string{
			"create app1-w-1 group=map prefer=n1",
			"create app1-w-2 group=map prefer=n2",
			"create app1-w-3 group=map prefer=n1"}},
		// Nothing changed: nothing to do (the creates are in flight).
		{plan, nil},
		{podEv(PodStatus{Name: "app1-w-1", Phase: PhasePending}), nil},
		{podEv(PodStatus{Name: "app1-w-2", Phase: PhasePending, Node: "n2"}), nil},
		{podEv(running("app1-w-3", "n1")), nil},
		// Down to 2: one goes, and it is w-1, unscheduled, though w-2
		// (bound) is newer: the scheduler may be starting w-2 already.
		{want(gMap, 2, nil, nil), []string{"delete app1-w-1"}},
		// Down to 0: w-2 goes; w-3 runs, and it is the core's to stop.
		{want(gMap, 0, nil, nil), []string{"delete app1-w-2"}},
		// A second group while n2 drains: its pods avoid n2, and a
		// preferred node that drains is not preferred.
		{want(gReduce, 2, []string{"n2", ""}, []string{"n2"}), []string{
			"create app1-w-4 group=reduce avoid=n2",
			"create app1-w-5 group=reduce avoid=n2"}},
		// Among pods alike, the newest goes first.
		{want(gReduce, 1, nil, []string{"n2"}), []string{"delete app1-w-5"}},
	})
}

// A pod the scheduler bound to a node that has since started draining is
// deleted before it runs, and replaced.
func TestBookDeletesPodsBoundToDrainingNodes(t *testing.T) {
	runScript(t, []step{
		{want(gMap, 1, nil, nil), []string{"create app1-w-1 group=map"}},
		{podEv(PodStatus{Name: "app1-w-1", Phase: PhasePending, Node: "n3"}), nil},
		{want(gMap, 1, nil, []string{"n3"}), []string{"create app1-w-2 group=map avoid=n3", "delete app1-w-1"}},
		// The deleted pod's watch events change nothing: it never ran.
		{podEv(PodStatus{Name: "app1-w-1", Deleted: true}), nil},
		{plan, nil},
	})
}

// Workers on a draining node do not count toward their group: the core
// wants a new worker while they serve their outputs, and gets it.
func TestBookDrainingWorkersDoNotCount(t *testing.T) {
	runScript(t, []step{
		{want(gMap, 2, nil, nil), []string{"create app1-w-1 group=map", "create app1-w-2 group=map"}},
		{podEv(running("app1-w-1", "n1")), nil},
		{podEv(running("app1-w-2", "n2")), nil},
		// Every node drains, and an attempt needs a worker: one new pod,
		// away from the draining nodes; the running ones stay.
		{wants(core.WantWorkers{Group: gMap, Total: 1, Avoid: []string{"n1", "n2"}, Draining: []string{"n1", "n2"}}),
			[]string{"create app1-w-3 group=map avoid=n1,n2"}},
		{plan, nil},
	})
}

// A pod on a node that is only avoided (a slow node kept clear for
// speculative backups), not draining, still counts: the core counts its
// worker live, so a new pod for it would be surplus.
func TestBookPodsOnAvoidedNodesCount(t *testing.T) {
	runScript(t, []step{
		{want(gMap, 2, nil, nil), []string{"create app1-w-1 group=map", "create app1-w-2 group=map"}},
		{podEv(running("app1-w-1", "n1")), nil},
		{podEv(running("app1-w-2", "n2")), nil},
		// n1 is slow: new pods avoid it, and the group keeps its two.
		{want(gMap, 2, nil, []string{"n1"}), nil},
		// One more wanted: one new pod, away from n1.
		{want(gMap, 3, nil, []string{"n1"}), []string{"create app1-w-3 group=map avoid=n1"}},
		{plan, nil},
	})
}

// How pods that end become the core's events.
func TestBookLostWorkers(t *testing.T) {
	runScript(t, []step{
		{want(gMap, 6, nil, nil), []string{
			"create app1-w-1 group=map", "create app1-w-2 group=map", "create app1-w-3 group=map",
			"create app1-w-4 group=map", "create app1-w-5 group=map", "create app1-w-6 group=map"}},
		{podEv(running("app1-w-1", "n1")), nil},
		{podEv(running("app1-w-2", "n1")), nil},
		{podEv(running("app1-w-3", "n2")), nil},
		{podEv(running("app1-w-4", "n2")), nil},
		{podEv(running("app1-w-6", "n2")), nil},
		// Preempted by the scheduler: its DisruptionTarget condition comes
		// first, on a pod still running; nothing until the pod ends.
		{podEv(PodStatus{Name: "app1-w-1", Phase: PhaseRunning, Node: "n1", Disruption: DisruptionPreemption}), nil},
		// It ended (SIGTERM: exit 143, phase Failed): preempted, lost, no
		// failure counted.
		{podEv(PodStatus{Name: "app1-w-1", Phase: PhaseFailed, Node: "n1", Disruption: DisruptionPreemption,
			Terminated: &Terminated{Reason: "Error", ExitCode: 143}}), []string{
			"gone app1-w-1 exited=true preempted=true evicted=false oom=0: pod app1-w-1 was preempted by the scheduler for a higher-priority pod (PreemptionByScheduler)"}},
		// Evicted (a drain): counted apart, no failure either.
		{podEv(PodStatus{Name: "app1-w-2", Deleted: true, Node: "n1", Disruption: DisruptionEviction}), []string{
			"gone app1-w-2 exited=true preempted=false evicted=true oom=0: pod app1-w-2 was evicted through the Eviction API, e.g. a node drain (EvictionByEvictionAPI)"}},
		// Evicted by a kubelet that sets the pod's reason only.
		{podEv(PodStatus{Name: "app1-w-6", Phase: PhaseFailed, Node: "n2", Reason: ReasonEvicted, Message: "The node was low on resource: memory."}), []string{
			"gone app1-w-6 exited=true preempted=false evicted=true oom=0: pod app1-w-6 was evicted by the kubelet: The node was low on resource: memory."}},
		// OOMKilled: the core fails the attempts it ran on the memory
		// retry path, with the pod's limit as what they used.
		{podEv(PodStatus{Name: "app1-w-3", Phase: PhaseFailed, Node: "n2",
			Terminated: &Terminated{Reason: ReasonOOMKilled, ExitCode: 137}}), []string{
			"gone app1-w-3 exited=true preempted=false evicted=false oom=4096: pod app1-w-3 was OOMKilled at its 4096 MB limit"}},
		// Failed on its own: a lost worker like any other.
		{podEv(PodStatus{Name: "app1-w-4", Phase: PhaseFailed, Node: "n2", Terminated: &Terminated{Reason: "Error", ExitCode: 2}}), []string{
			"gone app1-w-4 exited=true preempted=false evicted=false oom=0: pod app1-w-4 failed: Error, exit code 2"}},
		// A pod that never ran is no worker: forgotten.
		{podEv(PodStatus{Name: "app1-w-5", Phase: PhaseFailed}), nil},
		// And the group still wants 6: all six are replaced.
		{plan, []string{
			"create app1-w-7 group=map", "create app1-w-8 group=map", "create app1-w-9 group=map",
			"create app1-w-10 group=map", "create app1-w-11 group=map", "create app1-w-12 group=map"}},
		// Someone else's pod: not ours, nothing.
		{podEv(PodStatus{Name: "other", Phase: PhaseFailed}), nil},
	})
}

// Stopped workers no longer count; a moved worker is relabelled; a worker
// holding output is marked safe-to-evict "false" while it does.
func TestBookStopMoveAndSafeToEvict(t *testing.T) {
	b := runScript(t, []step{
		{want(gMap, 2, nil, nil), []string{"create app1-w-1 group=map", "create app1-w-2 group=map"}},
		{podEv(running("app1-w-1", "n1")), nil},
		{podEv(running("app1-w-2", "n1")), nil},
		{func(b *Book) []string { b.SetHolding("app1-w-1", true); return plan(b) }, []string{
			"patch app1-w-1 cluster-autoscaler.kubernetes.io/safe-to-evict=false"}},
		{plan, nil},
		{func(b *Book) []string { b.SetHolding("app1-w-1", false); return plan(b) }, []string{
			"patch app1-w-1 cluster-autoscaler.kubernetes.io/safe-to-evict="}},
		{func(b *Book) []string { b.Moved("app1-w-2", gReduce); return plan(b) }, []string{
			"create app1-w-3 group=map",
			"patch app1-w-2 ebb.io/group=reduce label ebb.io/group=reduce"}},
		{func(b *Book) []string { b.Stopped("app1-w-1"); return plan(b) }, []string{"create app1-w-4 group=map"}},
		// The stopped worker exits: the core hears it is gone.
		{podEv(PodStatus{Name: "app1-w-1", Phase: PhaseSucceeded, Node: "n1", Terminated: &Terminated{Reason: "Completed"}}), []string{
			"gone app1-w-1 exited=true preempted=false evicted=false oom=0: pod app1-w-1 exited"}},
	})
	if n := b.Counted("reduce"); n != 1 {
		t.Errorf("reduce counts %d pods, want 1 (the moved one)", n)
	}
}

// Nodes added, resized and removed become the core's node list; the
// workers of a removed node are lost at once.
func TestBookNodes(t *testing.T) {
	runScript(t, []step{
		{node(NodeStatus{Name: "n2", AllocatableMB: 32768}), []string{"nodes n2:32768"}},
		{node(NodeStatus{Name: "n1", AllocatableMB: 65536}), []string{"nodes n1:65536 n2:32768"}},
		// The same again (a status heartbeat): nothing.
		{node(NodeStatus{Name: "n1", AllocatableMB: 65536}), nil},
		// Resized.
		{node(NodeStatus{Name: "n1", AllocatableMB: 61440}), []string{"nodes n1:61440 n2:32768"}},
		{want(gMap, 2, nil, nil), []string{"create app1-w-1 group=map", "create app1-w-2 group=map"}},
		{podEv(running("app1-w-1", "n2")), nil},
		{podEv(PodStatus{Name: "app1-w-2", Phase: PhasePending, Node: "n2"}), nil},
		{node(NodeStatus{Name: "n2", Deleted: true}), []string{
			"gone app1-w-1 exited=true preempted=false evicted=true oom=0: its node n2 was removed",
			"nodes n1:61440"}},
		// Both pods were forgotten: the later watch events change
		// nothing, and the group gets two new pods.
		{podEv(PodStatus{Name: "app1-w-1", Deleted: true, Disruption: DisruptionPodGC}), nil},
		{plan, []string{"create app1-w-3 group=map", "create app1-w-4 group=map"}},
	})
}

// The scheduler's message for a pod it cannot place is the group's until
// the pod is bound.
func TestBookUnschedulable(t *testing.T) {
	b := runScript(t, []step{
		{want(gMap, 1, nil, nil), []string{"create app1-w-1 group=map"}},
		{podEv(PodStatus{Name: "app1-w-1", Phase: PhasePending, Unschedulable: "0/3 nodes are available: 3 Insufficient memory."}), nil},
	})
	if got := b.Unschedulable()["map"]; got != "0/3 nodes are available: 3 Insufficient memory." {
		t.Errorf("unschedulable message %q", got)
	}
	b.PodObserved(PodStatus{Name: "app1-w-1", Phase: PhasePending, Node: "n1"})
	if got := b.Unschedulable(); len(got) != 0 {
		t.Errorf("a bound pod still reported unschedulable: %v", got)
	}
}

// The whole spec of a worker pod.
func TestBookPodSpec(t *testing.T) {
	b, err := NewBook(testOptions())
	if err != nil {
		t.Fatal(err)
	}
	g := core.GroupInfo{Name: "Map Group/1", MemoryMB: 4096, VCores: 2, Env: map[string]string{"X": "1"}}
	b.Want(core.WantWorkers{Group: g, Total: 1, Prefer: []string{"n1"}, Avoid: []string{"n9"}})
	a := b.Plan()
	if len(a.Create) != 1 {
		t.Fatalf("creates %d pods, want 1", len(a.Create))
	}
	s := a.Create[0]
	// requests = limits: 4096 MB, 2 vcores = 2000 millicpu.
	if s.MemoryMB != 4096 || s.MilliCPU != 2000 {
		t.Errorf("resources %d MB, %d millicpu; want 4096 MB, 2000", s.MemoryMB, s.MilliCPU)
	}
	if s.Labels[LabelApp] != "app1" || s.Labels[LabelRole] != "worker" || s.Annotations[AnnotationGroup] != "Map Group/1" {
		t.Errorf("labels %v annotations %v", s.Labels, s.Annotations)
	}
	// "Map Group/1" is no label value: a hash of it stands in.
	if l := s.Labels[LabelGroup]; !strings.HasPrefix(l, "g-") || len(l) != 18 {
		t.Errorf("group label %q, want g- and 16 hex digits", l)
	}
	if s.Owner.UID != "u-1" || s.Namespace != "batch" || s.PriorityClassName != "batch-low" || s.PreemptionPolicy != PreemptNever {
		t.Errorf("owner %v namespace %q priority %q/%q", s.Owner, s.Namespace, s.PriorityClassName, s.PreemptionPolicy)
	}
	if !slices.Equal(s.PreferNodes, []string{"n1"}) || !slices.Equal(s.AvoidNodes, []string{"n9"}) {
		t.Errorf("prefer %v avoid %v", s.PreferNodes, s.AvoidNodes)
	}
	if s.SecretEnv["EBB_SECRET"] != (SecretKey{Secret: "app1-secret", Key: "secret"}) || s.Env["X"] != "1" {
		t.Errorf("env %v secret env %v", s.Env, s.SecretEnv)
	}
	args := strings.Join(s.Args, " ")
	for _, w := range []string{"--worker-id app1-w-1", "--group Map Group/1", "--memory-mb 4096", "--vcores 2", "--node $(NODE_NAME)", "--advertise-host $(POD_IP)", "--work-dir /ebb/work"} {
		if !strings.Contains(args, w) {
			t.Errorf("args %q lack %q", args, w)
		}
	}
}

// Bad options are refused, each naming what is wrong.
func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		change func(*Options)
		want   string
	}{
		{func(o *Options) { o.App = "App_1" }, `application name "App_1"`},
		{func(o *Options) { o.App = strings.Repeat("a", 41) }, "at most 40 characters"},
		{func(o *Options) { o.Namespace = "" }, "namespace: empty"},
		{func(o *Options) { o.Image = "" }, "worker image: empty"},
		{func(o *Options) { o.Owner.UID = "" }, "the AM pod's name and uid"},
		{func(o *Options) { o.PullPolicy = "Sometimes" }, `image pull policy "Sometimes"`},
		{func(o *Options) { o.PreemptionPolicy = "Always" }, `preemption policy "Always": want PreemptLowerPriority or Never`},
	} {
		o := testOptions()
		tc.change(&o)
		_, err := NewBook(o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want one containing %q", err, tc.want)
		}
	}
}
