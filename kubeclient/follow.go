package kubeclient

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/ebb-am/ebb/am/kube"
)

// Follow watches the AM pod until it ends, saying each change of its
// phase (and why it waits: the scheduler's message, an image that will
// not pull), and returns whether it succeeded and its last line (the AM's
// termination message).
func Follow(ctx context.Context, cs kubernetes.Interface, ns, pod string, say func(string)) (bool, string, error) {
	last := ""
	for {
		w, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", pod).String()})
		if err != nil {
			return false, "", fmt.Errorf("watching pod %s: %w", pod, err)
		}
		ok, line, done := follow(w, pod, say, &last)
		w.Stop()
		if done {
			if line == "" {
				line = lastLogLine(ctx, cs, ns, pod)
			}
			return ok, line, nil
		}
		if err := ctx.Err(); err != nil {
			return false, "", err
		}
	}
}

// follow reads one watch until the pod ends (done) or the watch does.
func follow(w watch.Interface, pod string, say func(string), last *string) (ok bool, line string, done bool) {
	for ev := range w.ResultChan() {
		if ev.Type == watch.Deleted {
			return false, "pod " + pod + " was deleted", true
		}
		p, isPod := ev.Object.(*corev1.Pod)
		if !isPod {
			continue
		}
		if s := describe(p); s != *last {
			*last = s
			say(s)
		}
		switch p.Status.Phase {
		case corev1.PodSucceeded:
			// The AM ran to its end; its annotation says how its DAG
			// ended (am/kube/outcome.go).
			return p.Annotations[kube.AnnotationOutcome] != kube.OutcomeFailed, termination(p), true
		case corev1.PodFailed:
			return false, termination(p), true
		}
	}
	return false, "", false
}

// describe is the pod's state in one line.
func describe(p *corev1.Pod) string {
	phase := p.Status.Phase
	if phase == "" {
		phase = corev1.PodPending // as made, before the API server's defaults
	}
	s := fmt.Sprintf("pod %s %s", p.Name, phase)
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Message != "" {
			s += ": " + c.Message
		}
	}
	for _, c := range p.Status.ContainerStatuses {
		if w := c.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" {
			s += ": " + w.Reason + " " + w.Message
		}
		if c.RestartCount > 0 {
			s += fmt.Sprintf(" (restarted %d times)", c.RestartCount)
		}
	}
	return strings.TrimSpace(s)
}

// termination is the AM container's last words: its termination message,
// else its exit.
func termination(p *corev1.Pod) string {
	for _, c := range p.Status.ContainerStatuses {
		if t := c.State.Terminated; t != nil {
			if t.Message != "" {
				return strings.TrimSpace(t.Message)
			}
			return "" // Follow reads the log's last line instead
		}
	}
	return "pod " + p.Name + " " + string(p.Status.Phase)
}

// lastLogLine is the AM's last log line (its final word, when the kubelet
// kept no termination message), the message of a logrus line.
func lastLogLine(ctx context.Context, cs kubernetes.Interface, ns, pod string) string {
	tail := int64(1)
	b, err := cs.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{TailLines: &tail}).DoRaw(ctx)
	line := strings.TrimSpace(string(b))
	if err != nil || line == "" {
		return fmt.Sprintf("pod %s ended; `kubectl logs %s -n %s` says how (its last line: %q, %v)", pod, pod, ns, line, err)
	}
	if i := strings.Index(line, ` msg="`); i >= 0 {
		rest := line[i+len(" msg="):]
		if j := strings.LastIndex(rest, `"`); j > 0 {
			if msg, err := strconv.Unquote(rest[:j+1]); err == nil {
				return msg
			}
		}
	}
	return line
}
