package task

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkWordCountMap runs wc-map as the MR-vs-ebb bench runs each of
// its maps: one 128 MiB split with a 256 MB ask (so a 102 MiB buffer) and
// two reduce partitions. The 1g input's split is zipf text over 1,000,000
// words (~900,000 distinct in a split); the -small variant (16 MiB, far
// fewer distinct words, so the table mostly stays in the cache) shows how
// much of the time is the table's; the "distinct" input's split is drawn
// evenly from 14,800,000 words, so nearly every word is new and the table
// spills. MB/s is the split's bytes per second of wc-map, from the first
// read to the closed outputs. cpu-ns/op is the process's CPU time (user
// and system) per op, steadier than ns/op on a machine shared with other
// work.
func BenchmarkWordCountMap(b *testing.B) {
	for _, bc := range []struct {
		name string
		text func() []byte
	}{
		{"bench-split-128MiB", func() []byte { return zipfText(128<<20, 1_000_000, 3) }},
		{"small-16MiB", func() []byte { return zipfText(16<<20, 1_000_000, 3) }},
		{"distinct-split-128MiB", func() []byte { return uniformText(128<<20, 14_800_000, 4) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			text := bc.text()
			attempt := benchSplit(b, text)
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
				_ = os.RemoveAll(c.WorkDir) // the hard link and the outputs, before the next attempt
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

// BenchmarkWordCountReduce runs wc-reduce as each of the 1g bench's two
// reducers runs: it merges partition 0 of eight maps' outputs. The maps
// here count 16 MiB of the bench's text each (different seeds), an eighth
// of the bench's splits, so the setup stays short: ~300,000 distinct words
// a map instead of ~900,000.
func BenchmarkWordCountReduce(b *testing.B) {
	inputs := map[string]string{}
	var size int64
	for i := range 8 {
		text := zipfText(16<<20, 1_000_000, int64(10+i))
		c := newTestContext(b, map[string]string{"_splits/0": string(text)}, Output{"reduce", 2})
		if err := wcMap(c, nil); err != nil {
			b.Fatal(err)
		}
		part, err := os.ReadFile(filepath.Join(c.OutputDir, "reduce", "0"))
		if err != nil {
			b.Fatal(err)
		}
		inputs[filepath.Join("map", strconv.Itoa(i))] = string(part)
		size += int64(len(part))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		c := newTestContext(b, inputs, Output{"next", 1})
		c.MemoryMB = defaultMemoryMB
		b.StartTimer()
		start := cpuTime(b)
		if err := wcReduce(c, nil); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime(b) - start
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}
