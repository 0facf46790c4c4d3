// Command benchgen writes the MR-vs-ebb benchmark's input text to stdout:
// lines of lower-case ASCII words separated by single spaces, so that
// MapReduce's WordCount (which splits on white space) and ebb's wc-map
// (which splits on anything but letters and digits, lower-casing) see the
// same words.
//
// The text is a function of the flags alone: math/rand's seeded source
// produces the same sequence on every Go release, so the same flags give
// the same bytes on every machine and every run.
//
//	benchgen -bytes 268435456 -vocab 1000000 -dist zipf -seed 17
//
// Word i of the vocabulary is i+1 written in bijective base 26 (a, ..., z,
// aa, ab, ...), so the vocabulary's words are distinct and the frequent
// ones (small i under zipf) are short, as in real text. -dist zipf draws
// word numbers with exponent 1.1; -dist uniform draws them evenly, which
// with enough bytes uses nearly every word of the vocabulary (the "many
// distinct words" input).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
)

type options struct {
	bytes int64
	vocab uint64
	dist  string
	seed  int64
}

func main() {
	var o options
	flag.Int64Var(&o.bytes, "bytes", 1<<20, "write lines until at least this many bytes")
	flag.Uint64Var(&o.vocab, "vocab", 1_000_000, "number of distinct words to draw from")
	flag.StringVar(&o.dist, "dist", "zipf", "word distribution: zipf or uniform")
	flag.Int64Var(&o.seed, "seed", 17, "random seed")
	flag.Parse()
	if err := run(os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(1)
	}
}

func run(out io.Writer, o options) error {
	draw, err := drawer(o)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewSource(o.seed))
	w := bufio.NewWriterSize(out, 1<<20)
	var line []byte
	for written := int64(0); written < o.bytes; {
		line = line[:0]
		words := 5 + r.Intn(11) // 5..15 words a line
		for i := 0; i < words; i++ {
			if i > 0 {
				line = append(line, ' ')
			}
			line = appendWord(line, draw(r))
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

// drawer returns the function that picks the next word number in [0, vocab).
func drawer(o options) (func(*rand.Rand) uint64, error) {
	if o.vocab == 0 {
		return nil, errors.New("-vocab: want at least 1 word")
	}
	switch o.dist {
	case "uniform":
		return func(r *rand.Rand) uint64 { return uint64(r.Int63n(int64(o.vocab))) }, nil
	case "zipf":
		// NewZipf keeps its own reference to the source it is given; one
		// generator per run, built on first use from the run's source.
		var z *rand.Zipf
		return func(r *rand.Rand) uint64 {
			if z == nil {
				z = rand.NewZipf(r, 1.1, 1, o.vocab-1)
			}
			return z.Uint64()
		}, nil
	}
	return nil, fmt.Errorf("-dist %q: want zipf or uniform", o.dist)
}

// appendWord appends word number i: i+1 in bijective base 26 over a..z.
func appendWord(b []byte, i uint64) []byte {
	var buf [16]byte
	k := len(buf)
	for n := i + 1; n > 0; n = (n - 1) / 26 {
		k--
		buf[k] = byte('a' + (n-1)%26)
	}
	return append(b, buf[k:]...)
}
