package amhost

import (
	"context"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/kube"
)

// Run serves until the DAG the AM was started with ends (in a session,
// until a signal), and returns whether it succeeded and the final line,
// which `ebb submit` shows (the pod's termination message).
func (k *KubeAM) Run(ctx context.Context) (bool, string) {
	runCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- k.a.Run(runCtx) }()
	ok, diag := k.serve(ctx, done)
	k.a.Stop(diag)
	if err := <-done; err != nil {
		k.log.Warnf("ebb am: %v", err)
	}
	return ok, diag
}

func (k *KubeAM) serve(ctx context.Context, done chan error) (bool, string) {
	if k.o.DAGPath == "" || k.c.Bool("mr3.am.session.mode") {
		select {
		case <-ctx.Done():
			return true, "the AM was terminated (SIGTERM)"
		case err := <-done:
			done <- err
			k.failed = true
			return false, fmt.Sprintf("the AM stopped: %v", err)
		}
	}
	id, diag := k.startDAG(ctx)
	if id == "" {
		return false, diag
	}
	s, err := k.a.WaitDAG(ctx, id)
	if err != nil {
		return false, "the AM was terminated (SIGTERM)"
	}
	counts := fmt.Sprintf("%d/%d tasks, %d failed attempts, %s%s", s.Succeeded, s.TotalTasks, s.Failed, s.Finish.Sub(s.Submit).Round(time.Millisecond),
		k.disruptions(ctx, s.Group))
	line := fmt.Sprintf("DAG %s (%s) %s (%s)", s.ID, s.Name, s.State, counts)
	if s.State == core.DAGSucceeded {
		return true, line + "; output " + s.Output
	}
	return false, line + ": " + s.Diagnostics
}

// disruptions says how many of the group's worker pods the cluster took
// (preempted, evicted), when it took any: none counts as a failure, and
// the final line says where the re-runs came from.
func (k *KubeAM) disruptions(ctx context.Context, group string) string {
	cl, err := am.Query(ctx, k.a.Loop(), core.ClusterQuery{})
	if err != nil {
		return ""
	}
	for _, g := range cl.Groups {
		if p := g.Preempt; g.Name == group && p.Lost+p.Evicted > 0 {
			return fmt.Sprintf(", worker pods taken by the cluster: %d preempted, %d evicted", p.Lost, p.Evicted)
		}
	}
	return ""
}

// startDAG submits the DAG, or resumes it under its own id when an
// earlier run of the container accepted it.
func (k *KubeAM) startDAG(ctx context.Context) (id, diag string) {
	if len(k.resumed) > 0 {
		k.log.Infof("ebb am: resuming DAG %s of the AM's earlier run", k.resumed[0])
		return k.resumed[0], ""
	}
	spec, err := os.ReadFile(k.o.DAGPath)
	if err != nil {
		return "", err.Error()
	}
	name := k.o.DAGName
	if name == "" {
		name = k.o.DAGPath
	}
	id, err = k.a.Submit(ctx, am.SubmitRequest{Spec: spec, SpecName: name, Output: k.o.Output, Overwrite: k.o.Overwrite, Client: "ebb submit"})
	if err != nil {
		k.log.Errorf("ebb am: %v", err)
		return "", err.Error()
	}
	return id, ""
}

// Finish closes the recovery log, writes the final line where Kubernetes
// reads a container's termination message (`ebb submit` prints it,
// `kubectl describe pod` shows it), and how the DAG ended on the AM's pod
// (kube.AnnotationOutcome). It says whether the container should end with
// a non-zero status, which restartPolicy OnFailure restarts: only when
// the AM did not run to its end, or the outcome could not be written (the
// status is then the only word of a failure).
func (k *KubeAM) Finish(ok bool, diag string) (restart bool) {
	defer k.log.Infof("ebb am: %s", diag)
	k.finishLog(diag)
	if k.failed {
		return true
	}
	outcome := kube.OutcomeSucceeded
	if !ok {
		outcome = kube.OutcomeFailed
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, kube.AnnotationOutcome, outcome)
	if _, err := k.cs.CoreV1().Pods(k.ns).Patch(ctx, k.pod, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		k.log.Warnf("ebb am: writing the outcome %s on pod %s: %v", outcome, k.pod, err)
		return !ok
	}
	return false
}

// finishLog closes the recovery log and writes the termination message.
func (k *KubeAM) finishLog(diag string) {
	if err := k.rec.Close(); err != nil {
		k.log.Warnf("ebb am: %v", err)
	}
	// Only into the file the kubelet mounted: never made where there is
	// none (a test kubelet running the pod as a process).
	if f, err := os.OpenFile("/dev/termination-log", os.O_WRONLY|os.O_TRUNC, 0); err == nil {
		_, werr := f.WriteString(diag)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			k.log.Warnf("ebb am: termination message: %v", werr)
		}
	}
}
