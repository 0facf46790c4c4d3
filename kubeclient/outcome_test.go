package kubeclient

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ebb-am/ebb/am/kube"
)

// The AM pod ends Succeeded whenever the AM ran to its end (a non-zero
// status would have it restarted for ever): how its DAG ended is its
// outcome annotation, and a Failed pod is a failure whatever it says.
func TestFollowReadsTheDAGsOutcome(t *testing.T) {
	cases := []struct {
		phase   corev1.PodPhase
		outcome string
		want    bool
	}{
		{corev1.PodSucceeded, kube.OutcomeSucceeded, true},
		{corev1.PodSucceeded, kube.OutcomeFailed, false},
		{corev1.PodSucceeded, "", true}, // an AM that ended without a DAG (a session)
		{corev1.PodFailed, kube.OutcomeSucceeded, false},
	}
	for _, c := range cases {
		w := watch.NewFakeWithChanSize(1, false)
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app-am", Annotations: map[string]string{}},
			Status: corev1.PodStatus{Phase: c.phase, ContainerStatuses: []corev1.ContainerStatus{{Name: "am",
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Message: "DAG dag_1 (wc) ..."}}}}}}
		if c.outcome != "" {
			p.Annotations[kube.AnnotationOutcome] = c.outcome
		}
		w.Modify(p)
		last := ""
		ok, line, done := follow(w, "app-am", func(string) {}, &last)
		if !done || ok != c.want || line != "DAG dag_1 (wc) ..." {
			t.Errorf("%s with outcome %q: ok %v (want %v), line %q, done %v", c.phase, c.outcome, ok, c.want, line, done)
		}
	}
}
