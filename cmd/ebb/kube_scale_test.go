package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ebb-am/ebb/am/kube"
)

// kubeScaleKeys turn on ebb's autoscaler with the short intervals of the
// local world's burst-and-tail test (autoscale_local_test.go), on a
// Kubernetes cluster:
//   - the scale-out asks at once for the workers the queued memory fills
//     (num.initial.containers 0, the default) and waits up to 60 s for them
//     (testca must add nodes first; it ends early once all are up);
//   - a scale-in empties every node it may (min.hosts 0: the AM is a pod
//     of its own, not a worker; a decrement of 10 nodes), so it also
//     drains the node whose worker holds the output the waiting tail
//     needs; the workers of a drained node stop as soon as they hold
//     nothing a running DAG needs (wait.dag.finished false: with its
//     default they would wait for the DAG's end, and the test wants nodes
//     emptied mid-DAG);
//   - an idle worker is never let go for idleness within the test (10
//     min), so a node empties only because the scale-in emptied it.
var kubeScaleKeys = []string{
	"mr3.enable.auto.scaling=true",
	"mr3.check.memory.usage.event.interval.secs=1",
	"mr3.memory.usage.check.window.length.secs=2",
	"mr3.auto.scale.out.grace.period.secs=60",
	"mr3.auto.scale.in.delay.after.scale.out.secs=1",
	"mr3.auto.scale.in.grace.period.secs=2",
	"mr3.auto.scale.in.min.hosts=0",
	"mr3.auto.scale.in.num.decrement.hosts=10",
	"mr3.auto.scale.in.wait.dag.finished=false",
	"mr3.container.idle.timeout.ms=600000",
	// mid starts after the whole burst (as in the local test), so the
	// burst's outputs are all needed until mid has succeeded.
	"ebb.slowstart.completed.producers=1",
}

// TestKubeScaleOutAndInAcrossNodes: a burst needs more workers than the
// cluster's nodes hold, so worker pods go Unschedulable and testca adds
// nodes; the load then falls to one task, ebb's scale-in empties whole
// nodes, and testca removes them by its rules (the short times start.sh
// gives it). A worker holding an output the last vertex still needs keeps
// running on its drained node, carries safe-to-evict "false", and its node
// stays. The DAG succeeds with exact counts, 0 failed attempts and no
// task run twice.
//
// The DAG: burst (P tasks, one worker each, held at a barrier until all P
// run at once) -> mid (two reducers, one worker each, held until both
// run, so they are on two workers) -> tail (one task that waits for the
// test's word, then concatenates mid's counts into the output). The tail
// runs on at most one of mid's workers; the other only holds an output
// the tail needs. The test gives the word once it has seen that worker's
// node drained and a node that held burst workers removed by testca, so
// the tail's wait is a condition, not a sleep.
func TestKubeScaleOutAndInAcrossNodes(t *testing.T) {
	k := newKubeTest(t)
	ctx := context.Background()
	start := time.Now()
	perNode, startNodes := k.nodeShape()
	// A burst that fills the nodes the cluster starts with, and one node
	// more: with the AM pod on one of them, at least two nodes are added.
	p := perNode * (startNodes + 1)
	input, err := filepath.Abs("../../examples/wordcount-input.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs") // one file per attempt started
	if err := os.Mkdir(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	release := filepath.Join(dir, "release")
	// waitFor is a shell loop with a deadline (3 min) for a condition.
	waitFor := func(cond string) string {
		return fmt.Sprintf("n=0; until %s; do n=$((n+1)); [ $n -gt 1800 ] && exit 3; sleep 0.1; done", cond)
	}
	barrier := func(v string, n int) string {
		return waitFor(fmt.Sprintf(`[ $(ls %s | grep -c ^%s) -ge %d ]`, runs, v, n))
	}
	// Each attempt leaves runs/<vertex>.<attempt id> holding its pod's
	// name (testkubelet sets HOSTNAME; tasks inherit the worker's
	// environment).
	record := fmt.Sprintf(`echo $HOSTNAME > %s/$EBB_VERTEX.$EBB_ATTEMPT_ID`, runs)
	spec := fmt.Sprintf(`name: scale
containerGroup: {name: scale, workerMemoryMB: 2048, workerVCores: 1}
vertices:
  - name: burst
    command: [sh, -c, '%[1]s && %[3]s && exec %[2]s task wc-map']
    parallelism: %[4]d
    memoryMB: 2048
    inputs: [%[5]q]
  - name: mid
    command: [sh, -c, '%[1]s && %[6]s && exec %[2]s task wc-reduce']
    parallelism: 2
    memoryMB: 2048
  - name: tail
    command: [sh, -c, '%[1]s && %[7]s && exec %[2]s task cat']
    parallelism: 1
    memoryMB: 2048
edges:
  - {from: burst, to: mid, type: scatter-gather}
  - {from: mid, to: tail, type: scatter-gather}
`, record, ebbBin, barrier("burst", p), p, input, barrier("mid", 2), waitFor("[ -e "+release+" ]"))
	specPath := filepath.Join(dir, "scale.yaml")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	args := []string{specPath, "--output", out}
	for _, kv := range kubeScaleKeys {
		args = append(args, "--set", kv)
	}
	sub := k.submitInBackground(args...)
	done := sub.done

	// Until the tail waits, a worker holding mid's output for it is on a
	// drained node, and testca removed a node that held workers.
	w := &scaleWatch{k: k, runs: runs, since: start, hosted: map[string]bool{}}
	var holder *corev1.Pod
	tasks := map[string]int{"burst": p, "mid": 2, "tail": 1}
	rerun := ""
	ok := w.until(done, 2*time.Minute, func() bool {
		for v, n := range tasks {
			if got := w.pods(v); len(got) > n {
				rerun = fmt.Sprintf("%s: %d attempts started for %d tasks, on %v", v, len(got), n, got)
				return true
			}
		}
		tail := w.pods("tail")
		if len(w.removed()) == 0 || len(tail) == 0 {
			return false
		}
		for _, name := range w.pods("mid") {
			if name == tail[0] {
				continue
			}
			p, err := k.cs.CoreV1().Pods(k.ns).Get(ctx, name, metav1.GetOptions{})
			if err == nil && w.draining(p.Spec.NodeName) {
				holder = p
				return true
			}
		}
		return false
	})
	if !ok || rerun != "" {
		_ = os.WriteFile(release, nil, 0o644) // let the DAG end
		k.waitSubmit(done)
		if rerun != "" {
			t.Fatalf("a task ran again (an output it had made was lost) before the tail was let go: %s\nAM log:\n%s", rerun, k.amLog())
		}
		t.Fatalf("while the tail (%v) waited, no worker holding mid's output (%v) was on a drained node, or no node that held workers was removed; workers ran on %v, testca removed %v:\n%s\nAM log:\n%s\ntestca:\n%s",
			w.pods("tail"), w.pods("mid"), w.nodes(), keysOfBool(w.removed()), sub.text, k.amLog(), w.testcaLines())
	}
	if v := holder.Annotations[kube.AnnotationSafeToEvict]; v != "false" {
		t.Errorf("worker %s holds mid's output, which the waiting tail needs, and has %s=%q, want \"false\"", holder.Name, kube.AnnotationSafeToEvict, v)
	}
	removedAtGate := w.removed()
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !k.waitSubmit(done) {
		t.Fatalf("the DAG did not end within 2 min of the tail's word (its pods are deleted); AM log:\n%s", k.amLog())
	}
	log := k.amLog()
	if sub.err != nil || !strings.Contains(log, "SUCCEEDED") || !strings.Contains(log, "0 failed attempts") {
		t.Fatalf("ebb submit: %v\n%s\nAM log:\n%s", sub.err, sub.text, log)
	}
	sameCounts(t, readCounts(t, out), countWords(t, input))
	// No attempt ran twice: an output that vanished would have re-run its
	// task (and a lost worker its attempts).
	for v, want := range tasks {
		if n := len(w.pods(v)); n != want {
			t.Errorf("%d %s attempts started, want %d (one per task)", n, v, want)
		}
	}
	added := w.added()
	if len(added) == 0 {
		t.Errorf("testca added no node for this test's pods; the workers ran on %v", w.nodes())
	}
	// None of the test's pods is left on a node testca removed, and the
	// holder's node was not one of them.
	pods, err := k.cs.CoreV1().Pods(k.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pod := range pods.Items {
		if removedAtGate[pod.Spec.NodeName] && pod.DeletionTimestamp == nil && podActive(&pod) {
			t.Errorf("pod %s is still on node %s, which testca removed", pod.Name, pod.Spec.NodeName)
		}
	}
	if removedAtGate[holder.Spec.NodeName] {
		t.Errorf("node %s, where %s held mid's output for the tail, was removed", holder.Spec.NodeName, holder.Name)
	}
	t.Logf("workers ran on %v; testca added %v and, while the tail waited, removed %v; %s held mid's output on drained node %s; %s",
		w.nodes(), added, keysOfBool(removedAtGate), holder.Name, holder.Spec.NodeName, time.Since(start).Round(time.Second))
	t.Logf("testca:\n%s", w.testcaLines())
	t.Logf("ebb submit printed:\n%s", sub.text)
}

// waitSubmit waits, up to 2 min, for `ebb submit` to return; past that
// it deletes the application's pods (the AM's first: ebb submit then
// returns) and says false.
func (k *kubeTest) waitSubmit(done chan struct{}) bool {
	select {
	case <-done:
		return true
	case <-time.After(2 * time.Minute):
	}
	_ = k.cs.CoreV1().Pods(k.ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "ebb.io/role!=worker"})
	_ = k.cs.CoreV1().Pods(k.ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
	<-done
	return false
}

func podActive(p *corev1.Pod) bool {
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// nodeShape is how many of the test's workers (1 cpu, 2 GiB) a node of
// the cluster holds, and how many nodes the cluster started with (its
// --min-nodes).
func (k *kubeTest) nodeShape() (perNode, nodes int) {
	k.t.Helper()
	b, err := os.ReadFile(filepath.Join(k.dir, "kube.env"))
	if err != nil {
		k.t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "EBB_KUBE_NODES="); ok {
			nodes, err = strconv.Atoi(v)
			if err != nil {
				k.t.Fatal(err)
			}
		}
	}
	ns, err := k.cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: "ebb.io/test-node=true"})
	if err != nil || len(ns.Items) == 0 {
		k.t.Fatalf("the test cluster's nodes: %v (%d)", err, len(ns.Items))
	}
	a := ns.Items[0].Status.Allocatable
	perNode = int(min(a.Cpu().MilliValue()/1000, a.Memory().Value()/(2048<<20)))
	return perNode, nodes
}

// scaleWatch follows the test's pods and testca's log.
type scaleWatch struct {
	k     *kubeTest
	runs  string
	since time.Time
	// hosted: the nodes the test's worker pods were seen bound to.
	hosted map[string]bool
}

// until polls, every 200 ms up to the deadline, the nodes the test's
// workers are bound to, until cond holds (true) or the DAG ended or the
// deadline passed (false).
func (w *scaleWatch) until(done chan struct{}, limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		l, err := w.k.cs.CoreV1().Pods(w.k.ns).List(context.Background(), metav1.ListOptions{LabelSelector: "ebb.io/role=worker"})
		if err != nil {
			w.k.t.Fatal(err)
		}
		for _, p := range l.Items {
			if p.Spec.NodeName != "" {
				w.hosted[p.Spec.NodeName] = true
			}
		}
		if cond() {
			return true
		}
		select {
		case <-done:
			return false
		case <-time.After(200 * time.Millisecond):
		}
	}
	return false
}

func (w *scaleWatch) nodes() []string { return keysOfBool(w.hosted) }

// draining: the AM's log says it drains node.
func (w *scaleWatch) draining(node string) bool {
	return strings.Contains(w.k.amLog(), "node "+node+" draining")
}

var (
	testcaAdded   = regexp.MustCompile(`added node (\S+) for \[(.*)\]`)
	testcaRemoved = regexp.MustCompile(`deleted empty node (\S+)`)
)

// testcaLines are the lines of testca's log since the test began that
// name the test's pods or the nodes its workers ran on.
func (w *scaleWatch) testcaLines() string {
	b, err := os.ReadFile(filepath.Join(w.k.dir, "testca.log"))
	if err != nil {
		w.k.t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		// "testca: 2006/01/02 15:04:05.000000 ..." (harness.Logger, in UTC)
		f := strings.Fields(l)
		if len(f) < 3 {
			continue
		}
		at, err := time.Parse("2006/01/02 15:04:05.000000", f[1]+" "+f[2]) // LUTC
		if err != nil || at.Before(w.since.Truncate(time.Second)) {
			continue
		}
		mine := strings.Contains(l, w.k.ns+"/")
		for n := range w.hosted {
			mine = mine || strings.Contains(l, n+" ") || strings.HasSuffix(l, n)
		}
		if mine {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// added: the nodes testca added for the test's pods.
func (w *scaleWatch) added() []string {
	var out []string
	for _, l := range strings.Split(w.testcaLines(), "\n") {
		if m := testcaAdded.FindStringSubmatch(l); m != nil && strings.Contains(m[2], w.k.ns+"/") {
			out = append(out, m[1])
		}
	}
	return out
}

// removed: the nodes that held the test's workers and that testca
// deleted, as empty nodes.
func (w *scaleWatch) removed() map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(w.testcaLines(), "\n") {
		if m := testcaRemoved.FindStringSubmatch(l); m != nil && w.hosted[m[1]] {
			out[m[1]] = true
		}
	}
	return out
}

// pods are the pods that ran vertex v's attempts, one per attempt
// started (from the files the attempts leave in runs/).
func (w *scaleWatch) pods(v string) []string {
	ms, _ := filepath.Glob(filepath.Join(w.runs, v+".*"))
	var out []string
	for _, m := range ms {
		if b, err := os.ReadFile(m); err == nil && len(b) > 0 {
			out = append(out, strings.TrimSpace(string(b)))
		}
	}
	return out
}
