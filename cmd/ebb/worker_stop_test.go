package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"google.golang.org/grpc"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// stopAM is an AM for one worker: it registers it, then sends what the
// test queues and counts what the worker says.
type stopAM struct {
	ebbpb.UnimplementedWorkerServer
	toWorker  chan *ebbpb.AMMessage
	connected chan struct{}
	updates   chan *ebbpb.AttemptUpdate
}

func (am *stopAM) Connect(stream ebbpb.Worker_ConnectServer) error {
	if _, err := stream.Recv(); err != nil {
		return err
	}
	if err := stream.Send(&ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Registered{Registered: &ebbpb.Registered{HeartbeatIntervalMs: 1000}}}); err != nil {
		return err
	}
	close(am.connected)
	go func() {
		for {
			m, err := stream.Recv()
			if err != nil {
				return
			}
			if u := m.GetAttempt(); u != nil {
				select {
				case am.updates <- u:
				default: // the test reads the first few only
				}
			}
		}
	}()
	for {
		select {
		case m := <-am.toWorker:
			if err := stream.Send(m); err != nil {
				return err
			}
		case <-stream.Context().Done():
			return nil
		}
	}
}

// Issue 24: a wedged worker ignored SIGTERM and outlived the run. Here a
// real worker process is wedged for real: its stderr is a one-page pipe
// nobody reads, filled by its own log, so the next line it logs (stopping
// its attempt) blocks forever. SIGTERM must still end it within its grace,
// with status 3, and its task's process group (a grandchild in the
// background) must die with it.
func TestWedgedWorkerExitsOnSIGTERM(t *testing.T) {
	dir := t.TempDir()
	am := &stopAM{toWorker: make(chan *ebbpb.AMMessage, 64), connected: make(chan struct{}), updates: make(chan *ebbpb.AttemptUpdate, 16)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	ebbpb.RegisterWorkerServer(srv, am)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, w.Fd(), syscall.F_SETPIPE_SZ, 4096); e != 0 {
		t.Fatalf("shrinking the pipe: %v", e)
	}
	cmd := exec.Command(ebbBin, "worker", "--am", ln.Addr().String(), "--worker-id", "w1", "--group", "g", "--node", "n1",
		"--memory-mb", "1024", "--work-dir", dir, "--log-dir", dir, "--stop-grace", "1s")
	cmd.Env = append(os.Environ(), "EBB_SECRET=s")
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close() // the worker holds the write end
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	select {
	case <-am.connected:
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not register within 30s")
	}

	// A task that leaves a grandchild in its process group.
	childFile := filepath.Join(dir, "grandchild")
	am.toWorker <- &ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Run{Run: &ebbpb.RunAttempt{
		AttemptId: "att_1", DagId: "dag_1", Vertex: "v", MemoryMb: 64,
		Command: []string{"/bin/sh", "-c", "sleep 300 & echo $! > " + childFile + "; wait"},
	}}}
	grandchild := waitPIDFile(t, childFile)
	t.Cleanup(func() { _ = syscall.Kill(grandchild, syscall.SIGKILL) })

	// Refused attempts (bad ids) each log a line, until a write of the
	// worker's blocks on the full pipe. Stopping at "nearly full" is not
	// enough: the stop path's own line may still fit in the room left, and
	// then the worker is not wedged at all (seen once in CI: it exited 0).
	for i := 0; !blockedOnPipe(cmd.Process.Pid); i++ {
		if i > 10000 {
			t.Fatalf("the pipe holds %d bytes after %d refused attempts and the worker is not blocked on it", pipeBytes(t, r), i)
		}
		before := pipeBytes(t, r)
		select {
		case am.toWorker <- &ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Run{Run: &ebbpb.RunAttempt{AttemptId: fmt.Sprintf("bad/%d", i), MemoryMb: 1}}}:
		case <-time.After(10 * time.Second):
			t.Fatalf("the worker stopped taking messages with %d bytes in the pipe", pipeBytes(t, r))
		}
		waitUntil(t, "the worker to log the refused attempt, or to block writing it", 10*time.Second, 5*time.Millisecond,
			func() bool { return pipeBytes(t, r) > before || blockedOnPipe(cmd.Process.Pid) })
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitWedged {
			t.Fatalf("the worker ended with %v, want exit status %d", err, exitWedged)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the wedged worker is still running 30s after SIGTERM (its grace is 1s)")
	}
	waitUntil(t, fmt.Sprintf("the task's grandchild %d to die with the worker", grandchild), 10*time.Second, 20*time.Millisecond,
		func() bool { return !alive(grandchild) })
}

// waitPIDFile reads a pid the task writes, within a deadline.
func waitPIDFile(t *testing.T, path string) int {
	t.Helper()
	pid := 0
	waitUntil(t, "a pid in "+path, 30*time.Second, 20*time.Millisecond, func() bool {
		b, err := os.ReadFile(path)
		n, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		pid = n
		return err == nil && perr == nil
	})
	return pid
}

// pipeBytes is how many bytes wait unread in the pipe (FIONREAD).
func pipeBytes(t *testing.T, r *os.File) int {
	t.Helper()
	var n int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, r.Fd(), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("FIONREAD: %v", e)
	}
	return int(n)
}

// blockedOnPipe: some thread of the process sleeps in the kernel's pipe
// write (wchan pipe_write, or anon_pipe_write on newer kernels).
func blockedOnPipe(pid int) bool {
	chans, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
	for _, c := range chans {
		if b, err := os.ReadFile(c); err == nil && strings.Contains(string(b), "pipe_write") {
			return true
		}
	}
	return false
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(string(b[i+1:])), "Z")
}
