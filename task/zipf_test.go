package task

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// zipfText is the text scripts/bench/benchgen writes for
// "-bytes size -vocab vocab -dist zipf -seed seed": lines of 5 to 15
// lower-case words, word i of the vocabulary being i+1 in bijective base
// 26, drawn with math/rand's Zipf of exponent 1.1. benchgen is a main
// package and cannot be imported; this is the same recipe, so the
// benchmarks below see the words, and the table the distinct words, of
// one split of the MR-vs-ebb bench.
func zipfText(size int64, vocab uint64, seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	z := rand.NewZipf(r, 1.1, 1, vocab-1)
	return benchText(size, r, z.Uint64)
}

// uniformText is benchgen's "-dist uniform": word numbers drawn evenly,
// which over the bench's "distinct" input (14,800,000 words) makes nearly
// every word of a split a new one.
func uniformText(size int64, vocab uint64, seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	return benchText(size, r, func() uint64 { return uint64(r.Int63n(int64(vocab))) })
}

func benchText(size int64, r *rand.Rand, draw func() uint64) []byte {
	text := make([]byte, 0, size+200)
	for int64(len(text)) < size {
		words := 5 + r.Intn(11)
		for i := range words {
			if i > 0 {
				text = append(text, ' ')
			}
			text = appendBase26(text, draw())
		}
		text = append(text, '\n')
	}
	return text
}

// appendBase26 appends i+1 in bijective base 26 over a..z.
func appendBase26(b []byte, i uint64) []byte {
	var buf [16]byte
	k := len(buf)
	for n := i + 1; n > 0; n = (n - 1) / 26 {
		k--
		buf[k] = byte('a' + (n-1)%26)
	}
	return append(b, buf[k:]...)
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
