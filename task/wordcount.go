package task

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// wcMap counts words (maximal runs of letters or digits, lower-cased) in
// its inputs. Counting locally before writing is the combiner: a word
// appears once per producer task, not once per occurrence. The counts
// live in a countTable bounded by the spill budget; what does not fit is
// spilled as sorted runs and merged at the end, so every partition file
// comes out sorted by word, whatever the number of distinct words. The
// text is scanned in blocks of lines, not line by line: words never span
// a line end.
func wcMap(c *Context, args []string) error {
	if err := noFlags("wc-map", args); err != nil {
		return err
	}
	sorter := newExternalSorter(c)
	defer sorter.cleanup()
	table := newCountTable(c.spillBudget(), sorter)
	add := func(w []byte) error { return table.add(w, 1) }
	var buf []byte
	err := c.readBlocks(func(_ string, block []byte) error { return scanWords(block, &buf, add) })
	if err != nil {
		return err
	}
	return writeCounts(c, table.finish)
}

// wcReduce sums "word\tcount" lines. Inputs written by wc-map are sorted
// by word, so they are merged as they are read and memory does not grow
// with the number of words. An input out of order (say from a cat
// producer) is found during the merge; the task then starts over, counting
// every input in a bounded countTable that spills sorted runs.
func wcReduce(c *Context, args []string) error {
	if err := noFlags("wc-reduce", args); err != nil {
		return err
	}
	files, err := c.InputFiles()
	if err != nil {
		return err
	}
	if anyPipe(files) {
		// A streamed split can be read once only, and a merge that meets
		// an unsorted input would have to read everything again.
		return reduceUnsorted(c)
	}
	err = reduceSorted(c, files)
	var unsorted *unsortedInputError
	if !errors.As(err, &unsorted) {
		return err
	}
	// Stderr is the attempt's log: say why this attempt runs longer.
	fmt.Fprintf(os.Stderr, "wc-reduce: %v; counting again with spills to disk\n", unsorted)
	return reduceUnsorted(c)
}

// reduceSorted merges the inputs as sorted runs.
func reduceSorted(c *Context, files []string) error {
	meter := newProgressMeter(c, files)
	runs := make([]run, len(files))
	for i, f := range files {
		runs[i] = countFile{path: f, meter: meter}
	}
	sorter := newExternalSorter(c)
	defer sorter.cleanup()
	return writeCounts(c, func(emit func([]byte, int64) error) error { return sorter.merge(emit, runs...) })
}

// reduceUnsorted counts the inputs in any order.
func reduceUnsorted(c *Context) error {
	sorter := newExternalSorter(c)
	defer sorter.cleanup()
	table := newCountTable(c.spillBudget(), sorter)
	file, lineNo := "", 0
	err := c.ReadLines(func(f string, line []byte) error {
		if f != file {
			file, lineNo = f, 0
		}
		lineNo++
		if len(line) == 0 {
			return nil
		}
		word, n, err := parseCount(file, lineNo, line)
		if err != nil {
			return err
		}
		return table.add(word, n)
	})
	if err != nil {
		return err
	}
	return writeCounts(c, table.finish)
}

// parseCount splits a "word\tcount" line.
func parseCount(file string, lineNo int, line []byte) ([]byte, int64, error) {
	word, count, ok := bytes.Cut(line, []byte{'\t'})
	n, isNum := parseInt(count)
	if !ok || !isNum {
		return nil, 0, fmt.Errorf("%s:%d: %q is not word<TAB>count", file, lineNo, line)
	}
	return word, n, nil
}

// parseInt is strconv.ParseInt(s, 10, 64) without converting s to a string
// (which allocates) in the common case of a few plain digits.
func parseInt(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 18 {
		n, err := strconv.ParseInt(string(s), 10, 64)
		return n, err == nil
	}
	var n int64
	for _, b := range s {
		if b < '0' || b > '9' {
			n, err := strconv.ParseInt(string(s), 10, 64)
			return n, err == nil
		}
		n = n*10 + int64(b-'0')
	}
	return n, true
}

// writeCounts writes "word\tcount" lines in the order merge emits them
// (sorted by word), partitioned by the word's hash.
func writeCounts(c *Context, merge func(emit func(word []byte, n int64) error) error) error {
	ws, err := c.OpenWriters()
	if err != nil {
		return err
	}
	var line []byte
	err = merge(func(word []byte, n int64) error {
		line = strconv.AppendInt(append(append(line[:0], word...), '\t'), n, 10)
		return ws.Emit(line, func(parts int) int { return HashPartition(word, parts) })
	})
	if err != nil {
		_ = ws.Close() // the task fails with err; its outputs are discarded
		return err
	}
	return ws.Close()
}
