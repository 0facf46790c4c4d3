package task

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

type rec struct {
	key string
	n   int64
}

// sliceSource is a recordSource over records given in order.
type sliceSource struct {
	recs []rec
	key  []byte
}

func (s *sliceSource) next() ([]byte, int64, error) {
	if len(s.recs) == 0 {
		return nil, 0, io.EOF
	}
	r := s.recs[0]
	s.recs = s.recs[1:]
	s.key = append(s.key[:0], r.key...)
	return s.key, r.n, nil
}

func (s *sliceSource) close() error { return nil }

func collect(t *testing.T, src recordSource) []rec {
	t.Helper()
	var out []rec
	if err := copyRecords(src, func(k []byte, n int64) error { out = append(out, rec{string(k), n}); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRunFilesKeepAnyBytesAndCounts(t *testing.T) {
	recs := []rec{
		{"", 3},                           // an empty line, as sort sees it
		{"\x00\t\n\r", -7},                // no byte needs escaping; counts may be negative
		{"a", 1 << 62},                    // counts take all 64 bits
		{"école", 2},                      // UTF-8 is just bytes
		{strings.Repeat("z", 200<<10), 1}, // longer than any read buffer
		{"\xff\xfe", 1},
	}
	path := filepath.Join(t.TempDir(), "run")
	w, err := createRun(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := copyRecords(&sliceSource{recs: recs}, w.write); err != nil {
		t.Fatal(err)
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	src, err := fileRun(path).open()
	if err != nil {
		t.Fatal(err)
	}
	got := collect(t, src)
	if fmt.Sprint(got) != fmt.Sprint(recs) {
		t.Errorf("read back %d records, want the %d written, equal", len(got), len(recs))
	}

	// A run cut inside a record is an error, not a shorter run.
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, body[:len(body)-2], 0o644); err != nil {
		t.Fatal(err)
	}
	src, err = fileRun(path).open()
	if err != nil {
		t.Fatal(err)
	}
	err = copyRecords(src, func([]byte, int64) error { return nil })
	if !errors.Is(err, errCorruptRun) {
		t.Errorf("reading a cut run: %v, want errCorruptRun", err)
	}
}

func TestMergeSumsEqualKeysAcrossRunsInKeyOrder(t *testing.T) {
	runs := [][]rec{
		{{"a", 1}, {"c", 2}, {"c", 1}}, // a run may repeat a key
		{{"a", 3}, {"b", 1}},
		{},
		{{"b", 10}, {"d", 1}},
	}
	var srcs []run
	for _, r := range runs {
		srcs = append(srcs, memRun{&sliceSource{recs: r}})
	}
	s := newExternalSorter(&Context{WorkDir: t.TempDir()})
	var got []rec
	err := s.merge(func(k []byte, n int64) error { got = append(got, rec{string(k), n}); return nil }, srcs...)
	if err != nil {
		t.Fatal(err)
	}
	// a: 1+3, b: 1+10, c: 2+1, d: 1.
	if want := []rec{{"a", 4}, {"b", 11}, {"c", 3}, {"d", 1}}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("merged %v, want %v", got, want)
	}
}

func TestMergeOfMoreRunsThanTheFanInTakesPassesAndCleansUp(t *testing.T) {
	var stats sortStats
	dir := t.TempDir()
	c := &Context{WorkDir: dir, sortOpts: sortOptions{fanIn: 2, stats: &stats}}
	s := newExternalSorter(c)
	// Five spilled runs r0..r4; run i holds key "k" with count 1<<i and a
	// key of its own.
	for i := range 5 {
		err := s.spill(&sliceSource{recs: []rec{{"k", 1 << i}, {fmt.Sprintf("only%d", i), 1}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	var got []rec
	if err := s.merge(func(k []byte, n int64) error { got = append(got, rec{string(k), n}); return nil }); err != nil {
		t.Fatal(err)
	}
	// k: 1+2+4+8+16 = 31.
	want := []rec{{"k", 31}, {"only0", 1}, {"only1", 1}, {"only2", 1}, {"only3", 1}, {"only4", 1}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("merged %v, want %v", got, want)
	}
	// Fan-in 2 over [r0 r1 r2 r3 r4]: r0+r1→m0 [r2 r3 r4 m0], r2+r3→m1
	// [r4 m0 m1], r4+m0→m2 [m1 m2], then the final pass: 4 passes.
	if stats.spills != 5 || stats.passes != 4 {
		t.Errorf("spills %d, passes %d; want 5 and 4", stats.spills, stats.passes)
	}
	// Merged runs are removed as they are consumed: only m1 and m2 remain.
	if entries, err := os.ReadDir(s.dir); err != nil || len(entries) != 2 {
		t.Errorf("spill directory holds %d files (%v), want 2", len(entries), err)
	}
	s.cleanup()
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("after cleanup the work dir holds %d entries (%v), want none", len(entries), err)
	}
}

func TestSpillBudgetComesFromTheAskOrTheEnvironment(t *testing.T) {
	cases := []struct {
		memoryMB, spillBytes, want int64
	}{
		{256, 0, 107374182},     // 256 MiB * 40 / 100
		{1024, 0, 429496729},    // 1 GiB * 40 / 100
		{0, 0, 107374182},       // no ask (not under a worker): as for 256
		{2, 0, 1 << 20},         // 2 MiB * 40% = 0.8 MiB, raised to minSpillBytes
		{256, 4096, 4096},       // EBB_TASK_SPILL_BYTES wins
		{256, 1 << 40, 1 << 40}, // even above the ask: whoever set it asked for it
	}
	for _, c := range cases {
		ctx := &Context{MemoryMB: c.memoryMB, SpillBytes: c.spillBytes}
		if got := ctx.spillBudget(); got != c.want {
			t.Errorf("MemoryMB %d, SpillBytes %d: budget %d, want %d", c.memoryMB, c.spillBytes, got, c.want)
		}
	}

	env := fullEnv()
	env[EnvSpillBytes] = "65536"
	if c, err := fromLookup(lookupIn(env)); err != nil || c.SpillBytes != 65536 {
		t.Errorf("%s=65536: %v, SpillBytes %d", EnvSpillBytes, err, c.SpillBytes)
	}
	for _, bad := range []string{"lots", "0", "-1"} {
		env[EnvSpillBytes] = bad
		if _, err := fromLookup(lookupIn(env)); err == nil || !strings.Contains(err.Error(), EnvSpillBytes) {
			t.Errorf("%s=%q: error %v, want one naming it", EnvSpillBytes, bad, err)
		}
	}
}

func TestLimitMemorySetsTheGoLimitAndRestoresIt(t *testing.T) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		t.Skip("GOMEMLIMIT is set, and limitMemory leaves it alone")
	}
	before := debug.SetMemoryLimit(-1)
	restore := limitMemory(256)
	// 256 MiB * 70 / 100 = 187904819 bytes.
	if got := debug.SetMemoryLimit(-1); got != 187904819 {
		t.Errorf("limit %d, want 187904819", got)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("after restore the limit is %d, want %d as before", got, before)
	}
}
