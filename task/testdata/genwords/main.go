// Command genwords writes a deterministic text with many distinct words,
// for checking by hand that wc-map, wc-reduce and sort stay under their
// memory ask on inputs far larger than it (task/doc.go, "Memory"). It is
// not part of any build or test (testdata is ignored by go build ./...):
//
//	go run ./task/testdata/genwords -mb 300 -distinct 5000000 > /tmp/w/words.txt
//
// then lay out an attempt directory as the worker does (input/p/0 = the
// text, an empty output/), set the EBB_* variables of task/doc.go with
// EBB_MEMORY_MB=256 and EBB_OUTPUTS=reduce:1, and run
//
//	/usr/bin/time -v ebb task wc-map
//
// "Maximum resident set size" must stay under the ask. Feed
// output/reduce/0 to wc-reduce the same way.
//
// Half the words come from a vocabulary of 1,000 common words and half are
// drawn uniformly from -distinct words, so the output has close to
// -distinct different words (4.9 million for the flags above) and a
// realistic share of repeats.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
)

func main() {
	mb := flag.Int("mb", 300, "megabytes to write")
	distinct := flag.Uint64("distinct", 5_000_000, "size of the rare-word vocabulary")
	seed := flag.Uint64("seed", 17, "random seed; the same flags write the same bytes")
	flag.Parse()
	if err := write(bufio.NewWriterSize(os.Stdout, 1<<20), int64(*mb)<<20, *distinct, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "genwords:", err)
		os.Exit(1)
	}
}

func write(w *bufio.Writer, size int64, distinct, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var written int64
	var line []byte
	for written < size {
		line = line[:0]
		for i := range 8 + r.IntN(8) {
			if i > 0 {
				line = append(line, ' ')
			}
			if r.IntN(2) == 0 {
				line = appendWord(line, r.Uint64N(1000))
			} else {
				line = appendWord(line, 1000+r.Uint64N(distinct))
			}
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

// appendWord spells word number i as 3 to 10 lower-case letters: i in
// base 26, least significant letter first so neighbouring numbers do not
// share prefixes, padded with letters from a mix of i.
func appendWord(b []byte, i uint64) []byte {
	x := i*0x9e3779b97f4a7c15 ^ i>>7
	n := 3 + x%8
	start := len(b)
	for v := i; ; v = v/26 - 1 {
		b = append(b, byte('a'+v%26))
		if v < 26 {
			break
		}
	}
	for len(b)-start < int(n) {
		b = append(b, byte('a'+x%26))
		x /= 26
	}
	return b
}
