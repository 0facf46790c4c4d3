// Package benchtext writes the MR-vs-ebb benchmark's input text: lines of
// lower-case ASCII words separated by single spaces, so that MapReduce's
// WordCount (which splits on white space) and ebb's wc-map (which splits
// on anything but letters and digits, lower-casing) see the same words.
// scripts/bench/benchgen writes it to files; package task's benchmarks
// generate one split of it in memory. It imports only the standard
// library.
//
// The text is a function of the Options alone: math/rand's seeded source
// produces the same sequence on every Go release, so the same options give
// the same bytes on every machine and every run.
//
// Word i of the vocabulary is i+1 written in bijective base 26 (a, ..., z,
// aa, ab, ...), so the vocabulary's words are distinct and the frequent
// ones (small i under zipf) are short, as in real text. Dist "zipf" draws
// word numbers with exponent 1.1; "uniform" draws them evenly, which with
// enough bytes uses nearly every word of the vocabulary (the "many
// distinct words" input).
package benchtext

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
)

// Options say which text: at least Bytes bytes of whole lines, words drawn
// from a vocabulary of Vocab by Dist ("zipf" or "uniform") from Seed.
type Options struct {
	Bytes int64
	Vocab uint64
	Dist  string
	Seed  int64
}

// Write writes the text to out.
func Write(out io.Writer, o Options) error {
	draw, err := drawer(o)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewSource(o.Seed))
	w := bufio.NewWriterSize(out, 1<<20)
	var line []byte
	for written := int64(0); written < o.Bytes; {
		line = line[:0]
		words := 5 + r.Intn(11) // 5..15 words a line
		for i := 0; i < words; i++ {
			if i > 0 {
				line = append(line, ' ')
			}
			line = AppendWord(line, draw(r))
		}
		line = append(line, '\n')
		n, err := w.Write(line)
		if err != nil {
			return err
		}
		written += int64(n)
	}
	return w.Flush()
}

// Generate returns the text in memory.
func Generate(o Options) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(int(o.Bytes) + 200)
	if err := Write(&b, o); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// drawer returns the function that picks the next word number in [0, vocab).
func drawer(o Options) (func(*rand.Rand) uint64, error) {
	if o.Vocab == 0 {
		return nil, errors.New("vocab: want at least 1 word")
	}
	switch o.Dist {
	case "uniform":
		return func(r *rand.Rand) uint64 { return uint64(r.Int63n(int64(o.Vocab))) }, nil
	case "zipf":
		// NewZipf keeps its own reference to the source it is given; one
		// generator per run, built on first use from the run's source.
		var z *rand.Zipf
		return func(r *rand.Rand) uint64 {
			if z == nil {
				z = rand.NewZipf(r, 1.1, 1, o.Vocab-1)
			}
			return z.Uint64()
		}, nil
	}
	return nil, fmt.Errorf("dist %q: want zipf or uniform", o.Dist)
}

// AppendWord appends word number i: i+1 in bijective base 26 over a..z.
func AppendWord(b []byte, i uint64) []byte {
	var buf [16]byte
	k := len(buf)
	for n := i + 1; n > 0; n = (n - 1) / 26 {
		k--
		buf[k] = byte('a' + (n-1)%26)
	}
	return append(b, buf[k:]...)
}
