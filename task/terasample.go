package task

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
)

// The total-order sort of fixed-length records (TeraSort's workload) is
// three built-ins on a DAG of sample -> map (broadcast) and map -> reduce
// (scatter-gather); examples/terasort.yaml is one:
//
//   - tera-sample: each of its tasks reads the first sampleSize/parallelism
//     keys of its split and stops, as TeraSort's client reads the first
//     records of ten splits spread over the input (TeraInputFormat's
//     writePartitionFile; 100,000 keys by default);
//   - tera-map: reads every sample, sorts the keys and takes n-1 cut points
//     for the n partitions of its edge (partition i starts at the key of
//     rank round(i * keys / n), as TeraSort's createPartitions), then
//     sends each record of its splits to the partition whose range holds
//     its key; every map computes the same cuts from the same samples;
//   - tera-reduce: sorts the records it receives (an external sort within
//     its memory budget) and writes them as they were read, so its output
//     files, in task order, are one sorted sequence.

// teraSample writes the first keys of the task's splits to every edge.
func teraSample(c *Context, args []string) error {
	fs := flag.NewFlagSet("tera-sample", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	sampleSize := fs.Int64("sample-size", 100000, "keys sampled over all tasks of the vertex")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || *sampleSize < 1 {
		return fmt.Errorf("%w: tera-sample [--sample-size N>0], got %q", ErrUsage, args)
	}
	want := *sampleSize / int64(max(c.Parallelism, 1))
	if c.TaskIndex < int(*sampleSize%int64(max(c.Parallelism, 1))) {
		want++ // the remainder to the first tasks: sampleSize keys in all
	}
	files, err := c.splitFiles()
	if err != nil {
		return err
	}
	ws, err := c.OpenWriters()
	if err != nil {
		return err
	}
	var taken int64
	err = c.readRecordFiles(files, RecordLength, func(rec []byte) error {
		if taken >= want {
			return errStopReading
		}
		taken++
		return ws.EmitRecord(rec[:KeyLength], func(int) int { return 0 })
	})
	if err != nil {
		_ = ws.Close() // the task fails with err; its outputs are discarded
		return err
	}
	return ws.Close()
}

// splitFiles lists the task's input splits, input/_splits/<i>, in split
// order.
func (c *Context) splitFiles() ([]string, error) {
	files, err := c.InputFiles()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(c.InputDir, "_splits") + string(filepath.Separator)
	var out []string
	for _, f := range files {
		if strings.HasPrefix(f, dir) {
			out = append(out, f)
		}
	}
	// Sorted as numbers: _splits/10 comes after _splits/9.
	slices.SortFunc(out, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	return out, nil
}

// sampleFiles lists every input that is not a split: what upstream
// vertices (tera-sample) sent.
func (c *Context) sampleFiles() ([]string, error) {
	files, err := c.InputFiles()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(c.InputDir, "_splits") + string(filepath.Separator)
	return slices.DeleteFunc(files, func(f string) bool { return strings.HasPrefix(f, dir) }), nil
}

// cutPoints sorts the sampled keys and picks the n-1 keys that start
// partitions 1..n-1: the key of rank round(i * len(keys) / n) starts
// partition i. It refuses more partitions than keys, as TeraSort does.
func cutPoints(keys [][]byte, n int) ([][]byte, error) {
	if n < 1 {
		return nil, fmt.Errorf("%d partitions: want at least 1", n)
	}
	if n > len(keys) {
		return nil, fmt.Errorf("%d partitions from %d sampled keys: want at least as many keys as partitions (a larger --sample-size, or an input at all)", n, len(keys))
	}
	slices.SortFunc(keys, bytes.Compare)
	step := float64(len(keys)) / float64(n)
	cuts := make([][]byte, 0, n-1)
	for i := 1; i < n; i++ {
		cuts = append(cuts, keys[min(int(math.Floor(step*float64(i)+0.5)), len(keys)-1)])
	}
	return cuts, nil
}

// cutPartition is the partition whose range holds key: the number of cut
// points at or below it, so a key equal to a cut point starts that cut's
// partition (keys below the first cut go to partition 0).
func cutPartition(cuts [][]byte, key []byte) int {
	lo, hi := 0, len(cuts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(cuts[m], key) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
