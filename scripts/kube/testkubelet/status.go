package main

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// report changes the pod's status with mut, on the newest copy, retrying
// on conflicts; a pod that is gone or replaced is left alone.
func (r *podRun) report(ctx context.Context, mut func(*corev1.Pod)) {
	pods := r.k.cs.CoreV1().Pods(r.ns)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p, err := pods.Get(ctx, r.name, metav1.GetOptions{})
		if err != nil || p.UID != r.uid {
			return err
		}
		mut(p)
		_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		r.k.log.Printf("%s/%s: status: %v", r.ns, r.name, err)
	}
}

func setCondition(p *corev1.Pod, t corev1.PodConditionType, s corev1.ConditionStatus, reason, msg string) {
	now := metav1.Now()
	for i := range p.Status.Conditions {
		c := &p.Status.Conditions[i]
		if c.Type == t {
			if c.Status != s {
				c.LastTransitionTime = now
			}
			c.Status, c.Reason, c.Message = s, reason, msg
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{
		Type: t, Status: s, Reason: reason, Message: msg, LastTransitionTime: now})
}

func (r *podRun) placed(p *corev1.Pod) {
	p.Status.HostIP, p.Status.PodIP = PodIP, PodIP
	p.Status.HostIPs = []corev1.HostIP{{IP: PodIP}}
	p.Status.PodIPs = []corev1.PodIP{{IP: PodIP}}
	if p.Status.StartTime == nil {
		t := metav1.Now()
		p.Status.StartTime = &t
	}
	setCondition(p, corev1.PodInitialized, corev1.ConditionTrue, "", "")
}

func (r *podRun) status(p *corev1.Pod, image string, state corev1.ContainerState, last *corev1.ContainerState, ready bool) {
	c := p.Spec.Containers[0]
	r.mu.Lock()
	restarts := r.restarts
	r.mu.Unlock()
	cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: "testkubelet://" + image,
		ContainerID: r.containerID(), State: state, Ready: ready, Started: &ready, RestartCount: restarts}
	if last != nil {
		cs.LastTerminationState = *last
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
	rs := corev1.ConditionFalse
	if ready {
		rs = corev1.ConditionTrue
	}
	setCondition(p, corev1.ContainersReady, rs, "", "")
	setCondition(p, corev1.PodReady, rs, "", "")
}

func (r *podRun) waiting(p *corev1.Pod, reason, msg string) {
	r.placed(p)
	r.status(p, "", corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}, nil, false)
}

func (r *podRun) running(p *corev1.Pod, l *launch, started time.Time, last *corev1.ContainerState) {
	r.placed(p)
	setCondition(p, corev1.PodReadyToStartContainers, corev1.ConditionTrue, "", "")
	p.Status.Phase = corev1.PodRunning
	r.status(p, l.binary, corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(started)}}, last, true)
}

func terminated(e ended, id string) *corev1.ContainerStateTerminated {
	return &corev1.ContainerStateTerminated{ExitCode: e.code, Reason: e.reason, ContainerID: id,
		StartedAt: metav1.NewTime(e.started), FinishedAt: metav1.NewTime(e.finished)}
}

func phaseOf(e ended) corev1.PodPhase {
	if e.code == 0 && e.reason == "Completed" {
		return corev1.PodSucceeded
	}
	return corev1.PodFailed
}

// terminal: the container ended and will not run again.
func (r *podRun) terminal(p *corev1.Pod, e ended) {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return
	}
	r.placed(p)
	p.Status.Phase = phaseOf(e)
	var image string
	if len(p.Status.ContainerStatuses) > 0 {
		image = p.Status.ContainerStatuses[0].ImageID
	}
	r.status(p, "", corev1.ContainerState{Terminated: terminated(e, r.containerID())}, nil, false)
	if image != "" {
		p.Status.ContainerStatuses[0].ImageID = image
	}
	setCondition(p, corev1.PodReady, corev1.ConditionFalse, "PodCompleted", "")
	setCondition(p, corev1.ContainersReady, corev1.ConditionFalse, "PodCompleted", "")
}

// evictedStatus is what a kubelet's node-pressure eviction leaves: phase
// Failed, reason Evicted, and a DisruptionTarget condition saying the
// kubelet ended it.
func (r *podRun) evictedStatus(p *corev1.Pod, e ended) {
	if e.started.IsZero() {
		e.started = time.Now()
	}
	if e.finished.IsZero() {
		e.finished = time.Now()
	}
	e.reason = "Error"
	r.terminal(p, e)
	p.Status.Phase = corev1.PodFailed
	p.Status.Reason, p.Status.Message = "Evicted", e.evicted
	setCondition(p, corev1.DisruptionTarget, corev1.ConditionTrue, "TerminationByKubelet", e.evicted)
}
