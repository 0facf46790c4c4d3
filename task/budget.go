package task

import (
	"math"
	"os"
	"runtime/debug"
)

// How the built-ins that buffer records (wc-map, wc-reduce, sort) stay
// under their memory ask.
//
// The worker kills an attempt whose resident set passes 110% of
// EBB_MEMORY_MB. A Go program's resident set is its heap (live data plus
// garbage not yet collected), the runtime's own structures and stacks, and
// the pages of the executable it has touched: about 20 MB for ebb before a
// task reads a byte. The ask is shared out so:
//
//   - bufferPercent (40%) for buffered records, as estimated by the buffer
//     itself: countTable counts the arrays it allocates (its slots, twice
//     over while they grow, and its arena), lineBuffer per record its bytes
//     plus what the slice holding it costs (lineEntryBytes), so the
//     estimate is close to the heap the records really take;
//   - limitPercent (70%) is the Go runtime's soft memory limit
//     (debug.SetMemoryLimit): the collector runs as often as it must to
//     keep everything the runtime maps under it. The 30% of the ask above
//     the buffer is for garbage between collections, the 64 KiB buffers of
//     open runs and output files (4 MiB for a 64-way merge) and error in
//     the estimates; were the limit as close to the buffer as the live
//     heap, the collector would run back to back;
//   - the last 30%, plus the 10% the worker tolerates, is for what the
//     limit does not count: the executable's pages, and freed memory the
//     runtime has not yet returned to the kernel.
//
// With the default ask of 256 MB: about 102 MB of records, a 179 MB limit,
// and a peak resident set near 200 MB against a kill line of 281 MB.
const (
	bufferPercent = 40
	limitPercent  = 70
	// defaultMemoryMB stands in for EBB_MEMORY_MB when it is 0, which only
	// happens outside a worker.
	defaultMemoryMB = 256
	// minSpillBytes keeps a tiny ask from spilling a run every few records.
	minSpillBytes = 1 << 20
)

// spillBudget is how many bytes of records a task buffers before spilling
// a sorted run: EBB_TASK_SPILL_BYTES if set, else bufferPercent of the ask.
func (c *Context) spillBudget() int64 {
	if c.SpillBytes > 0 {
		return c.SpillBytes
	}
	return max(askBytes(c.MemoryMB)*bufferPercent/100, minSpillBytes)
}

func askBytes(memoryMB int64) int64 {
	if memoryMB <= 0 {
		memoryMB = defaultMemoryMB
	}
	return min(memoryMB, math.MaxInt64>>20) << 20
}

// limitMemory sets the Go runtime's memory limit to limitPercent of the
// ask and returns a function that restores the previous limit (Main runs
// in tests too, where the limit must not outlive the task). A GOMEMLIMIT
// in the environment wins: whoever set it knows better.
func limitMemory(memoryMB int64) (restore func()) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set || memoryMB <= 0 {
		return func() {}
	}
	prev := debug.SetMemoryLimit(askBytes(memoryMB) * limitPercent / 100)
	return func() { debug.SetMemoryLimit(prev) }
}
