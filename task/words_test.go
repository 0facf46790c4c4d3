package task

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pieces are what the random texts below are made of: every class of byte
// the scanner treats apart, multi-byte letters and digits (lower and
// upper case), multi-byte separators, and sequences that are not UTF-8:
// a lone continuation byte, a truncated sequence, an encoded surrogate,
// a valid U+FFFD (which separates words like any invalid byte).
var pieces = []string{
	"word", "the", "a", "x42", "007", "Cat", "HAT", "mIxEd",
	" ", "  ", ",", ".", "\t", "\r\n", "\n", "\r", "\x00", "-", "'",
	"école", "École", "STRASSE", "straße", "ΣΊΣΥΦΟΣ", "日本語", "٣", "Ⅻ",
	"—", "€", "\u00a0", "\u2028",
	"\xff", "\x80", "\xc3", "\xe6\x97", "\xed\xa0\x80", "\xef\xbf\xbd", "\xf0\x9f",
}

func randomText(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 4))
	var b strings.Builder
	for range n {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// oldWords are the words forEachWord found in text, line by line, as
// wc-map read it before readBlocks: lines end in "\n" or "\r\n".
func oldWords(text string) []string {
	var words []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		_ = forEachWord([]byte(line), func(w []byte) error { words = append(words, string(w)); return nil }) // fn never fails
	}
	return words
}

func scanAll(blocks ...[]byte) []string {
	var words []string
	var buf []byte
	for _, b := range blocks {
		_ = scanWords(b, &buf, func(w []byte) error { words = append(words, string(w)); return nil }) // fn never fails
	}
	return words
}

func TestScanWordsFindsTheWordsForEachWordFound(t *testing.T) {
	for seed := range uint64(200) {
		text := randomText(seed, 300)
		want := oldWords(text)
		if got := scanAll([]byte(text)); !slices.Equal(got, want) {
			t.Fatalf("text %q:\nscanWords %q\nforEachWord %q", text, got, want)
		}
		// In blocks cut after each "\n", as readBlocks may cut: the same
		// words.
		blocks := bytes.SplitAfter([]byte(text), []byte("\n"))
		if got := scanAll(blocks...); !slices.Equal(got, want) {
			t.Fatalf("text %q in %d blocks:\nscanWords %q\nforEachWord %q", text, len(blocks), got, want)
		}
	}
}

func TestReadBlocksPassesWholeLines(t *testing.T) {
	long := strings.Repeat("long line without an end ", 3*blockSize/25) // three blocks' worth
	var many strings.Builder
	for i := range 40000 {
		many.WriteString(genWord(i))
		many.WriteString([]string{"\n", "\r\n", " x\n"}[i%3])
	}
	files := map[string]string{
		"a/0":       many.String(),
		"a/1":       "",
		"a/2":       "no line end",
		"b/long":    "first\n" + long + "\nlast\n",
		"b/longEnd": long,
		"c/crlf":    strings.Repeat("one\r\ntwo\r\n", 50000),
	}
	c := newTestContext(t, files)
	got := map[string]string{}
	err := c.readBlocks(func(file string, block []byte) error {
		rel, _ := filepath.Rel(c.InputDir, file)
		body := got[rel] + string(block)
		if len(block) == 0 {
			t.Errorf("%s: an empty block", rel)
		}
		// Only the file's last block may end without "\n"; it is last if
		// the file has nothing after it.
		if block[len(block)-1] != '\n' && len(body) != len(files[rel]) {
			t.Errorf("%s: block of %d bytes at %d ends in %q, not at a line end", rel, len(block), len(got[rel]), block[len(block)-1])
		}
		got[rel] = body
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if got[name] != body {
			t.Errorf("%s: blocks join to %d bytes, want the file's %d", name, len(got[name]), len(body))
		}
	}
	if p, err := os.ReadFile(c.ProgressFile); err != nil || string(p) != "1.0000" {
		t.Errorf("progress %q (%v), want 1.0000", p, err)
	}
}
