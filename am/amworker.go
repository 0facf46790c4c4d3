package am

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// AMWorkerLauncher is a World that can run a worker inside the AM's own
// container (core.StartAMWorker, small DAGs in uber mode): it says how the
// `ebb worker` process is started (its flags, environment, token file and
// log files, which differ between YARN and local); the loop starts it,
// watches it and stops it. The Core never counts it in a WantWorkers
// total, so the world has no container to keep for it.
type AMWorkerLauncher interface {
	AMWorkerCommand(a core.StartAMWorker) (*exec.Cmd, error)
}

// amWorkerStopWait bounds how long the AM's shutdown waits for its in-AM
// worker to exit after SIGTERM (its own second stage kills its tasks).
const amWorkerStopWait = 10 * time.Second

// amProc is a running in-AM worker process.
type amProc struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// startAMWorker carries out core.StartAMWorker; a worker that cannot start
// is reported gone, and the Core gives its DAGs worker containers.
func (l *Loop) startAMWorker(a core.StartAMWorker) {
	gone := func(why string) {
		l.log.Warnf("in-AM worker %s: %s", a.Worker, why)
		l.feedBack(core.WorkerGone{Worker: a.Worker, Reason: why, Exited: true})
	}
	launcher, ok := l.world.(AMWorkerLauncher)
	if !ok {
		gone("this world cannot start a worker in the AM's container")
		return
	}
	cmd, err := launcher.AMWorkerCommand(a)
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		gone(fmt.Sprintf("not started: %v", err))
		return
	}
	p := &amProc{cmd: cmd, exited: make(chan struct{})}
	if l.amProcs == nil {
		l.amProcs = map[string]*amProc{}
	}
	l.amProcs[a.Worker] = p
	l.log.Infof("in-AM worker %s started (group %s, %d MB), pid %d", a.Worker, a.Group.Name, a.MemoryMB, cmd.Process.Pid)
	defer l.hold(HoldAMWorkerStarted, fmt.Sprintf("in-AM worker %s started, pid %d", a.Worker, cmd.Process.Pid))
	go func() {
		err := cmd.Wait()
		if c, ok := cmd.Stdout.(*os.File); ok && c != nil {
			_ = c.Close() // the worker has exited: its log is what it wrote
		}
		close(p.exited)
		reason := "the in-AM worker exited"
		if err != nil {
			reason = fmt.Sprintf("the in-AM worker exited: %v", err)
		}
		l.Send(core.WorkerGone{Worker: a.Worker, Reason: reason, Exited: true})
	}()
}

// isAMProc says whether worker is an in-AM worker this loop started; the
// loop carries out its stops and moves itself, never the world.
func (l *Loop) isAMProc(worker string) bool {
	_, ok := l.amProcs[worker]
	return ok
}

// killAMProc sends an in-AM worker SIGTERM: a worker the Core lost to
// silence, or the AM's shutdown.
func (l *Loop) killAMProc(worker string) {
	p, ok := l.amProcs[worker]
	if !ok || p.cmd.Process == nil {
		return
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		l.log.Warnf("stopping in-AM worker %s: %v", worker, err)
	}
}

// stopAMProcs ends every in-AM worker at the AM's shutdown and waits a
// bounded time for each to exit, so that none outlives the AM.
func (l *Loop) stopAMProcs() {
	for id, p := range l.amProcs {
		l.killAMProc(id)
		select {
		case <-p.exited:
		case <-time.After(amWorkerStopWait):
			l.log.Warnf("in-AM worker %s did not exit within %s of SIGTERM: killing it", id, amWorkerStopWait)
			_ = p.cmd.Process.Kill() // it ignored SIGTERM; nothing else to do
		}
	}
}
