package worker

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, false
	}
	// After ")": field 3 (state) onwards.
	fields := bytes.Fields(data[i+1:])
	const stateField = 3
	if len(fields) < 24-stateField+1 {
		return 0, 0, false
	}
	g, err1 := strconv.Atoi(string(fields[5-stateField]))
	r, err2 := strconv.ParseInt(string(fields[24-stateField]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return g, r, true
}
