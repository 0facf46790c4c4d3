package benchtext

import (
	"bytes"
	"testing"
)

func TestAppendWord(t *testing.T) {
	// Bijective base 26: 1..26 are a..z, 27 is aa, 26+26*26 = 702 is zz.
	for i, want := range map[uint64]string{0: "a", 25: "z", 26: "aa", 27: "ab", 701: "zz", 702: "aaa"} {
		if got := string(AppendWord(nil, i)); got != want {
			t.Errorf("AppendWord(%d) = %q, want %q", i, got, want)
		}
	}
	seen := map[string]uint64{}
	for i := uint64(0); i < 20000; i++ {
		w := string(AppendWord(nil, i))
		if j, dup := seen[w]; dup {
			t.Fatalf("words %d and %d are both %q", j, i, w)
		}
		seen[w] = i
	}
}

func gen(t *testing.T, o Options) []byte {
	t.Helper()
	b, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSameFlagsSameBytes(t *testing.T) {
	for _, dist := range []string{"zipf", "uniform"} {
		o := Options{Bytes: 50_000, Vocab: 1000, Dist: dist, Seed: 3}
		a, b := gen(t, o), gen(t, o)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two runs with the same flags differ", dist)
		}
		if len(a) < 50_000 || a[len(a)-1] != '\n' {
			t.Errorf("%s: %d bytes ending %q, want at least 50000 in whole lines", dist, len(a), a[len(a)-1])
		}
		// Only a-z, space and newline: MapReduce's WordCount (white space)
		// and ebb's wc-map (letters and digits) then see the same words.
		if i := bytes.IndexFunc(a, func(r rune) bool { return (r < 'a' || r > 'z') && r != ' ' && r != '\n' }); i >= 0 {
			t.Errorf("%s: byte %q at %d, want only a-z, space and newline", dist, a[i], i)
		}
		o.Seed = 4
		if bytes.Equal(a, gen(t, o)) {
			t.Errorf("%s: seeds 3 and 4 give the same text", dist)
		}
	}
}

func TestUniformUsesTheVocabulary(t *testing.T) {
	// 200 KB is about 35,000 words over 1,000: each word is expected ~35
	// times, so a missing one means the draw does not cover the vocabulary.
	words := map[string]bool{}
	for _, w := range bytes.Fields(gen(t, Options{Bytes: 200_000, Vocab: 1000, Dist: "uniform", Seed: 1})) {
		words[string(w)] = true
	}
	if len(words) != 1000 {
		t.Errorf("%d distinct words, want the whole vocabulary of 1000", len(words))
	}
}

func TestBadFlags(t *testing.T) {
	for _, o := range []Options{{Bytes: 10, Vocab: 0, Dist: "zipf"}, {Bytes: 10, Vocab: 5, Dist: "normal"}} {
		if err := Write(&bytes.Buffer{}, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
