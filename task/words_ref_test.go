package task

import (
	"unicode"
	"unicode/utf8"
)

// forEachWord is how wc-map split a line into words before scanWords, one
// rune at a time: the reference scanWords must agree with. It calls fn
// with every word of line, lower-cased, in a buffer valid only during the
// call. Bytes that are not valid UTF-8 separate words.
func forEachWord(line []byte, fn func([]byte) error) error {
	var buf [64]byte
	word := buf[:0]
	for len(line) > 0 {
		if b := line[0]; b < utf8.RuneSelf {
			line = line[1:]
			switch {
			case 'a' <= b && b <= 'z' || '0' <= b && b <= '9':
				word = append(word, b)
				continue
			case 'A' <= b && b <= 'Z':
				word = append(word, b+'a'-'A')
				continue
			}
		} else {
			r, size := utf8.DecodeRune(line)
			line = line[size:]
			if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
				word = utf8.AppendRune(word, unicode.ToLower(r))
				continue
			}
		}
		if len(word) > 0 {
			if err := fn(word); err != nil {
				return err
			}
			word = word[:0]
		}
	}
	if len(word) > 0 {
		return fn(word)
	}
	return nil
}
