package kubeworld

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/ebb-am/ebb/am/kube"
)

// podStatus is what the Book needs of a watched pod.
func podStatus(p *corev1.Pod, deleted bool) kube.PodStatus {
	s := kube.PodStatus{Name: p.Name, Deleted: deleted, Phase: string(p.Status.Phase), Node: p.Spec.NodeName,
		Reason: p.Status.Reason, Message: p.Status.Message}
	for _, c := range p.Status.Conditions {
		switch {
		case c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable:
			s.Unschedulable = c.Message
		case c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue:
			s.Disruption = c.Reason
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == workerContainer && cs.State.Terminated != nil {
			s.Terminated = &kube.Terminated{Reason: cs.State.Terminated.Reason, ExitCode: int(cs.State.Terminated.ExitCode)}
		}
	}
	return s
}

// groupOf is the group a worker pod serves (its annotation has the name
// whole; the label may be a hash of it).
func groupOf(p *corev1.Pod) string {
	if g, ok := p.Annotations[kube.AnnotationGroup]; ok {
		return g
	}
	return p.Labels[kube.LabelGroup]
}

// memoryMB is a worker pod's memory limit.
func memoryMB(p *corev1.Pod) int64 {
	for _, c := range p.Spec.Containers {
		if c.Name == workerContainer {
			if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
				return q.Value() >> 20
			}
		}
	}
	return 0
}

// nodeStatus is what the Book needs of a watched node: a node that is not
// Ready, or cordoned, offers nothing to new workers, and counts as gone
// only when it is deleted.
func nodeStatus(n *corev1.Node, deleted bool) kube.NodeStatus {
	s := kube.NodeStatus{Name: n.Name, Deleted: deleted}
	if q, ok := n.Status.Allocatable[corev1.ResourceMemory]; ok {
		s.AllocatableMB = q.Value() >> 20
	}
	return s
}
