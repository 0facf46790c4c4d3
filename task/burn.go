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
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if *memoryMB < 0 || *seconds < 0 || fs.NArg() > 0 {
		return fmt.Errorf("%w: burn --memory-mb N --seconds S [--fail-first-attempt] (N, S ≥ 0)", ErrUsage)
	}
	if *failFirst && c.Attempt == 0 {
		return ErrPlannedFailure
	}
	mem := touch(*memoryMB)
	hold(c, time.Duration(*seconds*float64(time.Second)))
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
