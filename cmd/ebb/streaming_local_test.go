package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/shuffle"
)

// TestLocalStreamingWordCountExample runs examples/streaming-wordcount.yaml
// (a Python mapper and reducer behind a keyed shuffle): every
// whitespace-separated word is counted once, in the part file Hadoop's
// HashPartitioner picks for it, and each part is sorted by word.
func TestLocalStreamingWordCountExample(t *testing.T) {
	out := t.TempDir() + "/out"
	log, err := runEbb(t, "local", "run", "examples/streaming-wordcount.yaml", "--output", out)
	if err != nil {
		t.Fatalf("ebb local run: %v\n%s", err, log)
	}
	text, err := os.ReadFile("../../examples/wordcount-input.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, w := range strings.Fields(string(text)) {
		want[w]++
	}
	got := map[string]int{}
	for p := range 2 {
		data, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("part-%05d", p)))
		if err != nil {
			t.Fatal(err)
		}
		prev := ""
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			var w string
			var n int
			if _, err := fmt.Sscanf(strings.Replace(line, "\t", " ", 1), "%s %d", &w, &n); err != nil {
				t.Fatalf("part %d line %q: %v", p, line, err)
			}
			if w <= prev {
				t.Errorf("part %d: %q after %q: not sorted", p, w, prev)
			}
			prev = w
			if hp := (shuffle.HashPartitioner{}).Partition([]byte(w), 2); hp != p {
				t.Errorf("%q is in part %d, Hadoop puts it in %d", w, p, hp)
			}
			got[w] += n
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("counts differ:\n got %v\nwant %v", got, want)
	}
}
