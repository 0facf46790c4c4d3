package shuffle

import (
	"unicode/utf8"
)

// Partitioner picks a key's partition among n (n ≥ 1).
type Partitioner interface {
	Partition(key []byte, n int) int
}

// HashPartitioner is Hadoop's default (mapred.lib.HashPartitioner over a
// Text key): (hashCode & MAX_INT) % n, where Text's hashCode is
// WritableComparator.hashBytes over the key's UTF-8 bytes: h = 1, then
// h = 31*h + b for each byte taken as a signed Java byte, in int32
// arithmetic. With n = 1 every key is partition 0, as Hadoop never calls
// the partitioner then.
type HashPartitioner struct{}

func (HashPartitioner) Partition(key []byte, n int) int {
	if n <= 1 {
		return 0
	}
	return int(uint32(TextHash(key))&0x7fffffff) % n
}

// TextHash is org.apache.hadoop.io.Text.hashCode of a key's bytes.
func TextHash(key []byte) int32 {
	h := int32(1)
	for _, b := range key {
		h = 31*h + int32(int8(b))
	}
	return h
}

// StringHash is java.lang.String.hashCode of a key's text: over its UTF-16
// code units, from 0. Bytes that are not UTF-8 decode to U+FFFD, as Text's
// toString does.
func StringHash(key []byte) int32 {
	var h int32
	for len(key) > 0 {
		r, size := utf8.DecodeRune(key)
		key = key[size:]
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xd800+(r>>10))
			h = 31*h + int32(0xdc00+(r&0x3ff))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// KeyFieldPartitioner is Hadoop's KeyFieldBasedPartitioner: it hashes only
// the parts of the key its -k specs select. With no options at all it
// hashes the key as a Java String.
type KeyFieldPartitioner struct {
	Fields *KeyFields
}

func (p KeyFieldPartitioner) Partition(key []byte, n int) int {
	if n <= 1 {
		return 0
	}
	var h int32
	switch {
	case p.Fields == nil || len(p.Fields.Specs) == 0:
		h = StringHash(key)
	case len(key) == 0:
		return 0
	default:
		key = validUTF8(key)
		f := p.Fields.split(key)
		for _, s := range p.Fields.Specs {
			start, end := f.span(s)
			if start < 0 {
				continue
			}
			for i := start; i <= end; i++ {
				h = 31*h + int32(int8(key[i]))
			}
		}
	}
	return int(uint32(h)&0x7fffffff) % n
}

// validUTF8 is key as Java's round trip through a String gives it back:
// each byte that is not part of valid UTF-8 becomes U+FFFD.
func validUTF8(key []byte) []byte {
	if utf8.Valid(key) {
		return key
	}
	out := make([]byte, 0, len(key)+8)
	for len(key) > 0 {
		r, size := utf8.DecodeRune(key)
		out = utf8.AppendRune(out, r)
		key = key[size:]
	}
	return out
}
