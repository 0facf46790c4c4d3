package task

import (
	"encoding/binary"
	"math/bits"
)

// A countTable slot's key word is one of
//
//	inline key   (len+1)<<56 | key bytes, the first in the lowest byte
//	             (len 0..inlineMax, so the top byte is 1..8)
//	arena key    1<<63 | tag<<offBits | offset in the arena
//	             (the tag is the key hash's bits 40..62)
//
// and 0 in an empty slot. An inline key is its own identity: two keys are
// equal exactly when their key words are, whatever bytes they hold (the
// unsorted input of wc-reduce may hold any byte but tab and newline).
const (
	inlineMax = 7
	// offBits of an arena key word are the entry's offset: chunk index
	// above chunkBits, position in the chunk below. 2^40 bytes of arena
	// is far beyond any budget.
	offBits = 40
	offMask = 1<<offBits - 1
)

// inlineKey is the key word of a key of at most inlineMax bytes, read as
// two overlapping 32-bit words or three bytes rather than byte by byte.
func inlineKey(key []byte) uint64 {
	var x uint64
	switch n := len(key); {
	case n >= 4:
		x = uint64(binary.LittleEndian.Uint32(key)) | uint64(binary.LittleEndian.Uint32(key[n-4:]))<<(8*(n-4))
	case n > 0:
		x = uint64(key[0]) | uint64(key[n/2])<<(8*(n/2)) | uint64(key[n-1])<<(8*(n-1))
	}
	return x | uint64(len(key)+1)<<56
}

// hashInline hashes an inline key word with one 128-bit multiply (see
// hashKey).
func hashInline(k uint64) uint64 { return mix(k^hashSeed, hashMul) }

func isArenaKey(k uint64) bool { return k>>63 == 1 }

// arenaTag is the key word of a long key with hash h, less its offset.
func arenaTag(h uint64) uint64 { return (h | 1<<63) &^ offMask }

// inlinePrefix is an inline key's bytes as a big-endian number, zero-padded
// to 8 bytes (countTable.prefix).
func inlinePrefix(k uint64) uint64 { return bits.ReverseBytes64(k & (1<<56 - 1)) }

// appendInline appends an inline key's bytes to b.
func appendInline(b []byte, k uint64) []byte {
	for i := range int(k>>56) - 1 {
		b = append(b, byte(k>>(8*i)))
	}
	return b
}
