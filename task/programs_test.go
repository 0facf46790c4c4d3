package task

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const text = "The cat, the HAT!\nÉcole école 42 x42\n\nthe end\n"

// textCounts are the counts of text, by hand.
var textCounts = map[string]int{"the": 3, "cat": 1, "hat": 1, "école": 2, "42": 1, "x42": 1, "end": 1}

func TestWordsAreRunsOfLettersOrDigitsLowercased(t *testing.T) {
	cases := map[string][]string{
		"Hello, World!":   {"hello", "world"},
		"don't stop":      {"don", "t", "stop"},
		"a1b2 3c":         {"a1b2", "3c"},
		"Straße ΣΊΣΥΦΟΣ":  {"straße", "σίσυφοσ"},
		"tab\tsep\x00nul": {"tab", "sep", "nul"},
		"bad\xffutf8":     {"bad", "utf8"},
		"  ":              nil,
		"日本語のテキスト":        {"日本語のテキスト"},
	}
	for in, want := range cases {
		var got []string
		var buf []byte
		_ = scanWords([]byte(in), &buf, func(w []byte) error { got = append(got, string(w)); return nil }) // fn never fails
		if !slices.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

func wantCountLines(counts map[string]int) []string {
	var lines []string
	for w, n := range counts {
		lines = append(lines, fmt.Sprintf("%s\t%d", w, n))
	}
	return sortedCopy(lines)
}

func TestWCMapAsSink(t *testing.T) {
	c := newTestContext(t, map[string]string{"_splits/0": text})
	if err := wcMap(c, nil); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(readOut(t, c, SinkFile), "\n"), "\n")
	if want := wantCountLines(textCounts); !slices.Equal(got, want) {
		t.Errorf("wc-map sink = %q, want %q (sorted)", got, want)
	}
}

func TestWCMapPartitionsByWordHash(t *testing.T) {
	c := newTestContext(t, map[string]string{"_splits/0": text}, Output{"reduce", 3}, Output{"audit", 1})
	if err := wcMap(c, nil); err != nil {
		t.Fatal(err)
	}
	for _, edge := range []Output{{"reduce", 3}, {"audit", 1}} {
		var all []string
		for p, lines := range partitionLines(t, c, edge.Consumer, edge.Partitions) {
			for _, l := range lines {
				word, _, _ := strings.Cut(l, "\t")
				if hp := HashPartition([]byte(word), edge.Partitions); hp != p {
					t.Errorf("%s: %q in partition %d, hash says %d", edge.Consumer, word, p, hp)
				}
				all = append(all, l)
			}
		}
		if want := wantCountLines(textCounts); !slices.Equal(sortedCopy(all), want) {
			t.Errorf("%s: union of partitions = %q, want %q", edge.Consumer, sortedCopy(all), want)
		}
	}
}

func TestWCReduceSumsAcrossProducers(t *testing.T) {
	c := newTestContext(t, map[string]string{
		"map/0": "a\t2\nb\t1\n",
		"map/1": "b\t5\nc\t1\n",
		"map/2": "",
	})
	if err := wcReduce(c, nil); err != nil {
		t.Fatal(err)
	}
	if got := readOut(t, c, SinkFile); got != "a\t2\nb\t6\nc\t1\n" {
		t.Errorf("wc-reduce = %q", got)
	}
}

func TestWCReduceNamesTheBadLine(t *testing.T) {
	c := newTestContext(t, map[string]string{"map/0": "a\t2\nnot a count\n"})
	err := wcReduce(c, nil)
	if err == nil || !strings.Contains(err.Error(), filepath.Join("map", "0")+":2") {
		t.Errorf("error %v, want it to name map/0:2", err)
	}
}

func TestSortRangePartitionsAreTotallyOrdered(t *testing.T) {
	var lines []string
	for i := range 300 {
		lines = append(lines, string(rune('!'+i%90))+strconv.Itoa(i*7919%1000))
	}
	lines = append(lines, "", "\xff\xfe", "~tilde")
	half := len(lines) / 2
	c := newTestContext(t, map[string]string{
		"a/0": strings.Join(lines[:half], "\n") + "\n",
		"a/1": strings.Join(lines[half:], "\n") + "\n",
	}, Output{"next", 4})
	if err := sortLines(c, nil); err != nil {
		t.Fatal(err)
	}
	var concat []string
	for p, part := range partitionLines(t, c, "next", 4) {
		for _, l := range part {
			if rp := RangePartition([]byte(l), 4); rp != p {
				t.Errorf("%q in partition %d, want %d", l, p, rp)
			}
		}
		concat = append(concat, part...)
	}
	// The empty line is the first line of partition 0: partitionLines'
	// split of "\n..." keeps it.
	if !slices.IsSorted(concat) {
		t.Errorf("partitions concatenated are not sorted")
	}
	if !slices.Equal(concat, sortedCopy(lines)) {
		t.Errorf("sorted output has %d lines, want %d (the input, sorted)", len(concat), len(lines))
	}
}

func TestSortAsSink(t *testing.T) {
	c := newTestContext(t, map[string]string{"x/0": "b\nc\na\n"})
	if err := sortLines(c, nil); err != nil {
		t.Fatal(err)
	}
	if got := readOut(t, c, SinkFile); got != "a\nb\nc\n" {
		t.Errorf("sort sink = %q", got)
	}
}

func TestCatHashesLinesToPartitions(t *testing.T) {
	in := "one\ntwo\nthree\nfour\nfive\nsix\n"
	c := newTestContext(t, map[string]string{"p/0": in}, Output{"c", 2})
	if err := catLines(c, nil); err != nil {
		t.Fatal(err)
	}
	var all []string
	for p, part := range partitionLines(t, c, "c", 2) {
		for _, l := range part {
			if hp := HashPartition([]byte(l), 2); hp != p {
				t.Errorf("%q in partition %d, hash says %d", l, p, hp)
			}
		}
		all = append(all, part...)
	}
	if want := sortedCopy(strings.Fields(in)); !slices.Equal(sortedCopy(all), want) {
		t.Errorf("cat lines = %q, want %q", sortedCopy(all), want)
	}
}

func TestBurnWritesEveryPartitionAndPassesInputThrough(t *testing.T) {
	c := newTestContext(t, map[string]string{"p/0": "keep me\n"}, Output{"next", 3})
	if err := burn(c, []string{"--memory-mb", "8", "--seconds", "0.05"}); err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, part := range partitionLines(t, c, "next", 3) {
		all = append(all, part...)
	}
	if !slices.Equal(all, []string{"keep me"}) {
		t.Errorf("burn passed through %q", all)
	}
}

func TestBurnAsSinkSaysWhatItBurned(t *testing.T) {
	c := newTestContext(t, nil)
	if err := burn(c, []string{"--memory-mb", "2", "--seconds", "0"}); err != nil {
		t.Fatal(err)
	}
	if got := readOut(t, c, SinkFile); got != "burned 2 MB for 0 s\n" {
		t.Errorf("burn sink = %q", got)
	}
}

func TestBurnFailsOnlyTheFirstAttemptWhenAsked(t *testing.T) {
	c := newTestContext(t, nil)
	if err := burn(c, []string{"--fail-first-attempt"}); !errors.Is(err, ErrPlannedFailure) {
		t.Errorf("attempt 0: %v, want ErrPlannedFailure", err)
	}
	c.Attempt = 1
	if err := burn(c, []string{"--fail-first-attempt"}); err != nil {
		t.Errorf("attempt 1: %v", err)
	}
	if err := burn(c, []string{"--memory-mb", "-1"}); !errors.Is(err, ErrUsage) {
		t.Errorf("negative memory: %v, want ErrUsage", err)
	}
}

func TestMainRejectsUnknownTasksAndFlags(t *testing.T) {
	if err := Main(nil); !errors.Is(err, ErrUsage) {
		t.Errorf("Main() = %v, want ErrUsage", err)
	}
	if err := Main([]string{"nope"}); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "wc-map") {
		t.Errorf("Main(nope) = %v, want ErrUsage listing the tasks", err)
	}
	if !slices.Equal(Names(), []string{"aggregate", "burn", "cat", "sort", "tera-map", "tera-reduce", "tera-sample", "wc-map", "wc-reduce"}) {
		t.Errorf("Names() = %v", Names())
	}
}

func TestMainRunsATaskFromTheEnvironment(t *testing.T) {
	c := newTestContext(t, map[string]string{"_splits/0": "b a b\n"})
	for k, v := range map[string]string{
		EnvDAGID: "d", EnvVertex: "v", EnvTaskIndex: "0", EnvAttempt: "0", EnvAttemptID: "a",
		EnvParallelism: "1", EnvMemoryMB: "10", EnvInputDir: c.InputDir, EnvOutputDir: c.OutputDir,
		EnvOutputs: "", EnvProgressFile: c.ProgressFile,
	} {
		t.Setenv(k, v)
	}
	if err := Main([]string{"wc-map", "extra"}); !errors.Is(err, ErrUsage) {
		t.Errorf("wc-map with an argument = %v, want ErrUsage", err)
	}
	if err := Main([]string{"wc-map"}); err != nil {
		t.Fatal(err)
	}
	if got := readOut(t, c, SinkFile); got != "a\t1\nb\t2\n" {
		t.Errorf("output = %q", got)
	}
}

func TestRangePartitionBoundaries(t *testing.T) {
	cases := []struct {
		first byte
		n     int
		want  int
	}{
		{0, 4, 0},   // 0*4/256
		{63, 4, 0},  // 252/256
		{64, 4, 1},  // 256/256
		{255, 4, 3}, // 1020/256
		{255, 1, 0}, // 255/256
		{128, 3, 1}, // 384/256
		{171, 3, 2}, // 513/256
	}
	for _, c := range cases {
		if got := RangePartition([]byte{c.first, 'x'}, c.n); got != c.want {
			t.Errorf("RangePartition(%d.., %d) = %d, want %d", c.first, c.n, got, c.want)
		}
	}
}
