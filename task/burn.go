package task

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"time"
)

// ErrPlannedFailure is returned by burn --fail-first-attempt on attempt 0.
var ErrPlannedFailure = errors.New("failing the first attempt as asked (--fail-first-attempt)")

// burn is a workload with a set memory footprint and duration: it touches
// every page of --memory-mb so the memory is resident (and counted by the
// worker), holds it for --seconds, then behaves like cat.
func burn(c *Context, args []string) error {
	fs := flag.NewFlagSet("burn", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	memoryMB := fs.Int("memory-mb", 0, "megabytes to allocate and touch")
	seconds := fs.Float64("seconds", 0, "seconds to hold the memory")
	failFirst := fs.Bool("fail-first-attempt", false, "exit 1 when EBB_ATTEMPT is 0")
	slowNode := fs.String("slow-node", "", "a YARN NodeManager (host:port, as NM_HOST and NM_PORT name it) where the task is slow")
	slowFactor := fs.Float64("slow-factor", 1, "on --slow-node, hold this many times --seconds")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if *memoryMB < 0 || *seconds < 0 || *slowFactor < 1 || fs.NArg() > 0 {
		return fmt.Errorf("%w: burn --memory-mb N --seconds S [--fail-first-attempt] [--slow-node HOST:PORT --slow-factor F] (N, S ≥ 0, F ≥ 1)", ErrUsage)
	}
	if *failFirst && c.Attempt == 0 {
		return ErrPlannedFailure
	}
	mem := touch(*memoryMB)
	held := *seconds
	if *slowNode != "" && onNode(*slowNode) {
		// A straggler made on purpose (the speculation tests): the output
		// stays the same, only the time changes.
		held *= *slowFactor
	}
	hold(c, time.Duration(held*float64(time.Second)))
	runtime.KeepAlive(mem)

	ws, err := c.OpenWriters()
	if err != nil {
		return err
	}
	if c.IsSink() {
		line := "burned " + strconv.Itoa(*memoryMB) + " MB for " + strconv.FormatFloat(*seconds, 'g', -1, 64) + " s"
		if err := ws.Emit([]byte(line), func(int) int { return 0 }); err != nil {
			_ = ws.Close()
			return err
		}
	}
	if err := passThrough(c, ws); err != nil {
		_ = ws.Close()
		return err
	}
	return ws.Close()
}

// onNode reports whether the task runs in a container of the YARN
// NodeManager node (host:port), from the NM_HOST and NM_PORT YARN gives
// every container.
func onNode(node string) bool {
	return os.Getenv("NM_HOST")+":"+os.Getenv("NM_PORT") == node
}

// touch allocates mb megabytes and writes one byte per page, so the pages
// are resident and not just reserved.
func touch(mb int) []byte {
	buf := make([]byte, mb<<20)
	page := os.Getpagesize()
	for i := 0; i < len(buf); i += page {
		buf[i] = 1
	}
	return buf
}

// hold waits for d, reporting progress as time passes. This is the
// workload itself, not a wait for some condition.
func hold(c *Context, d time.Duration) {
	if d <= 0 {
		return
	}
	start := time.Now()
	t := time.NewTicker(min(d/10+time.Millisecond, 500*time.Millisecond))
	defer t.Stop()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
			return
		case <-t.C:
			c.SetProgress(0.9 * float64(time.Since(start)) / float64(d))
		}
	}
}
