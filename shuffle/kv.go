package shuffle

import "bytes"

// Splitter cuts a program's output line into a key and a value as
// Streaming's TextOutputReader does: at the KeyFields-th non-overlapping
// occurrence of Separator. A line with fewer separators is all key, with
// an empty value; the separators inside the key stay in it.
type Splitter struct {
	Separator []byte
	// KeyFields is the number of fields in the key; below 1 means 1.
	KeyFields int
}

// Split returns the key and value of line (both slices of it).
func (s Splitter) Split(line []byte) (key, value []byte) {
	sep := s.Separator
	if len(sep) == 0 {
		sep = []byte{'\t'}
	}
	pos := -1
	from := 0
	for range max(s.KeyFields, 1) {
		i := bytes.Index(line[from:], sep)
		if i < 0 {
			return line, line[len(line):]
		}
		pos = from + i
		from = pos + len(sep)
	}
	return line[:pos], line[pos+len(sep):]
}
