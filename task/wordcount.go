package task

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// wcMap counts words (maximal runs of letters or digits, lower-cased) in
// every input line. Counting locally before writing is the combiner: a
// word appears once per producer task, not once per occurrence.
func wcMap(c *Context, args []string) error {
	if err := noFlags("wc-map", args); err != nil {
		return err
	}
	counts := map[string]int64{}
	err := c.ReadLines(func(_ string, line []byte) error {
		forEachWord(line, func(w string) { counts[w]++ })
		return nil
	})
	if err != nil {
		return err
	}
	return writeCounts(c, counts)
}

// forEachWord calls fn with every word of line, lower-cased. Bytes that are
// not valid UTF-8 separate words.
func forEachWord(line []byte, fn func(string)) {
	var word []rune
	flush := func() {
		if len(word) > 0 {
			fn(string(word))
			word = word[:0]
		}
	}
	for len(line) > 0 {
		r, size := utf8.DecodeRune(line)
		line = line[size:]
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			word = append(word, unicode.ToLower(r))
			continue
		}
		flush()
	}
	flush()
}

// wcReduce sums "word\tcount" lines.
func wcReduce(c *Context, args []string) error {
	if err := noFlags("wc-reduce", args); err != nil {
		return err
	}
	counts := map[string]int64{}
	lineNo := map[string]int{}
	err := c.ReadLines(func(file string, line []byte) error {
		lineNo[file]++
		if len(line) == 0 {
			return nil
		}
		word, count, ok := bytes.Cut(line, []byte{'\t'})
		n, err := strconv.ParseInt(string(count), 10, 64)
		if !ok || err != nil {
			return fmt.Errorf("%s:%d: %q is not word<TAB>count", file, lineNo[file], line)
		}
		counts[string(word)] += n
		return nil
	})
	if err != nil {
		return err
	}
	return writeCounts(c, counts)
}

// writeCounts writes "word\tcount" lines sorted by word, partitioned by the
// word's hash.
func writeCounts(c *Context, counts map[string]int64) error {
	words := make([]string, 0, len(counts))
	for w := range counts {
		words = append(words, w)
	}
	sort.Strings(words)
	ws, err := c.OpenWriters()
	if err != nil {
		return err
	}
	var line []byte
	for _, w := range words {
		line = append(append(append(line[:0], w...), '\t'), strconv.FormatInt(counts[w], 10)...)
		key := []byte(w)
		if err := ws.Emit(line, func(n int) int { return HashPartition(key, n) }); err != nil {
			_ = ws.Close()
			return err
		}
	}
	return ws.Close()
}
