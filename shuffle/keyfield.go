package shuffle

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// KeyFields is a parsed option string of Hadoop's KeyFieldBasedComparator
// or KeyFieldBasedPartitioner ("-k2,2nr -k1"): which parts of a key, split
// into fields at Separator, order or partition it.
type KeyFields struct {
	Separator []byte
	Specs     []KeySpec
}

// KeySpec is one -k f1[.c1][nr][,f2[.c2][nr]]: from character c1 of field
// f1 to character c2 of field f2 (fields and characters count from 1;
// f2 = 0 is the key's end, c2 = 0 the field's end).
type KeySpec struct {
	F1, C1, F2, C2   int
	Numeric, Reverse bool
}

// ParseKeyFields reads options the way KeyFieldHelper.parseOption does:
// whitespace-separated -n, -r, -nr (global flags, which every -k without
// flags of its own takes) and -kSPEC or -k SPEC; other words are ignored,
// as Hadoop ignores them. Options without any -k mean one spec, the whole
// key, with the global flags; empty options mean no spec (plain bytes).
// A malformed spec is an error naming it.
func ParseKeyFields(options string, separator []byte) (*KeyFields, error) {
	kf := &KeyFields{Separator: separator}
	if len(kf.Separator) == 0 {
		kf.Separator = []byte{'\t'}
	}
	if options == "" {
		return kf, nil
	}
	var global KeySpec
	words := strings.Fields(options)
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch w {
		case "-n":
			global.Numeric = true
		case "-r":
			global.Reverse = true
		case "-nr":
			global.Numeric, global.Reverse = true, true
		}
		if !strings.HasPrefix(w, "-k") {
			continue
		}
		arg := w[2:]
		if arg == "" && i+1 < len(words) {
			i++
			arg = words[i]
		}
		if arg == "" {
			continue // Hadoop skips a bare -k at the end
		}
		s, err := parseKeySpec(arg)
		if err != nil {
			return nil, err
		}
		kf.Specs = append(kf.Specs, s)
	}
	for i := range kf.Specs {
		if !kf.Specs[i].Numeric && !kf.Specs[i].Reverse {
			kf.Specs[i].Numeric, kf.Specs[i].Reverse = global.Numeric, global.Reverse
		}
	}
	if len(kf.Specs) == 0 {
		kf.Specs = []KeySpec{{F1: 1, C1: 1, Numeric: global.Numeric, Reverse: global.Reverse}}
	}
	return kf, nil
}

// parseKeySpec reads f1[.c1][nr]*[,f2[.c2][nr]*].
func parseKeySpec(arg string) (KeySpec, error) {
	bad := func() (KeySpec, error) {
		return KeySpec{}, fmt.Errorf("invalid -k spec %q: want -k pos1[,pos2] where pos is f[.c][n][r], fields and characters counted from 1", arg)
	}
	s := KeySpec{C1: 1}
	rest := arg
	num := func() (int, bool) {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || (i < len(rest) && !strings.ContainsRune("nr.,", rune(rest[i]))) {
			return 0, false
		}
		n, err := strconv.Atoi(rest[:i])
		rest = rest[i:]
		return n, err == nil
	}
	flags := func() {
		for len(rest) > 0 && (rest[0] == 'n' || rest[0] == 'r') {
			if rest[0] == 'n' {
				s.Numeric = true
			} else {
				s.Reverse = true
			}
			rest = rest[1:]
		}
	}
	var ok bool
	if s.F1, ok = num(); !ok {
		return bad()
	}
	if strings.HasPrefix(rest, ".") {
		rest = rest[1:]
		if s.C1, ok = num(); !ok {
			return bad()
		}
	}
	flags()
	if rest == "" {
		return s, nil
	}
	if rest[0] != ',' {
		return bad()
	}
	rest = rest[1:]
	if s.F2, ok = num(); !ok {
		return bad()
	}
	if strings.HasPrefix(rest, ".") {
		rest = rest[1:]
		if s.C2, ok = num(); !ok {
			return bad()
		}
	}
	flags()
	if rest != "" {
		return bad()
	}
	return s, nil
}

// fieldTable holds a key's field lengths as KeyFieldHelper.getWordLengths
// computes them: n fields (one more than separators), lengths[1..n].
type fieldTable struct {
	n       int
	lengths []int
	keyLen  int
	sepLen  int
}

func (kf *KeyFields) split(key []byte) fieldTable {
	t := fieldTable{n: 1, lengths: []int{0}, keyLen: len(key), sepLen: len(kf.Separator)}
	start := 0
	for {
		i := bytes.Index(key[start:], kf.Separator)
		if i < 0 {
			break
		}
		t.lengths = append(t.lengths, i)
		t.n++
		// Hadoop restarts one byte after the separator's first byte: for
		// a multi-byte separator that is off, and kept so, to match.
		start += i + 1
	}
	t.lengths = append(t.lengths, len(key)-start)
	return t
}

// span is the inclusive byte range of key the spec selects; start is -1
// when the key has no such field or character.
func (t fieldTable) span(s KeySpec) (start, end int) {
	start = -1
	if t.n >= s.F1 {
		pos := 0
		for i := 1; i < s.F1; i++ {
			pos += t.lengths[i] + t.sepLen
		}
		if pos+s.C1 <= t.keyLen {
			start = pos + s.C1 - 1
		}
	}
	end = t.keyLen - 1
	if s.F2 != 0 && t.n >= s.F2 {
		pos := 0
		for i := 1; i < s.F2; i++ {
			pos += t.lengths[i] + t.sepLen
		}
		if s.C2 == 0 {
			pos += t.lengths[s.F2]
		}
		if pos+s.C2 <= t.keyLen {
			end = pos + s.C2 - 1
		}
	}
	return start, end
}

// Compare orders two keys as KeyFieldBasedComparator does: spec by spec,
// the first difference deciding; with no specs, by their bytes.
func (kf *KeyFields) Compare(a, b []byte) int {
	if len(kf.Specs) == 0 {
		return bytes.Compare(a, b)
	}
	ta, tb := kf.split(a), kf.split(b)
	for _, s := range kf.Specs {
		s1, e1 := ta.span(s)
		s2, e2 := tb.span(s)
		if c := compareSpan(a, s1, e1, b, s2, e2, s); c != 0 {
			return c
		}
	}
	return 0
}

func compareSpan(a []byte, s1, e1 int, b []byte, s2, e2 int, s KeySpec) int {
	sign := 1
	if s.Reverse {
		sign = -1
	}
	switch {
	case s1 < 0:
		return -sign
	case s2 < 0:
		return sign
	}
	var c int
	if s.Numeric {
		c = numericCompare(a, s1, e1, b, s2, e2)
	} else {
		c = bytes.Compare(a[s1:max(e1+1, s1)], b[s2:max(e2+1, s2)])
	}
	return sign * c
}
