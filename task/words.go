package task

import (
	"unicode"
	"unicode/utf8"
)

// The word scanner of wc-map: a word is a maximal run of Unicode letters
// or digits, lower-cased; bytes that are not valid UTF-8 separate words.
// Line ends are separators like any other, so a text can be scanned in
// blocks of whole lines (readBlocks) as well as line by line.

// byteClass sorts bytes for the scanner's fast path: it decodes nothing
// for words of ASCII lower-case letters and digits, which it passes as
// slices of the text itself, uncopied.
var byteClass = func() (c [256]uint8) {
	for b := range 256 {
		switch {
		case 'a' <= b && b <= 'z' || '0' <= b && b <= '9':
			c[b] = classPlain
		case 'A' <= b && b <= 'Z':
			c[b] = classUpper
		case b >= utf8.RuneSelf:
			c[b] = classMulti
		default:
			c[b] = classSeparator
		}
	}
	return c
}()

const (
	// classSeparator is every ASCII byte but letters and digits: the
	// letters and digits of unicode.IsLetter and IsDigit below 0x80 are
	// exactly a-z, A-Z and 0-9.
	classSeparator = iota
	classPlain     // a-z, 0-9: part of a word as it is
	classUpper     // A-Z: part of a word, lower-cased
	classMulti     // a byte of a multi-byte sequence, or not UTF-8
)

// scanWords calls fn with every word of text. A word is a slice of text
// when it needs no lower-casing, else of *buf (reused); either is valid
// only during the call.
func scanWords(text []byte, buf *[]byte, fn func(word []byte) error) error {
	for i := 0; i < len(text); {
		switch byteClass[text[i]] {
		case classSeparator:
			i++
			continue
		case classPlain:
			start := i
			for i < len(text) && byteClass[text[i]] == classPlain {
				i++
			}
			if i == len(text) || byteClass[text[i]] == classSeparator {
				if err := fn(text[start:i]); err != nil {
					return err
				}
				continue
			}
			i = start // the word goes on with bytes to convert
		}
		var word []byte
		word, i = foldWord(text, i, (*buf)[:0])
		*buf = word
		if len(word) > 0 {
			if err := fn(word); err != nil {
				return err
			}
		}
	}
	return nil
}

// foldWord appends the lower-cased word of text starting at i to word,
// and returns it with the index past the separator that ends it. It
// always moves past at least one byte, so a separator that is not ASCII
// yields an empty word.
func foldWord(text []byte, i int, word []byte) ([]byte, int) {
	for i < len(text) {
		b := text[i]
		switch byteClass[b] {
		case classPlain:
			word = append(word, b)
			i++
			continue
		case classUpper:
			word = append(word, b+'a'-'A')
			i++
			continue
		case classSeparator:
			return word, i + 1
		}
		r, size := utf8.DecodeRune(text[i:])
		i += size
		if r == utf8.RuneError || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return word, i
		}
		word = utf8.AppendRune(word, unicode.ToLower(r))
	}
	return word, i
}
