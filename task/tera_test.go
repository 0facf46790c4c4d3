package task

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// genRecords makes n RecordLength-byte records in TeraGen's shape: a
// random 10-byte key (newline bytes included, as TeraGen's are), then the
// row number and filler. Every 50th record repeats an earlier key with
// its own row, so equal keys meet in sorts and at cut points.
func genRecords(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]byte, 0, n*RecordLength)
	for i := range n {
		rec := make([]byte, RecordLength)
		for j := range KeyLength {
			rec[j] = byte(r.UintN(256))
		}
		if i > 0 && i%50 == 0 {
			k := r.IntN(i) * RecordLength
			copy(rec, out[k:k+KeyLength])
		}
		binary.BigEndian.PutUint64(rec[KeyLength:], uint64(i))
		for j := KeyLength + 8; j < RecordLength; j++ {
			rec[j] = 'A' + byte(i%26)
		}
		out = append(out, rec...)
	}
	return out
}

// recordsOf cuts b into records.
func recordsOf(t *testing.T, b []byte) [][]byte {
	t.Helper()
	if len(b)%RecordLength != 0 {
		t.Fatalf("%d bytes: not whole %d-byte records", len(b), RecordLength)
	}
	var out [][]byte
	for i := 0; i < len(b); i += RecordLength {
		out = append(out, b[i:i+RecordLength])
	}
	return out
}

func keyOf(i int) []byte { return []byte(fmt.Sprintf("k%09d", i)) }

// TestCutPoints: the n-1 cuts are the sorted sample's keys of rank
// round(i * keys / n), and a key goes to the partition of the last cut at
// or below it.
func TestCutPoints(t *testing.T) {
	var keys [][]byte
	for _, i := range []int{9, 3, 0, 7, 1, 8, 2, 6, 4, 5} { // 10 keys, shuffled
		keys = append(keys, keyOf(i))
	}
	cuts, err := cutPoints(keys, 4)
	if err != nil {
		t.Fatal(err)
	}
	// step 10/4 = 2.5: ranks round(2.5) = 3, round(5) = 5, round(7.5) = 8.
	want := [][]byte{keyOf(3), keyOf(5), keyOf(8)}
	if !slices.EqualFunc(cuts, want, bytes.Equal) {
		t.Errorf("cuts = %q, want %q", cuts, want)
	}
	for _, c := range []struct {
		key  []byte
		want int
	}{
		{[]byte("a"), 0},           // below every cut
		{keyOf(2), 0},              // below the first cut
		{keyOf(3), 1},              // equal to a cut: starts that cut's partition
		{[]byte("k000000004x"), 1}, // between cuts 3 and 5
		{keyOf(5), 2},
		{keyOf(8), 3},
		{[]byte("z"), 3}, // above every cut
	} {
		if got := cutPartition(cuts, c.key); got != c.want {
			t.Errorf("cutPartition(%q) = %d, want %d", c.key, got, c.want)
		}
	}
	if one, err := cutPoints(keys, 1); err != nil || len(one) != 0 {
		t.Errorf("1 partition: cuts %q, %v; want none", one, err)
	}
	if _, err := cutPoints(keys[:3], 4); err == nil || !strings.Contains(err.Error(), "4 partitions from 3 sampled keys") {
		t.Errorf("more partitions than keys: %v", err)
	}
}

// TestTeraSortSpillsAndOrders runs the three built-ins as a DAG would:
// two sample tasks, two maps of two splits each, three reduces with a
// budget of a few records and a merge fan-in of 2, so every reduce
// spills many runs and merges them in several passes. The reduces'
// outputs, read in partition order, must be the input's records sorted
// bytewise: each sorted, every key of partition p at or below every key
// of partition p+1, none lost, none duplicated.
func TestTeraSortSpillsAndOrders(t *testing.T) {
	const maps, reduces, perSplit = 2, 3, 300
	input := genRecords(7, maps*2*perSplit)
	split := func(i int) string {
		return string(input[i*perSplit*RecordLength : (i+1)*perSplit*RecordLength])
	}

	// Samples: each of 2 tasks takes the first 120/2 keys of its split.
	samples := map[string]string{}
	for s := range 2 {
		c := newTestContext(t, map[string]string{"_splits/0": split(s * 2)}, Output{Consumer: "map", Partitions: 1})
		c.TaskIndex, c.Parallelism = s, 2
		if err := teraSample(c, []string{"--sample-size", "120"}); err != nil {
			t.Fatal(err)
		}
		got := readOut(t, c, "map/0")
		if want := split(s * 2)[:60*RecordLength]; len(got) != 60*KeyLength || got[:KeyLength] != want[:KeyLength] {
			t.Fatalf("sample %d: %d bytes, want the first 60 keys (600 bytes)", s, len(got))
		}
		samples["sample/"+strconv.Itoa(s)] = got
	}

	// Maps: each reads both samples and two splits, partitions for 3.
	reduceIn := make([]map[string]string, reduces)
	for m := range maps {
		in := map[string]string{"_splits/0": split(m * 2), "_splits/1": split(m*2 + 1)}
		for k, v := range samples {
			in[k] = v
		}
		c := newTestContext(t, in, Output{Consumer: "reduce", Partitions: reduces})
		c.TaskIndex, c.Parallelism = m, maps
		if err := teraMap(c, nil); err != nil {
			t.Fatal(err)
		}
		for p := range reduces {
			if reduceIn[p] == nil {
				reduceIn[p] = map[string]string{}
			}
			reduceIn[p]["map/"+strconv.Itoa(m)] = readOut(t, c, filepath.Join("reduce", strconv.Itoa(p)))
		}
	}

	// Reduces: a 4 KiB budget (about 30 records of 132 bytes with their
	// entries) and fan-in 2.
	var all []byte
	for p := range reduces {
		c := newTestContext(t, reduceIn[p])
		c.TaskIndex, c.Parallelism, c.SpillBytes = p, reduces, 4<<10
		stats := &sortStats{}
		c.sortOpts = sortOptions{fanIn: 2, stats: stats}
		if err := teraReduce(c, nil); err != nil {
			t.Fatal(err)
		}
		if stats.spills < 5 || stats.passes < 3 {
			t.Errorf("reduce %d: %d spills, %d merge passes; want a budget that spills often and merges in passes", p, stats.spills, stats.passes)
		}
		out := readOut(t, c, SinkFile)
		if n := len(out) / RecordLength; stats.spills > n/4 {
			t.Errorf("reduce %d: %d spills for %d records: runs of under 4 records do not use the budget", p, stats.spills, n)
		}
		if len(out) < 300*RecordLength {
			t.Errorf("reduce %d: %d records of 1200; the cuts should share them out about evenly", p, len(out)/RecordLength)
		}
		all = append(all, out...)
	}

	want := recordsOf(t, input)
	slices.SortFunc(want, bytes.Compare)
	got := recordsOf(t, all)
	if len(got) != len(want) {
		t.Fatalf("%d records out, want %d", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("record %d of the partitions in order = %q, want %q", i, got[i][:KeyLength], want[i][:KeyLength])
		}
	}
}

// TestTeraRefusesBadInput: a split that ends inside a record fails the
// task naming the file, and a tera-map with no samples says what it needs.
func TestTeraRefusesBadInput(t *testing.T) {
	c := newTestContext(t, map[string]string{"_splits/0": string(genRecords(1, 2)[:150]), "sample/0": "0123456789"},
		Output{Consumer: "reduce", Partitions: 1})
	if err := teraMap(c, nil); err == nil || !strings.Contains(err.Error(), "input ends inside a record (50 bytes of a 100-byte record at byte 100)") {
		t.Errorf("partial record: %v", err)
	}
	c = newTestContext(t, map[string]string{"_splits/0": string(genRecords(1, 2))}, Output{Consumer: "reduce", Partitions: 1})
	if err := teraMap(c, nil); err == nil || !strings.Contains(err.Error(), "needs a tera-sample vertex") {
		t.Errorf("no samples: %v", err)
	}
}
