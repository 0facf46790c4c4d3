package smoke

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// A pod runs as a local process: Running (with the pod IP 127.0.0.1 and a
// running container), then Succeeded with exit code 0; its log is in its
// directory and comes back through the apiserver (kubectl logs' path).
func TestPodRunsToSuccessWithItsLog(t *testing.T) {
	c := start(t)
	p := pod("hi", `echo hi from $POD_NAME at $POD_IP; sleep 1`)
	p.Spec.Containers[0].Env = []corev1.EnvVar{
		{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
	}
	c.create(t, p)
	running := c.phase(t, "hi", corev1.PodRunning, 30*time.Second)
	if running.Status.PodIP != "127.0.0.1" || len(running.Status.ContainerStatuses) != 1 ||
		running.Status.ContainerStatuses[0].State.Running == nil {
		t.Fatalf("running pod's status: podIP %q, containers %+v", running.Status.PodIP, running.Status.ContainerStatuses)
	}
	done := c.phase(t, "hi", corev1.PodSucceeded, 30*time.Second)
	term := done.Status.ContainerStatuses[0].State.Terminated
	if term == nil || term.ExitCode != 0 || term.Reason != "Completed" {
		t.Fatalf("terminated state %+v, want exit 0, Completed", term)
	}
	want := "hi from hi at 127.0.0.1\n"
	b, err := os.ReadFile(filepath.Join(c.env["EBB_KUBE_PODS"], c.ns+"_hi", "log"))
	if err != nil || string(b) != want {
		t.Fatalf("log file: %q, %v; want %q", b, err, want)
	}
	got, err := c.cs.CoreV1().Pods(c.ns).GetLogs("hi", &corev1.PodLogOptions{}).DoRaw(context.Background())
	if err != nil || string(got) != want {
		t.Fatalf("logs through the apiserver: %q, %v; want %q", got, err, want)
	}
}

// An OOM kill injected through the control endpoint: exit 137, reason
// OOMKilled, phase Failed.
func TestOOMKillInjected(t *testing.T) {
	c := start(t)
	c.create(t, pod("big", "sleep 3600"))
	c.phase(t, "big", corev1.PodRunning, 30*time.Second)
	c.fault(t, "big", "oom")
	p := c.phase(t, "big", corev1.PodFailed, 30*time.Second)
	term := p.Status.ContainerStatuses[0].State.Terminated
	if term == nil || term.Reason != "OOMKilled" || term.ExitCode != 137 {
		t.Fatalf("terminated state %+v, want OOMKilled, exit 137", term)
	}
}

// An eviction by the kubelet: phase Failed, reason Evicted, a
// DisruptionTarget condition with reason TerminationByKubelet.
func TestEvictionInjected(t *testing.T) {
	c := start(t)
	c.create(t, pod("evictee", "sleep 3600"))
	c.phase(t, "evictee", corev1.PodRunning, 30*time.Second)
	c.fault(t, "evictee", "evict")
	p := c.phase(t, "evictee", corev1.PodFailed, 30*time.Second)
	if p.Status.Reason != "Evicted" || !hasCondition(p, corev1.DisruptionTarget, "TerminationByKubelet") {
		t.Fatalf("evicted pod: reason %q, conditions %+v", p.Status.Reason, p.Status.Conditions)
	}
}

func hasCondition(p *corev1.Pod, typ corev1.PodConditionType, reason string) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == typ && c.Status == corev1.ConditionTrue && c.Reason == reason {
			return true
		}
	}
	return false
}

// A pod no node can take (it avoids every node there is, as ebb's workers
// avoid draining nodes) makes testca add a node, where it runs; once it is
// deleted the node is empty and testca removes it, and only it.
func TestUnschedulableAddsANodeThatGoesWhenEmpty(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	nodes, err := c.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range nodes.Items {
		names = append(names, n.Name)
	}
	// An anchor on each node there is: a pod with no controller keeps its
	// node (the CA's rule), so the added node is the only one that can go.
	for i, n := range names {
		a := pod(fmt.Sprintf("anchor-%d", i), "sleep 3600")
		a.Spec.NodeSelector = map[string]string{corev1.LabelHostname: n}
		c.create(t, a)
	}
	p := pod("elsewhere", "sleep 3600")
	p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpNotIn, Values: names}},
		}}}}}
	c.create(t, p)
	running := c.phase(t, "elsewhere", corev1.PodRunning, 60*time.Second)
	node := running.Spec.NodeName
	if slices.Contains(names, node) {
		t.Fatalf("pod runs on %s, one of the nodes it avoids %v", node, names)
	}
	t.Logf("testca added node %s (nodes before: %v)", node, names)
	if err := c.cs.CoreV1().Pods(c.ns).Delete(ctx, "elsewhere", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.deleted(t, "elsewhere", 40*time.Second)
	// start.sh's testca: 5 s unneeded, 5 s after a scale-up, 1 s scans.
	c.until(t, "node "+node+" removed", 90*time.Second, func() (bool, error) {
		_, err := c.cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	for _, n := range names {
		if _, err := c.cs.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{}); err != nil {
			t.Errorf("node %s, which holds an anchor pod, was removed: %v", n, err)
		}
	}
}

// A pod of a higher PriorityClass that fits its node only without a
// lower one preempts it: the scheduler marks the victim (DisruptionTarget,
// PreemptionByScheduler) and deletes it; testkubelet sends it SIGTERM,
// removes it, and the preemptor runs on that node.
func TestHigherPriorityPreempts(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	for name, v := range map[string]int32{c.ns + "-low": 10, c.ns + "-high": 1000} {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: v}
		if _, err := c.cs.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.cs.SchedulingV1().PriorityClasses().Delete(ctx, name, metav1.DeleteOptions{}) })
	}
	node, free := c.roomiest(t)
	// Each fits the node alone, not both: half its free cpu and a bit.
	half := free/2 + 100
	req := corev1.ResourceList{corev1.ResourceCPU: *mustMilli(half), corev1.ResourceMemory: mustQ("64Mi")}
	victim := pod("victim", `trap 'echo got TERM; exit 0' TERM; sleep 3600 & wait`)
	victim.Spec.PriorityClassName = c.ns + "-low"
	victim.Spec.NodeSelector = map[string]string{corev1.LabelHostname: node}
	victim.Spec.Containers[0].Resources.Requests = req
	c.create(t, victim)
	c.phase(t, "victim", corev1.PodRunning, 30*time.Second)
	w, err := c.cs.CoreV1().Pods(c.ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=victim"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	high := pod("preemptor", "sleep 3600")
	high.Spec.PriorityClassName = c.ns + "-high"
	high.Spec.NodeSelector = map[string]string{corev1.LabelHostname: node}
	high.Spec.Containers[0].Resources.Requests = req
	c.create(t, high)
	var last *corev1.Pod
	deadline := time.After(60 * time.Second)
	for gone := false; !gone; {
		select {
		case ev := <-w.ResultChan():
			if p, ok := ev.Object.(*corev1.Pod); ok {
				last = p
			}
			gone = ev.Type == "DELETED"
		case <-deadline:
			t.Fatalf("the victim was not deleted within 60 s; last seen %+v", last)
		}
	}
	if !hasCondition(last, corev1.DisruptionTarget, "PreemptionByScheduler") {
		t.Fatalf("victim's last conditions %+v, want DisruptionTarget PreemptionByScheduler", last.Status.Conditions)
	}
	p := c.phase(t, "preemptor", corev1.PodRunning, 60*time.Second)
	if p.Spec.NodeName != node {
		t.Fatalf("preemptor on %s, want %s", p.Spec.NodeName, node)
	}
	b, _ := os.ReadFile(filepath.Join(c.env["EBB_KUBE_PODS"], c.ns+"_victim", "log"))
	if !strings.Contains(string(b), "got TERM") {
		t.Fatalf("victim's log %q: it was not sent SIGTERM", b)
	}
}

// roomiest is the Ready node with the most cpu not requested, and that.
func (c *cluster) roomiest(t *testing.T) (string, int64) {
	t.Helper()
	ctx := context.Background()
	nodes, err := c.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods, err := c.cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	best, bestFree := "", int64(-1)
	for _, n := range nodes.Items {
		free := n.Status.Allocatable.Cpu().MilliValue()
		for _, p := range pods.Items {
			if p.Spec.NodeName == n.Name && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				for _, ct := range p.Spec.Containers {
					free -= ct.Resources.Requests.Cpu().MilliValue()
				}
			}
		}
		if free > bestFree {
			best, bestFree = n.Name, free
		}
	}
	if best == "" || bestFree < 1000 {
		t.Fatalf("no node with a cpu free (best %q, %dm)", best, bestFree)
	}
	return best, bestFree
}

// A pod's service-account token is real and RBAC applies to it: with the
// kubeconfig testkubelet wrote for the pod, listing pods is forbidden
// until a Role allows it.
func TestPodCredentialsAreSubjectToRBAC(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	c.create(t, pod("client", `test -s "$KUBECONFIG" && sleep 3600`))
	c.phase(t, "client", corev1.PodRunning, 30*time.Second)
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(c.env["EBB_KUBE_PODS"], c.ns+"_client", "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	as, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := as.CoreV1().Pods(c.ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("listing pods as the pod's service account: %v, want Forbidden", err)
	}
	c.allowListPods(t)
	c.until(t, "the Role to apply", 10*time.Second, func() (bool, error) {
		_, err := as.CoreV1().Pods(c.ns).List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})
}

// A killed container of a pod with restartPolicy Always is started again
// (as the AM pod is after a kill): restartCount 1, the last state
// terminated by SIGKILL, the log of both runs.
func TestKilledContainerRestarts(t *testing.T) {
	c := start(t)
	p := pod("again", "echo started; sleep 3600")
	p.Spec.RestartPolicy = corev1.RestartPolicyAlways
	c.create(t, p)
	c.phase(t, "again", corev1.PodRunning, 30*time.Second)
	c.fault(t, "again", "kill")
	c.until(t, "a restart", 30*time.Second, func() (bool, error) {
		q := c.get(t, "again")
		cs := q.Status.ContainerStatuses
		return q.Status.Phase == corev1.PodRunning && len(cs) == 1 && cs[0].RestartCount == 1 && cs[0].State.Running != nil, nil
	})
	last := c.get(t, "again").Status.ContainerStatuses[0].LastTerminationState.Terminated
	if last == nil || last.ExitCode != 137 {
		t.Fatalf("last state %+v, want terminated with exit 137", last)
	}
	c.until(t, "the log of two runs", 10*time.Second, func() (bool, error) {
		b, err := os.ReadFile(filepath.Join(c.env["EBB_KUBE_PODS"], c.ns+"_again", "log"))
		return string(b) == "started\nstarted\n", err
	})
}
