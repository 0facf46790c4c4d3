package task

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// newTable is a countTable whose spills go under a test attempt's
// directory, with the sort's stats.
func newTable(t *testing.T, budget int64, fanIn int) (*countTable, *sortStats) {
	t.Helper()
	c := newTestContext(t, nil)
	var stats sortStats
	c.sortOpts = sortOptions{fanIn: fanIn, stats: &stats}
	s := newExternalSorter(c)
	t.Cleanup(s.cleanup)
	return newCountTable(budget, s), &stats
}

type record struct {
	key string
	n   int64
}

// finishAll is every record the table emits, in order.
func finishAll(t *testing.T, tb *countTable) []record {
	t.Helper()
	var got []record
	err := tb.finish(func(key []byte, n int64) error {
		got = append(got, record{string(key), n})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// sums is what a map makes of the same adds, sorted by key: the old
// countTable.
func sums(adds []record) []record {
	m := map[string]int64{}
	for _, a := range adds {
		m[a.key] += a.n
	}
	var out []record
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, record{k, m[k]})
	}
	return out
}

// randomAdds draws keys of every kind the table stores differently: empty,
// inline (1-7 bytes), arena keys (8-40 bytes), now and then a long one
// that gets a chunk of its own, and keys that differ only in trailing 0
// bytes (inline and arena alike), with counts of either sign.
func randomAdds(seed uint64, count, vocab int) []record {
	r := rand.New(rand.NewPCG(seed, 2))
	keys := make([]string, vocab)
	for i := range keys {
		switch k := r.IntN(20); {
		case k == 0:
			keys[i] = "" // the same key every time
		case k == 1:
			keys[i] = "zero" + strings.Repeat("\x00", r.IntN(8))
		case k == 2:
			keys[i] = strings.Repeat("long", 2100+r.IntN(100)) // over 8 KiB: a quarter of the chunks of a 256 KiB budget
		case k < 12:
			w := genWord(r.IntN(vocab))
			keys[i] = w[:min(len(w), r.IntN(7))] + string(rune('0'+r.IntN(3))) // 1 to 7 bytes
		default:
			keys[i] = fmt.Sprintf("%s-%d-%s", genWord(r.IntN(vocab)), r.IntN(1000), strings.Repeat("x", r.IntN(25)))
		}
	}
	adds := make([]record, count)
	for i := range adds {
		adds[i] = record{keys[r.IntN(vocab)], r.Int64N(2000) - 500}
	}
	return adds
}

func TestCountTableSumsWhatAMapSums(t *testing.T) {
	adds := randomAdds(1, 60000, 20000)
	want := sums(adds)
	for _, b := range []struct {
		name   string
		budget int64
		fanIn  int
		spills bool
	}{
		{"in memory", 1 << 30, 0, false},
		{"spilling", 256 << 10, 3, true},
	} {
		tb, stats := newTable(t, b.budget, b.fanIn)
		for _, a := range adds {
			if err := tb.add([]byte(a.key), a.n); err != nil {
				t.Fatal(err)
			}
		}
		slots := len(tb.slots)
		got := finishAll(t, tb)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d records, want %d; first difference %v", b.name, len(got), len(want), firstDiff(got, want))
		}
		if (stats.spills > 0) != b.spills {
			t.Errorf("%s: %d spills", b.name, stats.spills)
		}
		if !b.spills && slots < 2*len(want) {
			t.Errorf("%s: %d slots for %d keys, want the table grown to at most half full", b.name, slots, len(want))
		}
	}
}

func firstDiff(got, want []record) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("at %d: %.20q ×%d, want %.20q ×%d", i, got[i].key, got[i].n, want[i].key, want[i].n)
		}
	}
	return "one is a prefix of the other"
}

// sameHome finds two keys of the given length whose hashes pick the same
// slot of an empty table and, for arena keys, carry the same tag: a probe
// for one meets the other first and must compare the keys themselves.
func sameHome(t *testing.T, length int) (a, b string) {
	t.Helper()
	mask := uint64(minSlots - 1)
	seen := map[uint64]string{}
	for i := range 1 << 22 {
		key := fmt.Sprintf("%0*d", length, i)
		var h, id uint64
		if length <= inlineMax {
			h = hashInline(inlineKey([]byte(key)))
			id = h & mask
		} else {
			h = hashKey([]byte(key))
			id = arenaTag(h) | h&mask
		}
		if other, ok := seen[id]; ok {
			return other, key
		}
		seen[id] = key
	}
	t.Fatalf("no two keys of %d bytes share a slot and a tag", length)
	return "", ""
}

func TestCountTableKeepsKeysThatShareASlotApart(t *testing.T) {
	for _, length := range []int{5, 12} {
		a, b := sameHome(t, length)
		tb, _ := newTable(t, 1<<30, 0)
		for _, add := range []record{{a, 1}, {b, 10}, {a, 100}, {b, 1000}} {
			if err := tb.add([]byte(add.key), add.n); err != nil {
				t.Fatal(err)
			}
		}
		got := finishAll(t, tb)
		if want := sums([]record{{a, 101}, {b, 1010}}); !slices.Equal(got, want) {
			t.Errorf("keys %q and %q (same slot%s): got %v, want %v", a, b, map[bool]string{true: " and tag"}[length > inlineMax], got, want)
		}
	}
}

// heldBytes is what the table's arrays really take.
func heldBytes(tb *countTable) int64 {
	n := int64(len(tb.slots)) * 16
	for _, c := range tb.chunks {
		n += int64(cap(c))
	}
	return n
}

// wordAdds are adds of 1 to words of at most 4 letters (inline keys):
// the table's memory is then its slots alone, which the budget lets grow
// to 8,192 (128 KiB; growing to 16,384 would hold 128+256 KiB at once).
func wordAdds(seed uint64, count, vocab int) []record {
	r := rand.New(rand.NewPCG(seed, 3))
	adds := make([]record, count)
	for i := range adds {
		adds[i] = record{genWord(r.IntN(vocab)), 1}
	}
	return adds
}

func TestCountTableStaysInItsBudgetAndSpillsOnlyWhenFull(t *testing.T) {
	const budget = 256 << 10
	for name, adds := range map[string][]record{
		"mixed keys": randomAdds(2, 40000, 30000),
		"words":      wordAdds(3, 40000, 30000),
	} {
		tb, stats := newTable(t, budget, 0)
		spills, slots := 0, len(tb.slots)
		for i, a := range adds {
			before := heldBytes(tb)
			if err := tb.add([]byte(a.key), a.n); err != nil {
				t.Fatal(err)
			}
			if err := tb.flush(); err != nil {
				t.Fatal(err)
			}
			held := heldBytes(tb)
			if held > budget {
				t.Fatalf("%s, add %d: the table holds %d bytes, over the %d budget", name, i, held, budget)
			}
			if len(tb.slots) > slots && 3*int64(slots)*16+held-int64(len(tb.slots))*16 > budget {
				t.Fatalf("%s, add %d: grew %d slots to %d while holding %d bytes: old and new slots together pass the budget",
					name, i, slots, len(tb.slots), held)
			}
			// A spill comes when the new key would not fit: with a new
			// chunk (an eighth of the budget), or with slots grown from S
			// to 2S, 3S + arena + chunk > budget, so S + arena >
			// (budget - budget/8)/3 = 0.29 budget. Spilling below a
			// quarter of the budget wastes it.
			if stats.spills > spills && before < budget/4 {
				t.Fatalf("%s, add %d: spilled while holding %d bytes of a %d budget", name, i, before, budget)
			}
			spills, slots = stats.spills, len(tb.slots)
		}
		if stats.spills < 3 {
			t.Errorf("%s: %d spills: the adds should need several", name, stats.spills)
		}
		if got, want := finishAll(t, tb), sums(adds); !slices.Equal(got, want) {
			t.Errorf("%s: %d records, want %d; first difference %v", name, len(got), len(want), firstDiff(got, want))
		}
	}
}

func TestInlineKeysOrderAsTheirBytes(t *testing.T) {
	// Keys alike but for trailing zeros, inline and in the arena, and
	// bytes from 0 to 0xff: the order is bytewise, shorter first on a tie.
	keys := []string{"", "\x00", "\x00\x00", "a", "a\x00", "a\x00\x00\x00\x00\x00\x00", "ab", "b", "\xff",
		"\xff\xff\xff\xff\xff\xff\xff", "abcdefg", "abcdef", "abcdefgh", "abcdefg\x00"}
	tb, _ := newTable(t, 1<<30, 0)
	for _, k := range keys {
		if err := tb.add([]byte(k), 1); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, r := range finishAll(t, tb) {
		got = append(got, r.key)
	}
	want := slices.Clone(keys)
	slices.SortFunc(want, func(a, b string) int { return bytes.Compare([]byte(a), []byte(b)) })
	if !slices.Equal(got, want) {
		t.Errorf("keys in order %q, want %q", got, want)
	}
}

func TestWCMapOnTheBenchTextWritesWhatTheOldCountWrote(t *testing.T) {
	// 1 MiB of the bench's zipf text: 62,217 distinct words of 1 to 5
	// letters, all inline keys, the table grown to 2^17 slots in memory.
	text := string(zipfText(1<<20, 1_000_000, 5))
	outs := []Output{{"reduce", 2}}
	want := inMemoryWordCount(countWords(text), outs)
	for _, b := range budgets {
		var stats sortStats
		c := newTestContext(t, map[string]string{"_splits/0": text}, outs...)
		c.SpillBytes, c.sortOpts = b.spillBytes, sortOptions{fanIn: b.fanIn, stats: &stats}
		if err := wcMap(c, nil); err != nil {
			t.Fatal(err)
		}
		sameFiles(t, "wc-map of zipf text "+b.name, outputFiles(t, c), want)
		if (stats.spills > 0) != b.spills {
			t.Errorf("%s: %d spills", b.name, stats.spills)
		}
	}
}
