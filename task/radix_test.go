package task

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRadixSortSlotsSortsByKeyWord(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	inputs := map[string][]slot{"empty": nil, "one": {{key: 7, n: 1}}}
	// Random words (shared top bytes, as words share first letters), full
	// random key words, many equal keys, keys alike but for the low byte
	// (a length, in a key word), and sorted and reversed runs.
	var words, random, equal, low, sorted []slot
	for i := range 20000 {
		words = append(words, slot{key: inlineKey([]byte(genWord(r.IntN(100000)))), n: int64(i)})
		random = append(random, slot{key: r.Uint64(), n: int64(i)})
		equal = append(equal, slot{key: uint64(r.IntN(3)) << 56, n: int64(i)})
		low = append(low, slot{key: 0x6162<<48 | uint64(r.IntN(256)), n: int64(i)})
		sorted = append(sorted, slot{key: uint64(i) * 0x9e3779b9, n: int64(i)})
	}
	reversed := slices.Clone(sorted)
	slices.Reverse(reversed)
	inputs["words"], inputs["random"], inputs["equal"], inputs["low"] = words, random, equal, low
	inputs["sorted"], inputs["reversed"] = sorted, reversed
	byKeyThenN := func(a, b slot) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.n, b.n)) }
	for name, in := range inputs {
		got := slices.Clone(in)
		radixSortSlots(got)
		if !slices.IsSortedFunc(got, func(a, b slot) int { return cmp.Compare(a.key, b.key) }) {
			t.Errorf("%s: not sorted by key word", name)
		}
		// The same slots, each once: sorting only moves them.
		want := slices.Clone(in)
		slices.SortFunc(want, byKeyThenN)
		slices.SortFunc(got, byKeyThenN)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the sorted slots are not the slots given", name)
		}
	}
}
