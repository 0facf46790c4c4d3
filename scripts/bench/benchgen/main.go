// Command benchgen writes the MR-vs-ebb benchmark's input text to stdout
// (package internal/benchtext says what the text is):
//
//	benchgen -bytes 268435456 -vocab 1000000 -dist zipf -seed 17
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ebb-am/ebb/internal/benchtext"
)

func main() {
	var o benchtext.Options
	flag.Int64Var(&o.Bytes, "bytes", 1<<20, "write lines until at least this many bytes")
	flag.Uint64Var(&o.Vocab, "vocab", 1_000_000, "number of distinct words to draw from")
	flag.StringVar(&o.Dist, "dist", "zipf", "word distribution: zipf or uniform")
	flag.Int64Var(&o.Seed, "seed", 17, "random seed")
	flag.Parse()
	if err := benchtext.Write(os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "benchgen: -"+err.Error())
		os.Exit(1)
	}
}
