package shuffle

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

type rec struct{ k, v string }

// collect runs records through a collector with the given buffer and
// returns what each partition file holds.
func collect(t *testing.T, recs []rec, parts int, buffer int64, cmp Compare, combine func(Source, func(k, v []byte) error) error) ([][]rec, Stats) {
	t.Helper()
	return collectWith(t, recs, Config{Partitions: parts, BufferBytes: buffer, Compare: cmp, Combine: combine})
}

func collectWith(t *testing.T, recs []rec, cfg Config) ([][]rec, Stats) {
	t.Helper()
	dir := t.TempDir()
	parts := cfg.Partitions
	cfg.Dir = filepath.Join(dir, "spills")
	c := NewCollector(cfg)
	for _, r := range recs {
		if err := c.Add([]byte(r.k), []byte(r.v)); err != nil {
			t.Fatal(err)
		}
	}
	err := c.Finish(func(p int) (io.WriteCloser, error) {
		return os.Create(filepath.Join(dir, strconv.Itoa(p)))
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Cleanup()
	if left, _ := os.ReadDir(filepath.Join(dir, "spills")); len(left) > 0 {
		t.Errorf("cleanup left %d spills", len(left))
	}
	out := make([][]rec, parts)
	for p := range parts {
		f, err := os.Open(filepath.Join(dir, strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("partition %d: %v", p, err)
		}
		rr := NewRunReader(f, 4096, f.Name())
		for {
			k, v, err := rr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			out[p] = append(out[p], rec{string(k), string(v)})
		}
		_ = f.Close()
	}
	return out, c.Stats
}

// want is the reference: each record in its HashPartitioner partition,
// each partition stably sorted by key.
func want(recs []rec, parts int, cmp Compare) [][]rec {
	out := make([][]rec, parts)
	for _, r := range recs {
		p := HashPartitioner{}.Partition([]byte(r.k), parts)
		out[p] = append(out[p], r)
	}
	for _, o := range out {
		slices.SortStableFunc(o, func(a, b rec) int { return cmp([]byte(a.k), []byte(b.k)) })
	}
	return out
}

func randomRecords(n int, seed uint64) []rec {
	rng := rand.New(rand.NewPCG(seed, 1))
	recs := make([]rec, n)
	for i := range recs {
		recs[i] = rec{k: fmt.Sprintf("key%03d", rng.IntN(300)), v: strconv.Itoa(i)}
	}
	return recs
}

// TestCollectorSpillsAndMerges: the same records give the same partition
// files whether they fit in memory or spill many times, and equal keys keep
// the order they came in (spills are merged oldest first).
func TestCollectorSpillsAndMerges(t *testing.T) {
	recs := randomRecords(20000, 7)
	ref := want(recs, 4, bytes.Compare)
	// About 30 bytes per record (key 6, value ≤ 5, meta 16): 20000
	// records are ~600 KB; 64 KiB buffers spill about ten times.
	for _, buffer := range []int64{1 << 30, 64 << 10} {
		got, st := collect(t, recs, 4, buffer, bytes.Compare, nil)
		if buffer < 1<<20 && st.Spills < 5 {
			t.Errorf("buffer %d: %d spills, want at least 5", buffer, st.Spills)
		}
		if st.MaxBuffered > buffer {
			t.Errorf("buffer %d: held %d bytes at once", buffer, st.MaxBuffered)
		}
		for p := range ref {
			if !slices.Equal(got[p], ref[p]) {
				t.Errorf("buffer %d: partition %d differs from the stable sort (%d records vs %d)", buffer, p, len(got[p]), len(ref[p]))
			}
		}
	}
}

// TestCollectorWritesEveryPartition: partitions without records still
// get their (empty) file, which the task contract needs.
func TestCollectorWritesEveryPartition(t *testing.T) {
	got, _ := collect(t, []rec{{"a", "1"}}, 5, 1<<20, bytes.Compare, nil)
	n := 0
	for _, p := range got {
		n += len(p)
	}
	if n != 1 {
		t.Errorf("records written = %d, want 1", n)
	}
}

// TestCollectorCombinesEachSpill: the combiner runs once per non-empty
// partition of each spill and its output replaces the records.
func TestCollectorCombinesEachSpill(t *testing.T) {
	var recs []rec
	for i := range 30000 {
		recs = append(recs, rec{k: fmt.Sprintf("w%d", i%10), v: "1"})
	}
	got, st := collect(t, recs, 2, 64<<10, bytes.Compare, sumCombiner)
	if st.Spills < 2 {
		t.Fatalf("%d spills, want several", st.Spills)
	}
	totals := map[string]int{}
	lines := 0
	for _, p := range got {
		for _, r := range p {
			n, _ := strconv.Atoi(r.v)
			totals[r.k] += n
			lines++
		}
	}
	for i := range 10 {
		if totals[fmt.Sprintf("w%d", i)] != 3000 {
			t.Errorf("w%d sums to %d, want 3000", i, totals[fmt.Sprintf("w%d", i)])
		}
	}
	if lines > int(st.Spills)*10 {
		t.Errorf("%d records after combining %d spills: the combiner did not run on each", lines, st.Spills)
	}
}

// TestCollectorCombinesTheFinalMerge: with CombineMinSpills spills or
// more (Hadoop's mapreduce.map.combine.minspills, 3 by default), the
// merge of each partition goes through the combiner again, as
// MapTask.mergeParts does, so each key leaves the producer once; with
// fewer, the merge is written as it is.
func TestCollectorCombinesTheFinalMerge(t *testing.T) {
	var recs []rec
	for i := range 30000 {
		recs = append(recs, rec{k: fmt.Sprintf("w%d", i%10), v: "1"})
	}
	for _, x := range []struct {
		minSpills int
		merged    bool
	}{{0, true}, {3, true}, {1000, false}} {
		got, st := collectWith(t, recs, Config{Partitions: 2, BufferBytes: 64 << 10, Combine: sumCombiner, CombineMinSpills: x.minSpills})
		if st.Spills < 3 {
			t.Fatalf("%d spills, want 3 or more", st.Spills)
		}
		keys, lines := map[string]bool{}, 0
		for _, p := range got {
			for _, r := range p {
				keys[r.k] = true
				lines++
			}
		}
		if x.merged && (lines != 10 || st.CombineRuns != st.Spills*2+2) {
			t.Errorf("minSpills %d: %d records of %d keys, %d combiner runs over %d spills; want each key once, a run per spill and partition, then one per partition",
				x.minSpills, lines, len(keys), st.CombineRuns, st.Spills)
		}
		if !x.merged && (lines != int(st.Spills)*10 || st.CombineRuns != st.Spills*2) {
			t.Errorf("minSpills %d: %d records, %d combiner runs over %d spills; want each key once per spill, no run over the merge",
				x.minSpills, lines, st.CombineRuns, st.Spills)
		}
	}
}

// sumCombiner sums the counts of each key's run.
func sumCombiner(in Source, emit func(k, v []byte) error) error {
	var cur []byte
	n := 0
	for {
		k, v, err := in.Next()
		if err == io.EOF || (err == nil && cur != nil && !bytes.Equal(k, cur)) {
			if cur != nil {
				if e := emit(cur, []byte(strconv.Itoa(n))); e != nil {
					return e
				}
			}
			if err == io.EOF {
				return nil
			}
			n = 0
		}
		if err != nil {
			return err
		}
		cur = append(cur[:0], k...)
		c, _ := strconv.Atoi(string(v))
		n += c
	}
}

func TestLineReaderEndings(t *testing.T) {
	in := "a\nb\r\nc\rd\r\r\ne\n\nf"
	lr := NewLineReader(bytes.NewBufferString(in))
	var got []string
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(l))
	}
	// LF, CRLF and CR each end a line; "d\r\r\n" is "d" then an empty
	// line; a last line without an ending counts.
	want := []string{"a", "b", "c", "d", "", "e", "", "f"}
	if !slices.Equal(got, want) {
		t.Errorf("lines = %q, want %q", got, want)
	}
	if lr.Consumed != int64(len(in)) {
		t.Errorf("consumed %d of %d bytes", lr.Consumed, len(in))
	}
}

// TestLineReaderCRLFAcrossBuffers: a CR at the end of one buffer and the
// LF at the start of the next are one ending.
func TestLineReaderCRLFAcrossBuffers(t *testing.T) {
	line := bytes.Repeat([]byte("x"), 64<<10-1)
	in := append(append(slices.Clone(line), '\r', '\n'), "y\n"...)
	lr := NewLineReader(bytes.NewReader(in))
	var got []int
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		got = append(got, len(l))
	}
	if !slices.Equal(got, []int{len(line), 1}) {
		t.Errorf("line lengths = %v, want [%d 1]", got, len(line))
	}
}

func TestSplitter(t *testing.T) {
	for _, c := range []struct {
		sep      string
		n        int
		line     string
		key, val string
	}{
		{"\t", 1, "a\tb\tc", "a", "b\tc"},
		{"\t", 2, "a\tb\tc", "a\tb", "c"},
		{"\t", 3, "a\tb\tc", "a\tb\tc", ""},
		{"\t", 1, "no tab", "no tab", ""},
		{"\t", 0, "a\tb", "a", "b"},
		{"::", 1, "a::b::c", "a", "b::c"},
		{".", 2, "1.2.3.4", "1.2", "3.4"},
		{"\t", 1, "", "", ""},
	} {
		k, v := Splitter{Separator: []byte(c.sep), KeyFields: c.n}.Split([]byte(c.line))
		if string(k) != c.key || string(v) != c.val {
			t.Errorf("split %q at %q ×%d = %q, %q; want %q, %q", c.line, c.sep, c.n, k, v, c.key, c.val)
		}
	}
}

func TestParseKeyFieldsRefusesMalformedSpecs(t *testing.T) {
	for _, bad := range []string{"-k", "-kx", "-k1.", "-k1,", "-k1,2x", "-k1x", "-k 1..2", "-k1.2.3"} {
		if bad == "-k" {
			continue // Hadoop ignores a bare -k at the end
		}
		_, err := ParseKeyFields(bad, nil)
		if err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	kf, err := ParseKeyFields("-k2,2nr -k1", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []KeySpec{{F1: 2, C1: 1, F2: 2, Numeric: true, Reverse: true}, {F1: 1, C1: 1}}
	if !slices.Equal(kf.Specs, want) {
		t.Errorf("specs = %+v, want %+v", kf.Specs, want)
	}
}
