package worker

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// KillChildGroups SIGKILLs the process group of every child of this
// process that leads its own group: the worker's tasks (each runs in a
// group of its own, with whatever it started). It is the last resort of a
// worker that cannot stop in order (cmd/ebb's second stage after SIGTERM):
// it reads /proc, not the worker's state, whose locks a wedged goroutine
// may hold. It returns how many groups it signalled.
func KillChildGroups() int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self := os.Getpid()
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		ppid, pgrp, ok := parseStatParent(data)
		if !ok || ppid != self || pgrp != pid {
			continue
		}
		if syscall.Kill(-pgrp, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}
