package task

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ebb-am/ebb/internal/benchtext"
)

// zipfText is one split's worth of the MR-vs-ebb bench's zipf text
// (internal/benchtext, as scripts/bench/benchgen writes it), so the
// benchmarks below see the words, and the table the distinct words, of a
// split of the bench.
func zipfText(size int64, vocab uint64, seed int64) []byte {
	return mustText(benchtext.Options{Bytes: size, Vocab: vocab, Dist: "zipf", Seed: seed})
}

// uniformText is benchgen's "-dist uniform": word numbers drawn evenly,
// which over the bench's "distinct" input (14,800,000 words) makes nearly
// every word of a split a new one.
func uniformText(size int64, vocab uint64, seed int64) []byte {
	return mustText(benchtext.Options{Bytes: size, Vocab: vocab, Dist: "uniform", Seed: seed})
}

func mustText(o benchtext.Options) []byte {
	b, err := benchtext.Generate(o)
	if err != nil {
		panic(err) // the options above are constants that work
	}
	return b
}

// benchSplit writes text once per benchmark into a directory
// of its own and returns a Context factory whose attempts read it as
// input/_splits/0 (a hard link, so each attempt does not copy 128 MB; the
// inputs are listed without following symlinks).
func benchSplit(b *testing.B, text []byte) (attempt func() *Context) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "split")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		b.Fatal(err)
	}
	return func() *Context {
		c := newTestContext(b, nil, Output{"reduce", 2})
		if err := os.MkdirAll(filepath.Join(c.InputDir, "_splits"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.Link(path, filepath.Join(c.InputDir, "_splits", "0")); err != nil {
			b.Fatal(err)
		}
		return c
	}
}
