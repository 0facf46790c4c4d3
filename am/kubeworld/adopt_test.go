package kubeworld

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/ebb-am/ebb/am/kube"
)

// The worker pods an earlier run of the AM's container left are adopted
// at start; the running ones are those the recovery waits for, a pod
// still Pending (its worker never ran) or one that ended is not, nor the
// AM's own pod (it has the application's label too).
func TestAdoptedAreTheRunningWorkerPods(t *testing.T) {
	pod := func(name string, phase corev1.PodPhase) *corev1.Pod {
		p := render(kube.PodSpec{Name: name, Namespace: "batch", Image: "ebb:test", Args: []string{"ebb", "worker"},
			Labels:      map[string]string{kube.LabelApp: "app1", kube.LabelGroup: "map", kube.LabelRole: "worker"},
			Annotations: map[string]string{kube.AnnotationGroup: "map"}, MemoryMB: 4096, MilliCPU: 2000, OutputDir: "/ebb/work"})
		if phase != corev1.PodPending {
			p.Spec.NodeName = "n1"
		}
		p.Status.Phase = phase
		return p
	}
	am := pod("app1-am", corev1.PodRunning)
	am.Labels = map[string]string{kube.LabelApp: "app1", kube.LabelRole: "am"}
	w, _, _ := start(t, 0, node("n1", 16384), am, pod("app1-w-3", corev1.PodRunning), pod("app1-w-1", corev1.PodRunning),
		pod("app1-w-4", corev1.PodPending), pod("app1-w-2", corev1.PodFailed))
	if got := w.Adopted(); !slices.Equal(got, []string{"app1-w-1", "app1-w-3"}) {
		t.Errorf("Adopted() = %v, want the running app1-w-1 and app1-w-3", got)
	}
}
