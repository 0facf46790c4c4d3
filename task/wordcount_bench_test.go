package task

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkWordCountMap runs wc-map as the 1g MR-vs-ebb bench runs each of
// its maps: one 128 MiB split of zipf text over 1,000,000 words, a 256 MB
// ask (so a 102 MiB buffer), two reduce partitions. MB/s is the split's
// bytes per second of wc-map, from the first read to the closed outputs.
// The -small variant (16 MiB, far fewer distinct words, so the table
// mostly stays in the cache) shows how much of the time is the table's.
// cpu-ns/op is the process's CPU time (user and system) per op, steadier
// than ns/op on a machine shared with other work.
func BenchmarkWordCountMap(b *testing.B) {
	for _, bc := range []struct {
		name string
		size int64
	}{{"bench-split-128MiB", 128 << 20}, {"small-16MiB", 16 << 20}} {
		b.Run(bc.name, func(b *testing.B) {
			text, attempt := benchSplit(b, bc.size, 1_000_000)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			var spills int
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				c := attempt()
				c.MemoryMB = defaultMemoryMB
				var stats sortStats
				c.sortOpts.stats = &stats
				b.StartTimer()
				start := cpuTime(b)
				if err := wcMap(c, nil); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime(b) - start
				b.StopTimer()
				spills = stats.spills
				_ = os.RemoveAll(filepath.Join(c.WorkDir)) // 128 MiB of hard link and outputs
				b.StartTimer()
			}
			b.ReportMetric(float64(spills), "spills")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the CPU time the process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
