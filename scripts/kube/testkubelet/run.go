package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

type evKind int

const (
	evDelete evKind = iota // deletionTimestamp set: TERM, KILL after grace, delete
	evFault                // oom, evict or kill
	evGone                 // the object is gone: KILL now
)

type event struct {
	kind    evKind
	grace   int64
	fault   string
	message string
	// control: from the control endpoint, applied however often it is
	// asked; an annotation's fault is applied once per pod.
	control bool
}

// podRun is one pod's life on this kubelet; loop is its only actor, and
// every watch event and fault reaches it through ev.
type podRun struct {
	k        *kubelet
	uid      types.UID
	ns, name string
	dir      string
	ev       chan event

	mu       sync.Mutex
	pid      int
	state    string
	restarts int32
	applied  map[string]bool
}

func newPodRun(k *kubelet, p *corev1.Pod) *podRun {
	return &podRun{k: k, uid: p.UID, ns: p.Namespace, name: p.Name, dir: k.podDir(p.Namespace, p.Name),
		ev: make(chan event, 64), state: "Pending", applied: map[string]bool{}}
}

func (r *podRun) send(e event) { r.ev <- e }

func (r *podRun) setState(s string, pid int) {
	r.mu.Lock()
	r.state, r.pid = s, pid
	r.mu.Unlock()
}

// ended is how one run of the container ended.
type ended struct {
	code     int32
	reason   string
	started  time.Time
	finished time.Time
	evicted  string // the eviction's message
	deleting bool
	gone     bool
}

func (r *podRun) loop() {
	ctx := context.Background()
	p, err := r.k.cs.CoreV1().Pods(r.ns).Get(ctx, r.name, metav1.GetOptions{})
	if err != nil || p.UID != r.uid {
		return
	}
	if err := r.claimDir(); err != nil {
		r.k.log.Printf("%s/%s: %v", r.ns, r.name, err)
	}
	l, stop := r.prepareUntilReady(ctx, p)
	if stop != nil {
		r.finish(ctx, stop)
		return
	}
	var last *corev1.ContainerState
	for {
		e := r.runOnce(ctx, p, l, last)
		if e.gone || e.deleting || e.evicted != "" {
			r.finish(ctx, &e)
			return
		}
		policy := p.Spec.RestartPolicy
		if policy == corev1.RestartPolicyAlways || (policy == corev1.RestartPolicyOnFailure && e.code != 0) {
			last = &corev1.ContainerState{Terminated: terminated(e, r.containerID())}
			r.mu.Lock()
			r.restarts++
			r.mu.Unlock()
			r.k.log.Printf("%s/%s: exited %d (%s); restarting (restartPolicy %s)", r.ns, r.name, e.code, e.reason, policy)
			if stop := r.pause(time.Second); stop != nil {
				r.finish(ctx, stop)
				return
			}
			continue
		}
		r.k.log.Printf("%s/%s: exited %d (%s)", r.ns, r.name, e.code, e.reason)
		r.setState(string(phaseOf(e)), 0)
		r.report(ctx, func(p *corev1.Pod) { r.terminal(p, e) })
		r.finish(ctx, r.waitForDeletion())
		return
	}
}

// prepareUntilReady resolves the pod's command, environment and volumes,
// retrying (as a kubelet does) while something it needs is missing, with
// the reason on the container's waiting state. A deletion meanwhile ends
// it.
func (r *podRun) prepareUntilReady(ctx context.Context, p *corev1.Pod) (*launch, *ended) {
	for {
		l, reason, err := r.prepare(ctx, p)
		if err == nil {
			return l, nil
		}
		r.k.log.Printf("%s/%s: %s: %v", r.ns, r.name, reason, err)
		r.report(ctx, func(p *corev1.Pod) { r.waiting(p, reason, err.Error()) })
		if stop := r.pause(2 * time.Second); stop != nil {
			return nil, stop
		}
		if q, err := r.k.cs.CoreV1().Pods(r.ns).Get(ctx, r.name, metav1.GetOptions{}); err == nil && q.UID == r.uid {
			p = q
		}
	}
}

// pause waits d, or less if the pod is deleted meanwhile (then what ended
// it); faults are ignored while no process runs.
func (r *podRun) pause(d time.Duration) *ended {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			return nil
		case e := <-r.ev:
			switch e.kind {
			case evDelete:
				return &ended{deleting: true}
			case evGone:
				return &ended{gone: true}
			case evFault:
			}
		}
	}
}

func (r *podRun) waitForDeletion() *ended {
	for e := range r.ev {
		switch e.kind {
		case evDelete:
			return &ended{deleting: true}
		case evGone:
			return &ended{gone: true}
		case evFault:
		}
	}
	return &ended{gone: true}
}

// finish: a pod being deleted is removed from the API once its process is
// gone (grace 0, as a kubelet's last word); an evicted one is reported
// Failed and stays until deleted.
func (r *podRun) finish(ctx context.Context, e *ended) {
	r.setState("Terminated", 0)
	if e.evicted != "" {
		r.report(ctx, func(p *corev1.Pod) { r.evictedStatus(p, *e) })
		e = r.waitForDeletion()
	}
	if e.gone {
		return
	}
	if !e.started.IsZero() {
		// A kubelet puts a deleted pod in a terminal phase before it
		// removes it, so the last state watchers see says how it ended.
		r.report(ctx, func(p *corev1.Pod) { r.terminal(p, *e) })
	}
	zero := int64(0)
	err := r.k.cs.CoreV1().Pods(r.ns).Delete(ctx, r.name, metav1.DeleteOptions{
		GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &r.uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		r.k.log.Printf("%s/%s: deleting: %v", r.ns, r.name, err)
		return
	}
	r.k.log.Printf("%s/%s: deleted", r.ns, r.name)
}

// runOnce starts the container's process and waits for its end, serving
// the pod's events meanwhile.
func (r *podRun) runOnce(ctx context.Context, p *corev1.Pod, l *launch, last *corev1.ContainerState) ended {
	logf, err := os.OpenFile(filepath.Join(r.dir, "log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return ended{code: 128, reason: "StartError", started: time.Now(), finished: time.Now()}
	}
	defer func() { _ = logf.Close() }()
	cmd := exec.Command(l.argv[0], l.argv[1:]...) //nolint:gosec // running the pod's command is the point
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = l.env, r.dir, logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(logf, "testkubelet: %v\n", err)
		return ended{code: 128, reason: "StartError", started: started, finished: time.Now()}
	}
	pid := cmd.Process.Pid
	r.setState("Running", pid)
	r.k.log.Printf("%s/%s: running pid %d: %q", r.ns, r.name, pid, l.argv)
	r.report(ctx, func(p *corev1.Pod) { r.running(p, l, started, last) })
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var e ended
	var killAt <-chan time.Time
	for {
		select {
		case err := <-done:
			e.started, e.finished = started, time.Now()
			e.code = exitCode(err)
			switch {
			case e.reason != "":
			case e.code == 0:
				e.reason = "Completed"
			default:
				e.reason = "Error"
			}
			r.setState("Exited", 0)
			return e
		case <-killAt:
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		case ev := <-r.ev:
			switch ev.kind {
			case evGone:
				e.gone = true
				_ = syscall.Kill(-pid, syscall.SIGKILL)
			case evDelete:
				if !e.deleting {
					e.deleting = true
					_ = syscall.Kill(-pid, syscall.SIGTERM)
					killAt = time.After(time.Duration(ev.grace) * time.Second)
					r.k.log.Printf("%s/%s: deleted: SIGTERM, SIGKILL after %d s", r.ns, r.name, ev.grace)
				}
			case evFault:
				if !ev.control && r.applied[ev.fault] {
					continue
				}
				r.applied[ev.fault] = true
				r.inject(pid, ev, &e)
			}
		}
	}
}

// inject kills the process as the fault would: an OOM kill and an
// eviction are SIGKILLs with their reason reported; a kill is a crash.
func (r *podRun) inject(pid int, ev event, e *ended) {
	r.k.log.Printf("%s/%s: fault %s (%s)", r.ns, r.name, ev.fault, ev.message)
	switch ev.fault {
	case "oom":
		e.reason = "OOMKilled"
	case "evict":
		e.evicted = ev.message
		if e.evicted == "" {
			e.evicted = "The node was low on resource: memory."
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

func exitCode(err error) int32 {
	if err == nil {
		return 0
	}
	var xe *exec.ExitError
	if errors.As(err, &xe) {
		if ws, ok := xe.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int32(ws.Signal())
		}
		return int32(xe.ExitCode())
	}
	return 128
}

// claimDir makes the pod's directory its own: one left by an earlier pod
// of the same name is moved aside (<dir>.<its uid>).
func (r *podRun) claimDir() error {
	stamp := filepath.Join(r.dir, "uid")
	if old, err := os.ReadFile(stamp); err == nil && string(old) != string(r.uid) {
		if err := os.Rename(r.dir, r.dir+"."+string(old)); err != nil {
			return err
		}
	}
	return writeFile(stamp, []byte(r.uid), 0o644)
}

func (r *podRun) containerID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("testkubelet://%s-%d", r.uid, r.restarts)
}
