package task

import (
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
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

func noSpillDirLeft(t *testing.T, c *Context) {
	t.Helper()
	if m, _ := filepath.Glob(filepath.Join(c.WorkDir, "spill-*")); len(m) > 0 {
		t.Errorf("spill directories left behind: %v", m)
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

// BenchmarkSort sorts ~8 MB of lines: all in memory, and spilling.
func BenchmarkSort(b *testing.B) {
	in := benchInput(b)
	b.Run("in-memory", func(b *testing.B) { benchTask(b, sortLines, in, 1<<30) })
	b.Run("spilling", func(b *testing.B) { benchTask(b, sortLines, in, 2<<20) })
}
