package worker

import (
	"fmt"
	"syscall"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// A full disk: the worker's attempts write their inputs and outputs under
// its work directory (YARN: the container's directory, on one of the
// NodeManager's local dirs). When that file system is full every attempt
// placed here fails, so the worker says so: an attempt that fails while
// less than diskFullBelow is free there has "no space left on device"
// put first in its diagnostics, and the worker reports itself unhealthy in
// its heartbeats (before the attempt's failure, so the AM stops placing
// here first) and refuses new attempts, until diskHealthyAt is free again.
// The AM treats its node as the cluster's UNHEALTHY nodes.
const (
	diskFullBelow = 1 << 20  // 1 MiB
	diskHealthyAt = 64 << 20 // 64 MiB
)

// freeBytes is what an unprivileged writer may still use on dir's file
// system.
func freeBytes(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// checkDiskAfterFailure marks the worker unhealthy when its work dir's
// file system is (nearly) full as an attempt fails, and then returns the
// diagnostics prefix naming it ("" when the disk is not the cause).
func (w *worker) checkDiskAfterFailure() string {
	free, err := freeBytes(w.o.WorkDir)
	if err != nil || free >= diskFullBelow {
		return ""
	}
	why := fmt.Sprintf("no space left on device: the worker's local directory %s has %d bytes free", w.o.WorkDir, free)
	w.mu.Lock()
	first := w.unhealthy == ""
	if first {
		w.unhealthy = why
	}
	out := w.out
	w.mu.Unlock()
	if first {
		w.log.Error(why + "; this worker takes no more attempts until it has space")
		// Before the attempt's failure: the AM stops placing here first.
		out.send(&ebbpb.WorkerMessage{Msg: &ebbpb.WorkerMessage_Heartbeat{Heartbeat: &ebbpb.Heartbeat{Unhealthy: why}}})
	}
	return why + ": "
}

// diskHealth is what the heartbeat says: the reason the worker is
// unhealthy, cleared once its work dir has room again.
func (w *worker) diskHealth() string {
	w.mu.Lock()
	why := w.unhealthy
	w.mu.Unlock()
	if why == "" {
		return ""
	}
	if free, err := freeBytes(w.o.WorkDir); err == nil && free >= diskHealthyAt {
		w.mu.Lock()
		w.unhealthy = ""
		w.mu.Unlock()
		w.log.Infof("the local directory %s has %d bytes free again: healthy", w.o.WorkDir, free)
		return ""
	}
	return why
}
