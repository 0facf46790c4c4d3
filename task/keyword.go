package task

import "encoding/binary"

// A countTable slot's key word is one of
//
//	inline key   the key's bytes from the top down, zero-padded, over
//	             len+1 in the low byte (len 0..inlineMax, so 1..8)
//	arena key    the key hash's top 16 bits (a tag), the entry's offset in
//	             the arena (offBits), 0xff in the low byte
//
// and 0 in an empty slot. An inline key is its own identity: two keys are
// equal exactly when their key words are, whatever bytes they hold (the
// unsorted input of wc-reduce may hold any byte but tab and newline). And
// inline keys order as their key words do: bytewise, then a key before
// the same key with zero bytes after it, so sorting them compares
// integers.
const (
	inlineMax = 7
	// offBits of an arena key word are the entry's offset: chunk index
	// above chunkBits, position in the chunk below. 2^40 bytes of arena
	// is far beyond any budget.
	offBits    = 40
	arenaLow   = 0xff
	tagShift   = 48
	offsetMask = 1<<offBits - 1
)

// inlineKey is the key word of a key of at most inlineMax bytes, read as
// two overlapping 32-bit words or three bytes rather than byte by byte.
func inlineKey(key []byte) uint64 {
	var x uint64
	switch n := len(key); {
	case n >= 4:
		x = uint64(binary.BigEndian.Uint32(key))<<32 | uint64(binary.BigEndian.Uint32(key[n-4:]))<<(64-8*n)
	case n > 0:
		x = uint64(key[0])<<56 | uint64(key[n/2])<<(56-8*(n/2)) | uint64(key[n-1])<<(64-8*n)
	}
	return x | uint64(len(key)+1)
}

// hashInline hashes an inline key word with one 128-bit multiply (see
// hashKey).
func hashInline(k uint64) uint64 { return mix(k^hashSeed, hashMul) }

func isArenaKey(k uint64) bool { return k&0xff == arenaLow }

// arenaKey is the key word of a long key with hash h at offset off.
func arenaKey(h, off uint64) uint64 { return arenaTag(h) | off<<8 | arenaLow }

// arenaTag is the tag bits of a long key with hash h.
func arenaTag(h uint64) uint64 { return h >> tagShift << tagShift }

// mayBe says whether the key word k may be the long key with hash h: a
// long key's, with its tag. Only then are the keys compared.
func mayBe(k, h uint64) bool { return isArenaKey(k) && k>>tagShift == h>>tagShift }

// arenaOffset is where an arena key word's key is.
func arenaOffset(k uint64) uint64 { return k >> 8 & offsetMask }

// appendInline appends an inline key's bytes to b.
func appendInline(b []byte, k uint64) []byte {
	for i := range int(k&0xff) - 1 {
		b = append(b, byte(k>>(56-8*i)))
	}
	return b
}
