package task

import (
	"encoding/binary"
	"math/bits"
)

// hashKey is countTable's hash of a long key (an inline one is hashed by
// hashInline): the key read as at most two 64-bit words
// (whole, for the short keys that words are: 1-3 bytes as three of them,
// 4-7 as two overlapping 32-bit halves, 8-16 as two overlapping words),
// folded with its length by one 128-bit multiply, whose high and low
// halves xored spread every input bit over the low bits (the slot) and the
// high bits (the tag) alike. Longer keys fold 16 bytes per multiply first.
// It need not be stable across releases: only the partition hash
// (HashPartition) is seen outside the task.
func hashKey(key []byte) uint64 {
	h := hashSeed ^ uint64(len(key))*hashMul
	var a, b uint64
	switch n := len(key); {
	case n > 16:
		for rest := key; len(rest) > 16; rest = rest[16:] {
			h = mix(le64(rest)^hashMul, le64(rest[8:])^h)
		}
		a, b = le64(key[n-16:]), le64(key[n-8:])
	case n >= 8:
		a, b = le64(key), le64(key[n-8:])
	case n >= 4:
		a, b = uint64(binary.LittleEndian.Uint32(key)), uint64(binary.LittleEndian.Uint32(key[n-4:]))
	case n > 0:
		a = uint64(key[0])<<16 | uint64(key[n>>1])<<8 | uint64(key[n-1])
	}
	return mix(a^hashMul2, b^h)
}

// Random odd constants with 32 of their 64 bits set (drawn once with a
// seeded generator), so every multiply spreads its input over both halves.
const (
	hashSeed = 0xcaa7e9bfd00724a1
	hashMul  = 0x91b5aecda386a3a1
	hashMul2 = 0xbd27b4f2c0855ac9
)

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
