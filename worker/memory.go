package worker

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// rssByProcessGroup sums the resident set size in bytes of every process in
// /proc by process group. Each attempt runs in its own process group, so
// this counts a task's children too (a shell and the program it starts).
// Processes that vanish while being read are skipped.
func rssByProcessGroup(procDir string) (map[int]int64, error) {
	entries, err := os.ReadDir(procDir)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", procDir, err)
	}
	page := int64(os.Getpagesize())
	out := map[int]int64{}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(procDir, e.Name(), "stat"))
		if err != nil {
			continue
		}
		pgrp, rssPages, ok := parseStat(data)
		if !ok {
			continue
		}
		out[pgrp] += rssPages * page
	}
	return out, nil
}

// parseStat extracts the process group (field 5) and rss in pages (field
// 24) from a /proc/<pid>/stat line. The command name (field 2) is in
// parentheses and may itself contain spaces and parentheses, so fields are
// counted from the last ')'.
func parseStat(data []byte) (pgrp int, rssPages int64, ok bool) {
	field, ok := statFields(data)
	if !ok {
		return 0, 0, false
	}
	g, err1 := strconv.Atoi(field(5))
	r, err2 := strconv.ParseInt(field(24), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return g, r, true
}

// parseStatParent extracts the parent (field 4) and the process group
// (field 5) from a /proc/<pid>/stat line.
func parseStatParent(data []byte) (ppid, pgrp int, ok bool) {
	field, ok := statFields(data)
	if !ok {
		return 0, 0, false
	}
	p, err1 := strconv.Atoi(field(4))
	g, err2 := strconv.Atoi(field(5))
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return p, g, true
}

// statFields gives field n (numbered from 1, as in proc(5), n >= 3) of a
// stat line, counting from after the command name's last ')'; false when
// the line is cut short of field 24.
func statFields(data []byte) (field func(n int) string, ok bool) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return nil, false
	}
	fields := bytes.Fields(data[i+1:]) // field 3 (state) onwards
	const stateField = 3
	if len(fields) < 24-stateField+1 {
		return nil, false
	}
	return func(n int) string { return string(fields[n-stateField]) }, true
}

// watchMemory samples the RSS of every running attempt's process group and
// kills those above their memory by more than 10%.
func (w *worker) watchMemory(ctx context.Context) {
	t := time.NewTicker(w.o.MemoryCheckInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		w.mu.Lock()
		list := make([]*attempt, 0, len(w.running))
		for _, a := range w.running {
			list = append(list, a)
		}
		w.mu.Unlock()
		if len(list) == 0 {
			continue
		}
		rss, err := rssByProcessGroup("/proc")
		if err != nil {
			w.log.WithError(err).Warn("cannot sample memory")
			continue
		}
		for _, a := range list {
			a.mu.Lock()
			pgid := a.pgid
			if pgid != 0 {
				a.rssBytes = rss[pgid]
			}
			used := a.rssBytes
			a.mu.Unlock()
			limit := a.req.GetMemoryMb()
			if pgid == 0 || limit <= 0 {
				continue
			}
			if used > limit<<20+limit<<20/10 {
				a.log.WithField("rss_mb", used>>20).Warn("killing attempt: over its memory")
				a.kill(&MemoryExceededError{UsedMB: used >> 20, LimitMB: limit})
			}
		}
	}
}
