package worker

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// splitsOf cuts size bytes into splits of at most step bytes.
func splitsOf(size, step int64) [][2]int64 {
	var out [][2]int64
	for off := int64(0); off < size; off += step {
		out = append(out, [2]int64{off, min(step, size-off)})
	}
	return out
}

func TestSplitsAssignEveryLineToExactlyOneSplit(t *testing.T) {
	files := map[string]string{
		"plain":             "alpha\nbeta\ngamma\ndelta\n",
		"no final newline":  "alpha\nbeta\ngamma",
		"empty lines":       "\n\n\na\n\nb\n\n",
		"one long line":     strings.Repeat("x", 100) + "\nshort\n",
		"single char lines": "a\nb\nc\nd\ne\nf\n",
		"unicode":           "héllo wörld\nÅngström\n日本語\n",
		"empty file":        "",
	}
	for name, content := range files {
		for _, step := range []int64{1, 2, 3, 5, 7, 64, 1000} {
			t.Run(fmt.Sprintf("%s/step=%d", name, step), func(t *testing.T) {
				var all bytes.Buffer
				for _, s := range splitsOf(int64(len(content)), step) {
					n, err := copySplit(&all, strings.NewReader(content), s[0], s[1])
					if err != nil {
						t.Fatalf("split %v: %v", s, err)
					}
					_ = n
				}
				// Every line exactly once, in order: the concatenation of
				// the splits is the file.
				if all.String() != content {
					t.Errorf("splits joined = %q, want %q", all.String(), content)
				}
			})
		}
	}
}

func TestSplitBoundaries(t *testing.T) {
	const file = "aaa\nbbb\nccc\n" // lines start at 0, 4, 8
	cases := []struct {
		offset, length int64
		want           string
	}{
		{0, 4, "aaa\nbbb\n"}, // [0,4]: line at 4 starts at the end, so it is ours
		{4, 4, "ccc\n"},      // starts at 4: skip "bbb\n" (the split before took it); line at 8 ≤ 8
		{0, 3, "aaa\n"},      // ends inside line 1: finish it, line at 4 > 3
		{1, 2, ""},           // inside line 1, ends before line 2 starts
		{1, 3, "bbb\n"},      // skip rest of line 1; line at 4 ≤ 4
		{8, 4, ""},           // starts on "ccc": the split before owns it
		{9, 3, ""},           // inside the last line
		{0, 12, file},        // the whole file
		{11, 1, ""},          // the last newline only
	}
	for _, c := range cases {
		var out bytes.Buffer
		n, err := copySplit(&out, strings.NewReader(file), c.offset, c.length)
		if err != nil || out.String() != c.want || n != int64(len(c.want)) {
			t.Errorf("split [%d+%d] = %q (%d), %v; want %q", c.offset, c.length, out.String(), n, err, c.want)
		}
	}
}
