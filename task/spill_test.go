package task

import (
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// genText writes lines of words drawn from vocab distinct words, half of
// them from the first 50 (so counts above 1 are common), seeded so every
// run sees the same text. Some words are upper-case or non-ASCII and some
// lines end in "\r\n" or are empty, so the word splitting is exercised
// along with the spills.
func genText(seed uint64, lines, vocab int) string {
	r := rand.New(rand.NewPCG(seed, 1))
	extra := []string{"École", "STRASSE", "straße", "日本語", "x42"}
	var b strings.Builder
	for range lines {
		for i := range r.IntN(12) {
			if i > 0 {
				b.WriteString(" ,"[r.IntN(2):][:1])
			}
			switch k := r.IntN(20); {
			case k == 0:
				b.WriteString(extra[r.IntN(len(extra))])
			case k < 10:
				b.WriteString(genWord(r.IntN(50)))
			default:
				b.WriteString(genWord(r.IntN(vocab)))
			}
		}
		b.WriteString([]string{"\n", "\r\n"}[r.IntN(2)])
	}
	return b.String()
}

// genWord spells i in base 26, least significant letter first.
func genWord(i int) string {
	var w []byte
	for {
		w = append(w, byte('a'+i%26))
		if i < 26 {
			return string(w)
		}
		i = i/26 - 1
	}
}

// inMemoryWordCount is what wc-map wrote before spilling existed: every
// word counted in one map, sorted, and written to partition
// fnv32a(word) % n of every edge or to the sink.
func inMemoryWordCount(counts map[string]int64, outs []Output) map[string]string {
	words := slices.Sorted(maps.Keys(counts))
	files := map[string]*strings.Builder{}
	add := func(name, line string) {
		if files[name] == nil {
			files[name] = &strings.Builder{}
		}
		files[name].WriteString(line + "\n")
	}
	for _, o := range outs {
		for p := range o.Partitions {
			files[filepath.Join(o.Consumer, strconv.Itoa(p))] = &strings.Builder{}
		}
	}
	for _, w := range words {
		line := w + "\t" + strconv.FormatInt(counts[w], 10)
		if len(outs) == 0 {
			add(SinkFile, line)
		}
		for _, o := range outs {
			add(filepath.Join(o.Consumer, strconv.Itoa(HashPartition([]byte(w), o.Partitions))), line)
		}
	}
	out := map[string]string{}
	for name, b := range files {
		out[name] = b.String()
	}
	return out
}

func countWords(texts ...string) map[string]int64 {
	counts := map[string]int64{}
	for _, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			_ = forEachWord([]byte(line), func(w []byte) error { counts[string(w)]++; return nil }) // fn never fails
		}
	}
	return counts
}

// outputFiles reads every file under the output directory.
func outputFiles(t *testing.T, c *Context) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(c.OutputDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(c.OutputDir, p)
		if err != nil {
			return err
		}
		out[rel] = readFile(t, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFiles(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want))) {
		t.Errorf("%s: files %v, want %v", what, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
		return
	}
	for name, w := range want {
		if g := got[name]; g != w {
			t.Errorf("%s: %s differs: %d bytes, %d lines; want %d bytes, %d lines",
				what, name, len(g), strings.Count(g, "\n"), len(w), strings.Count(w, "\n"))
		}
	}
}

// budgets are the spill budgets every task is run with: one nothing
// spills under, and one so small that a few hundred records fill it, with
// a fan-in of 3 so the merge takes several passes.
var budgets = []struct {
	name       string
	spillBytes int64
	fanIn      int
	spills     bool
}{
	{"in memory", 1 << 30, 0, false},
	{"spilling", 32 << 10, 3, true},
}

func TestWCMapSpillingWritesWhatTheInMemoryCountWrote(t *testing.T) {
	splits := map[string]string{"_splits/0": genText(1, 3000, 20000), "_splits/1": genText(2, 3000, 20000)}
	counts := countWords(splits["_splits/0"], splits["_splits/1"])
	for _, outs := range [][]Output{nil, {{"reduce", 3}, {"audit", 1}}, {{"wide", 40}}} {
		want := inMemoryWordCount(counts, outs)
		for _, b := range budgets {
			var stats sortStats
			c := newTestContext(t, splits, outs...)
			c.SpillBytes, c.sortOpts = b.spillBytes, sortOptions{fanIn: b.fanIn, stats: &stats}
			if err := wcMap(c, nil); err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("wc-map %s to %v", b.name, outs)
			sameFiles(t, what, outputFiles(t, c), want)
			if (stats.spills > 0) != b.spills {
				t.Errorf("%s: %d spills", what, stats.spills)
			}
			noSpillDirLeft(t, c)
		}
	}
}

func noSpillDirLeft(t *testing.T, c *Context) {
	t.Helper()
	if m, _ := filepath.Glob(filepath.Join(c.WorkDir, "spill-*")); len(m) > 0 {
		t.Errorf("spill directories left behind: %v", m)
	}
}

// mapOutputs runs wc-map over each text as one producer and returns each
// producer's partition p of edge "reduce:partitions".
func mapOutputs(t *testing.T, p, partitions int, texts ...string) []string {
	t.Helper()
	var outs []string
	for _, text := range texts {
		c := newTestContext(t, map[string]string{"_splits/0": text}, Output{"reduce", partitions})
		if err := wcMap(c, nil); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, readOut(t, c, filepath.Join("reduce", strconv.Itoa(p))))
	}
	return outs
}

func TestWCReduceMergingOrSpillingWritesWhatTheInMemorySumWrote(t *testing.T) {
	texts := []string{genText(3, 2000, 20000), genText(4, 2000, 20000), genText(5, 2000, 20000), "", genText(6, 10, 50)}
	sorted := mapOutputs(t, 0, 1, texts...)
	// The same lines out of order, as a cat producer would pass them on.
	var shuffled []string
	r := rand.New(rand.NewPCG(7, 7))
	for _, s := range sorted {
		lines := strings.SplitAfter(s, "\n")
		r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		shuffled = append(shuffled, strings.Join(lines, ""))
	}
	outs := []Output{{"next", 5}}
	want := inMemoryWordCount(countWords(texts...), outs)
	for _, in := range []struct {
		name   string
		files  []string
		spills bool // whether the spilling budget spills
	}{
		{"sorted", sorted, false}, // merged as they are: no budget needed
		{"unsorted", shuffled, true},
	} {
		inputs := map[string]string{}
		for i, body := range in.files {
			inputs[fmt.Sprintf("map/%d", i)] = body
		}
		for _, b := range budgets {
			var stats sortStats
			c := newTestContext(t, inputs, outs...)
			c.SpillBytes, c.sortOpts = b.spillBytes, sortOptions{fanIn: b.fanIn, stats: &stats}
			if err := wcReduce(c, nil); err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("wc-reduce of %s inputs %s", in.name, b.name)
			sameFiles(t, what, outputFiles(t, c), want)
			if (stats.spills > 0) != (b.spills && in.spills) {
				t.Errorf("%s: %d spills", what, stats.spills)
			}
			noSpillDirLeft(t, c)
		}
	}
}

func TestSortSpillingWritesWhatTheInMemorySortWrote(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	var lines []string
	for i := range 6000 {
		switch i % 100 {
		case 0:
			lines = append(lines, "") // empty lines sort first
		case 1:
			lines = append(lines, strings.Repeat("long", 3000)) // a line no chunk holds
		default:
			lines = append(lines, string(rune(' '+r.IntN(95)))+genWord(r.IntN(3000)))
		}
	}
	lines = append(lines, "\xff\xfe", "~tilde")
	third := len(lines) / 3
	inputs := map[string]string{
		"a/0": strings.Join(lines[:third], "\n") + "\n",
		"a/1": strings.Join(lines[third:2*third], "\r\n") + "\r\n",
		"a/2": strings.Join(lines[2*third:], "\n"),
	}
	sorted := sortedCopy(lines)
	outs := []Output{{"next", 4}}
	// What sort wrote before spilling: all lines sorted, each to partition
	// firstByte*4/256.
	want := map[string]string{}
	for p := range 4 {
		want[filepath.Join("next", strconv.Itoa(p))] = ""
	}
	for _, l := range sorted {
		want[filepath.Join("next", strconv.Itoa(RangePartition([]byte(l), 4)))] += l + "\n"
	}
	for _, b := range budgets {
		var stats sortStats
		c := newTestContext(t, inputs, outs...)
		c.SpillBytes, c.sortOpts = b.spillBytes, sortOptions{fanIn: b.fanIn, stats: &stats}
		if err := sortLines(c, nil); err != nil {
			t.Fatal(err)
		}
		sameFiles(t, "sort "+b.name, outputFiles(t, c), want)
		if (stats.spills > 0) != b.spills {
			t.Errorf("sort %s: %d spills", b.name, stats.spills)
		}
		noSpillDirLeft(t, c)
	}
}

// heapPeak measures the live heap, after a collection, at every probe of
// the external sort (when buffered records peak and every few thousand
// merged keys), above what was live when it was made.
type heapPeak struct {
	base, peak uint64
	probes     int
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func newHeapPeak() *heapPeak { return &heapPeak{base: liveHeap()} }

func (h *heapPeak) probe() {
	h.probes++
	if live := liveHeap(); live > h.base {
		h.peak = max(h.peak, live-h.base)
	}
}

// heapSlack is what a task holds beside its buffered records: 64 KiB
// buffers for the input, each output file (4 here) and each run being
// read or written (about 10 here), and the first chunk of counts (32 KiB).
const heapSlack = 1 << 20

func TestWordCountHeapStaysUnderTheSpillBudget(t *testing.T) {
	// 100,000 lines of 5.5 words on average, 45% of them drawn from
	// 400,000: 400,000*(1-e^(-247,500/400,000)) ≈ 185,000 distinct words
	// of ~4 letters. countTable holds them in 16-byte slots at most half
	// full: 2^19 slots, 8 MiB, twice the budget and slack; within the
	// budget it stops growing at 2^17 slots (growing to 2^18 would hold
	// 2+4 MiB), 65,536 words a run.
	const budget = 4 << 20
	c := newTestContext(t, map[string]string{"_splits/0": genText(9, 100000, 400000)}, Output{"reduce", 4})
	var stats sortStats
	h := newHeapPeak()
	c.SpillBytes, c.sortOpts = budget, sortOptions{probe: h.probe, stats: &stats}
	if err := wcMap(c, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("wc-map: %d spills, peak live heap %d KiB above the start over %d probes", stats.spills, h.peak>>10, h.probes)
	if stats.spills < 3 {
		t.Errorf("%d spills: the input should need several", stats.spills)
	}
	if h.peak > budget+heapSlack {
		t.Errorf("wc-map: live heap peaked %d KiB above the start, want at most the %d KiB budget plus %d KiB",
			h.peak>>10, budget>>10, heapSlack>>10)
	}

	// The reduce of those counts merges the sorted partition without
	// buffering words, so its heap stays under the slack alone.
	inputs := map[string]string{"map/0": readOut(t, c, "reduce/0"), "map/1": readOut(t, c, "reduce/0")}
	r := newTestContext(t, inputs, Output{"next", 4})
	stats = sortStats{}
	h = newHeapPeak()
	r.SpillBytes, r.sortOpts = budget, sortOptions{probe: h.probe, stats: &stats}
	if err := wcReduce(r, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("wc-reduce: %d spills, peak live heap %d KiB above the start over %d probes", stats.spills, h.peak>>10, h.probes)
	if stats.spills != 0 || h.probes == 0 || h.peak > heapSlack {
		t.Errorf("wc-reduce: %d spills, live heap peaked %d KiB above the start over %d probes; want no spill and at most %d KiB",
			stats.spills, h.peak>>10, h.probes, heapSlack>>10)
	}
}

func TestSortHeapStaysUnderTheSpillBudget(t *testing.T) {
	// 200,000 distinct lines of ~30 bytes: 6 MB of text, ~19 MB buffered
	// with 64 bytes a line, five times the budget.
	const budget = 4 << 20
	r := rand.New(rand.NewPCG(10, 10))
	var b strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&b, "%08x %s %d\n", r.Uint32(), genWord(i), i)
	}
	c := newTestContext(t, map[string]string{"x/0": b.String()}, Output{"next", 4})
	b = strings.Builder{}
	var stats sortStats
	h := newHeapPeak()
	c.SpillBytes, c.sortOpts = budget, sortOptions{probe: h.probe, stats: &stats}
	if err := sortLines(c, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("sort: %d spills, peak live heap %d KiB above the start over %d probes", stats.spills, h.peak>>10, h.probes)
	if stats.spills < 3 {
		t.Errorf("%d spills: the input should need several", stats.spills)
	}
	if h.peak > budget+heapSlack {
		t.Errorf("sort: live heap peaked %d KiB above the start, want at most the %d KiB budget plus %d KiB",
			h.peak>>10, budget>>10, heapSlack>>10)
	}
}

// benchInput is ~8 MB of text with ~150,000 distinct words.
func benchInput(b *testing.B) map[string]string {
	b.Helper()
	return map[string]string{"_splits/0": genText(11, 150000, 300000)}
}

func benchTask(b *testing.B, run func(*Context, []string) error, inputs map[string]string, spillBytes int64) {
	var size int64
	for _, s := range inputs {
		size += int64(len(s))
	}
	b.SetBytes(size)
	for b.Loop() {
		b.StopTimer()
		c := newTestContext(b, inputs, Output{"reduce", 4})
		c.SpillBytes = spillBytes
		b.StartTimer()
		if err := run(c, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWCMap counts ~8 MB: all in memory, and spilling about ten runs.
func BenchmarkWCMap(b *testing.B) {
	in := benchInput(b)
	b.Run("in-memory", func(b *testing.B) { benchTask(b, wcMap, in, 1<<30) })
	b.Run("spilling", func(b *testing.B) { benchTask(b, wcMap, in, 2<<20) })
}

// BenchmarkWCReduce sums two producers' sorted counts of ~8 MB of text:
// merged as they come, and counted with spills as if unsorted.
func BenchmarkWCReduce(b *testing.B) {
	c := newTestContext(b, benchInput(b), Output{"reduce", 1})
	if err := wcMap(c, nil); err != nil {
		b.Fatal(err)
	}
	part, err := os.ReadFile(filepath.Join(c.OutputDir, "reduce", "0"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("sorted", func(b *testing.B) {
		benchTask(b, wcReduce, map[string]string{"m/0": string(part), "m/1": string(part)}, 2<<20)
	})
	b.Run("unsorted", func(b *testing.B) {
		benchTask(b, func(c *Context, _ []string) error { return reduceUnsorted(c) }, map[string]string{"m/0": string(part), "m/1": string(part)}, 2<<20)
	})
}

// BenchmarkSort sorts ~8 MB of lines: all in memory, and spilling.
func BenchmarkSort(b *testing.B) {
	in := benchInput(b)
	b.Run("in-memory", func(b *testing.B) { benchTask(b, sortLines, in, 1<<30) })
	b.Run("spilling", func(b *testing.B) { benchTask(b, sortLines, in, 2<<20) })
}
