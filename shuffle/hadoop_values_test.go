package shuffle

import (
	"slices"
	"strings"
	"testing"
)

// The expected values below were computed by Hadoop 3.4.1 itself, with
// jshell on the class path of streaming/testdata/hadoop/pom.xml:
// new Text(k).hashCode(), mapred.lib.HashPartitioner.getPartition(t, null,
// n), mapred.lib.KeyFieldBasedPartitioner configured with
// mapreduce.partition.keypartitioner.options, and a stable sort
// (List.sort) with mapred.lib.KeyFieldBasedComparator configured with
// mapreduce.partition.keycomparator.options.

func TestTextHashAndHashPartitionerMatchHadoop(t *testing.T) {
	for _, c := range []struct {
		key       string
		hash      int32
		part3, p7 int
	}{
		{"", 1, 1, 1},
		{"a", 128, 2, 2},
		{"hello", 127791473, 2, 5},
		{"Hadoop", -1253493882, 2, 5},
		{"héllo wörld", 1659166526, 2, 3},
		{"日本語", 1243476185, 2, 0},
		{"\u00ff\u00fe", -958152, 2, 3},
		{"k\tv", 133015, 1, 1},
		{"the", 144592, 1, 0},
		{"a longer key with spaces", -2206161, 2, 3},
		{"😀", 350296, 1, 2},
	} {
		if h := TextHash([]byte(c.key)); h != c.hash {
			t.Errorf("TextHash(%q) = %d, Hadoop's Text.hashCode is %d", c.key, h, c.hash)
		}
		hp := HashPartitioner{}
		if p := hp.Partition([]byte(c.key), 3); p != c.part3 {
			t.Errorf("partition of %q among 3 = %d, Hadoop's %d", c.key, p, c.part3)
		}
		if p := hp.Partition([]byte(c.key), 7); p != c.p7 {
			t.Errorf("partition of %q among 7 = %d, Hadoop's %d", c.key, p, c.p7)
		}
	}
}

func TestKeyFieldPartitionerMatchesHadoop(t *testing.T) {
	for _, c := range []struct {
		opts, key string
		p5, p13   int
	}{
		{"", "x\ty", 0, 7},
		{"-k1,1", "x\ty", 0, 3},
		{"-k2,2", "x\ty", 1, 4},
		{"-k2,2", "x", 0, 0},
		{"-k1.2,1.3", "hello\tworld", 4, 2},
		{"-k2", "a\tb\tc", 1, 7},
		{"", "日本\t語", 2, 10},
		{"-k1,2", "a\tb\tc", 4, 7},
	} {
		kf, err := ParseKeyFields(c.opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := KeyFieldPartitioner{Fields: kf}
		if got := p.Partition([]byte(c.key), 5); got != c.p5 {
			t.Errorf("options %q key %q: partition among 5 = %d, Hadoop's %d", c.opts, c.key, got, c.p5)
		}
		if got := p.Partition([]byte(c.key), 13); got != c.p13 {
			t.Errorf("options %q key %q: partition among 13 = %d, Hadoop's %d", c.opts, c.key, got, c.p13)
		}
	}
}

func TestKeyFieldComparatorMatchesHadoop(t *testing.T) {
	keys := []string{"a\t10", "b\t9", "c\t-1", "d\t-0", "e\t0", "f\t1.5", "g\t1.25", "h\t", "i", "j\t010", "k\tabc", "a\t2", "l\t-2.5", "m\t.5", "n\t1e3"}
	for _, c := range []struct{ opts, want string }{
		{"-k2,2nr", `a\t10 ; j\t010 ; b\t9 ; a\t2 ; f\t1.5 ; g\t1.25 ; n\t1e3 ; m\t.5 ; d\t-0 ; k\tabc ; e\t0 ; c\t-1 ; l\t-2.5 ; h\t ; i`},
		{"-k2,2n", `i ; h\t ; l\t-2.5 ; c\t-1 ; d\t-0 ; e\t0 ; k\tabc ; m\t.5 ; n\t1e3 ; g\t1.25 ; f\t1.5 ; a\t2 ; b\t9 ; j\t010 ; a\t10`},
		{"-k1,1 -k2,2nr", `a\t10 ; a\t2 ; b\t9 ; c\t-1 ; d\t-0 ; e\t0 ; f\t1.5 ; g\t1.25 ; h\t ; i ; j\t010 ; k\tabc ; l\t-2.5 ; m\t.5 ; n\t1e3`},
		{"-nr", `n\t1e3 ; m\t.5 ; l\t-2.5 ; k\tabc ; j\t010 ; i ; h\t ; g\t1.25 ; f\t1.5 ; e\t0 ; d\t-0 ; c\t-1 ; b\t9 ; a\t10 ; a\t2`},
		{"-k2.2,2r", `n\t1e3 ; k\tabc ; m\t.5 ; l\t-2.5 ; j\t010 ; c\t-1 ; a\t10 ; d\t-0 ; f\t1.5 ; g\t1.25 ; b\t9 ; e\t0 ; h\t ; i ; a\t2`},
		{"-r", `n\t1e3 ; m\t.5 ; l\t-2.5 ; k\tabc ; j\t010 ; i ; h\t ; g\t1.25 ; f\t1.5 ; e\t0 ; d\t-0 ; c\t-1 ; b\t9 ; a\t2 ; a\t10`},
	} {
		kf, err := ParseKeyFields(c.opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Clone(keys)
		slices.SortStableFunc(got, func(a, b string) int { return kf.Compare([]byte(a), []byte(b)) })
		s := strings.ReplaceAll(strings.Join(got, " ; "), "\t", `\t`)
		if s != c.want {
			t.Errorf("options %q sort:\n got %s\nwant %s (Hadoop's)", c.opts, s, c.want)
		}
	}
}
