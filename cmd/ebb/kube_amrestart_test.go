package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ebb-am/ebb/am/recovery"
)

// resumeDAG: a (2 tasks) writes one line per consumer partition; b (2
// tasks, 6 s each) passes its inputs on; c (the sink) sorts them. A worker
// holds one task at a time, so b runs on two worker pods. Every
// attempt first appends "<vertex><task> <attempt>" to the runs file
// (%[1]s; the pods share the host's file system), so the test counts how
// often each task ran. The result holds each of a's lines twice.
const resumeDAG = `
name: resume
containerGroup: {name: g, workerMemoryMB: 128}
vertices:
  - name: a
    command: 'echo $EBB_VERTEX$EBB_TASK_INDEX $EBB_ATTEMPT_ID >> %[1]s && mkdir -p $EBB_OUTPUT_DIR/b && for p in 0 1; do echo a$EBB_TASK_INDEX > $EBB_OUTPUT_DIR/b/$p; done'
    parallelism: 2
    memoryMB: 128
  - name: b
    command: 'echo $EBB_VERTEX$EBB_TASK_INDEX $EBB_ATTEMPT_ID >> %[1]s && sleep 6 && mkdir -p $EBB_OUTPUT_DIR/c && cat $EBB_INPUT_DIR/a/* > $EBB_OUTPUT_DIR/c/0'
    parallelism: 2
    memoryMB: 128
  - name: c
    command: 'echo $EBB_VERTEX$EBB_TASK_INDEX $EBB_ATTEMPT_ID >> %[1]s && cat $EBB_INPUT_DIR/b/* | sort > $EBB_OUTPUT_DIR/result'
    parallelism: 1
    memoryMB: 128
edges:
  - {from: a, to: b, type: scatter-gather}
  - {from: b, to: c, type: scatter-gather}
`

// TestKubeAMKilledMidDAGResumes: kill -9 of the AM's process once a's
// tasks are in the recovery log and b's run. testkubelet restarts the
// container in its pod (restartPolicy OnFailure: same pod, same IP, the
// same emptyDir); the AM reads its log there, adopts the worker pods by
// label, its workers register again in place with a's outputs and b's
// running attempts, and the DAG finishes: each task ran exactly once, no
// attempt failed, no worker pod was made after the kill, the output is
// whole.
func TestKubeAMKilledMidDAGResumes(t *testing.T) {
	k := newKubeTest(t)
	start := time.Now()
	runs := filepath.Join(t.TempDir(), "runs")
	spec := filepath.Join(t.TempDir(), "resume.yaml")
	if err := os.WriteFile(spec, []byte(fmt.Sprintf(resumeDAG, runs)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	sub := k.submitInBackground(spec, "--output", out)
	done := sub.done
	am := k.waitAMPod(done)
	recLog := filepath.Join(k.dir, "pods", k.ns+"_"+am, "volumes", "state", "recovery")
	k.waitFor("a's 2 tasks in the recovery log and b's 2 attempts started", done, func() bool {
		r := taskRuns(runs)
		return recordedLocal(recLog, "a") == 2 && len(r["b0"])+len(r["b1"]) == 2
	})
	workersBefore := k.workerPods()
	k.fault(am, "kill")
	t.Logf("kill -9 of the AM's process at %s, workers %v", time.Since(start).Round(100*time.Millisecond), workersBefore)
	// No hang: the resumed DAG ends, or the test fails with the AM's log
	// (an AM whose DAG failed after the restart would be restarted for
	// ever by restartPolicy OnFailure).
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		k.t.Fatalf("ebb submit still following 2 min after the kill; AM log:\n%s", k.amLog())
	}
	text, err := sub.text, sub.err
	log := k.amLog()
	if err != nil || !strings.Contains(log, "SUCCEEDED (5/5 tasks, 0 failed attempts") {
		t.Fatalf("ebb submit: %v\n%s\nAM log:\n%s", err, text, log)
	}
	if !strings.Contains(log, "recovery done (every worker holding a needed output is back)") {
		t.Errorf("the restarted AM did not see its workers back; AM log:\n%s", log)
	}
	p, perr := k.cs.CoreV1().Pods(k.ns).Get(context.Background(), am, metav1.GetOptions{})
	if perr == nil && (len(p.Status.ContainerStatuses) != 1 || p.Status.ContainerStatuses[0].RestartCount != 1) {
		t.Errorf("AM pod's containers: %+v, want one restarted once", p.Status.ContainerStatuses)
	}
	for task, attempts := range taskRuns(runs) {
		if len(attempts) != 1 {
			t.Errorf("task %s ran %d times (%v), want once", task, len(attempts), attempts)
		}
	}
	if got := taskRuns(runs); len(got) != 5 {
		t.Errorf("tasks run: %v, want a0 a1 b0 b1 c0", got)
	}
	if after := k.workerPods(); strings.Join(after, " ") != strings.Join(workersBefore, " ") {
		t.Errorf("worker pods ever made: %v after the kill, %v before it: the restarted AM made new ones", after, workersBefore)
	}
	b, rerr := os.ReadFile(filepath.Join(out, "result-00000"))
	if got := strings.Fields(string(b)); rerr != nil || strings.Join(got, " ") != "a0 a0 a1 a1" {
		t.Errorf("result %q (%v), want a0 a0 a1 a1", b, rerr)
	}
	t.Logf("ebb submit printed:\n%s", text)
	t.Logf("%s", regexp.MustCompile(`(?m)^.*(ebb am: .* \(run 2|recovery done|earlier attempt is back).*$`).FindAllString(log, -1))
	t.Logf("wall time %s", time.Since(start).Round(100*time.Millisecond))
}

// waitFor waits, up to 2 minutes, for cond; done closing first (the
// submit ended) fails the test.
func (k *kubeTest) waitFor(what string, done <-chan struct{}, cond func() bool) {
	k.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		select {
		case <-done:
			k.t.Fatalf("ebb submit ended before %s; AM log:\n%s", what, k.amLog())
		default:
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("no %s within 2 min; AM log:\n%s", what, k.amLog())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitAMPod is the name of the application's AM pod, once it exists.
func (k *kubeTest) waitAMPod(done <-chan struct{}) string {
	k.t.Helper()
	var name string
	k.waitFor("AM pod", done, func() bool {
		l, err := k.cs.CoreV1().Pods(k.ns).List(context.Background(), metav1.ListOptions{LabelSelector: "ebb.io/role=am"})
		if err != nil || len(l.Items) == 0 {
			return false
		}
		name = l.Items[0].Name
		return true
	})
	return name
}

// workerPods lists the worker pods the namespace ever had: testkubelet
// keeps each pod's directory after the pod is gone.
func (k *kubeTest) workerPods() []string {
	ms, _ := filepath.Glob(filepath.Join(k.dir, "pods", k.ns+"_*-w-*"))
	var out []string
	for _, m := range ms {
		out = append(out, strings.TrimPrefix(filepath.Base(m), k.ns+"_"))
	}
	sort.Strings(out)
	return out
}

// fault asks testkubelet to inject a fault into a pod of the test's
// namespace (kill: SIGKILL, and restartPolicy decides).
func (k *kubeTest) fault(pod, kind string) {
	k.t.Helper()
	b, err := os.ReadFile(filepath.Join(k.dir, "kube.env"))
	if err != nil {
		k.t.Fatal(err)
	}
	kubelet := ""
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "EBB_KUBE_KUBELET="); ok {
			kubelet = v
		}
	}
	q := url.Values{"namespace": {k.ns}, "pod": {pod}, "kind": {kind}}
	resp, err := http.Post(kubelet+"/fault?"+q.Encode(), "", nil)
	if err != nil {
		k.t.Fatal(err)
	}
	_ = resp.Body.Close() // the status says it all
	if resp.StatusCode != http.StatusOK {
		k.t.Fatalf("fault %s on %s: %s", kind, pod, resp.Status)
	}
}

// recordedLocal counts the tasks of vertex v the recovery log in dir has
// as succeeded.
func recordedLocal(dir, v string) int {
	_, _, recs, _, err := recovery.Open(recovery.LocalFS{}, dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, r := range recs {
		if r.TaskSucceeded != nil && r.TaskSucceeded.Vertex == v {
			n++
		}
	}
	return n
}

// taskRuns reads the runs file: each task's attempts, by vertex and task
// ("a0").
func taskRuns(path string) map[string][]string {
	b, _ := os.ReadFile(path) // none yet: no runs
	out := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		task, attempt, ok := strings.Cut(l, " ")
		if !ok {
			continue
		}
		out[task] = append(out[task], attempt)
	}
	return out
}

// TestKubeFailedDAGEndsTheAM: a DAG that fails ends its AM pod for good.
// Its container ends with status 0 (restartPolicy OnFailure would
// restart an AM that exits non-zero, which would find its DAG ended in
// the recovery log and exit so again, for ever); the pod says the DAG
// failed, and ebb submit exits non-zero with the AM's last line.
func TestKubeFailedDAGEndsTheAM(t *testing.T) {
	k := newKubeTest(t)
	spec := filepath.Join(t.TempDir(), "fail.yaml")
	if err := os.WriteFile(spec, []byte(`name: fails
containerGroup: {name: g, workerMemoryMB: 128}
vertices: [{name: v, command: 'exit 3', parallelism: 1, memoryMB: 128}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := k.submitInBackground(spec, "--set", "mr3.am.task.max.failed.attempts=1")
	done := sub.done
	am := k.waitAMPod(done)
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		k.t.Fatalf("ebb submit still following after 2 min; AM log:\n%s", k.amLog())
	}
	text, err := sub.text, sub.err
	if err == nil || !strings.Contains(text, "FAILED (0/1 tasks, 1 failed attempts") {
		t.Fatalf("ebb submit: %v, want a failure naming the DAG's; it printed:\n%s", err, text)
	}
	p, perr := k.cs.CoreV1().Pods(k.ns).Get(context.Background(), am, metav1.GetOptions{})
	if perr != nil {
		t.Fatal(perr)
	}
	if len(p.Status.ContainerStatuses) != 1 || p.Status.ContainerStatuses[0].RestartCount != 0 || p.Annotations["ebb.io/outcome"] != "failed" {
		t.Errorf("AM pod %s, outcome %q, containers %+v: want one never restarted, outcome failed",
			p.Status.Phase, p.Annotations["ebb.io/outcome"], p.Status.ContainerStatuses)
	}
	t.Logf("ebb submit (%v) printed:\n%s", err, text)
}
