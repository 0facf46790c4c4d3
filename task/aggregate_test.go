package task

import (
	"bytes"
	"strings"
	"testing"
)

// TestAggregateAsHadoop: the reports are Hadoop's ValueAggregators'
// (Long sums, max, min; Java's Double.toString; distinct counts), keyed
// by the id after the type; the combiner keeps Type:id.
func TestAggregateAsHadoop(t *testing.T) {
	in := "DoubleValueSum:d\t0.1\nDoubleValueSum:d\t0.2\n" +
		"DoubleValueSum:e\t1e10\n" +
		"LongValueMax:m\t3\nLongValueMax:m\t-7\n" +
		"LongValueSum:w\t1\nLongValueSum:w\t41\n" +
		"StringValueMin:s\tpear\nStringValueMin:s\tapple\n" +
		"UniqValueCount:u\tx\nUniqValueCount:u\ty\nUniqValueCount:u\tx\n"
	var out bytes.Buffer
	if err := aggregateLines(strings.NewReader(in), &out, false); err != nil {
		t.Fatal(err)
	}
	// 0.1 + 0.2 in doubles is 0.30000000000000004, as Java prints it.
	want := "d\t0.30000000000000004\ne\t1.0E10\nm\t3\nw\t42\ns\tapple\nu\t2\n"
	if out.String() != want {
		t.Errorf("reduce:\n got %q\nwant %q", out.String(), want)
	}
	out.Reset()
	if err := aggregateLines(strings.NewReader(in), &out, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "LongValueSum:w\t42\n") || !strings.Contains(out.String(), "UniqValueCount:u\tx\nUniqValueCount:u\ty\n") {
		t.Errorf("combine: %q", out.String())
	}
	for _, bad := range []string{"nocolon\t1\n", "LongValueSum:w\tx\n", "ValueHistogram:h\tv\tx\n"} {
		if err := aggregateLines(strings.NewReader(bad), &out, false); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestAggregateHistogram: ValueHistogram counts each distinct value ("v"
// counts 1, "v<TAB>n" counts n) and reports how many there are, then the
// smallest, median, largest and mean count and the deviation; its combiner
// hands "v<TAB>n" on, which the reducer adds up.
func TestAggregateHistogram(t *testing.T) {
	in := "ValueHistogram:h\ta\nValueHistogram:h\tb\t3\nValueHistogram:h\ta\nValueHistogram:h\tc\t2\nValueHistogram:h\tx\ty\t1\n"
	var out bytes.Buffer
	if err := aggregateLines(strings.NewReader(in), &out, false); err != nil {
		t.Fatal(err)
	}
	// counts a 2, b 3, c 2, "x\ty" 1: sorted 1 2 2 3; mean 2.0; sd sqrt(2/4).
	if want := "h\t4\t1\t2\t3\t2.0\t0.7071067811865476\n"; out.String() != want {
		t.Errorf("reduce:\n got %q\nwant %q", out.String(), want)
	}
	out.Reset()
	if err := aggregateLines(strings.NewReader(in), &out, true); err != nil {
		t.Fatal(err)
	}
	combined := out.String()
	if want := "ValueHistogram:h\ta\t2\nValueHistogram:h\tb\t3\nValueHistogram:h\tc\t2\nValueHistogram:h\tx\ty\t1\n"; combined != want {
		t.Errorf("combine:\n got %q\nwant %q", combined, want)
	}
	out.Reset()
	if err := aggregateLines(strings.NewReader(combined), &out, false); err != nil || out.String() != "h\t4\t1\t2\t3\t2.0\t0.7071067811865476\n" {
		t.Errorf("reduce of the combined: %q, %v", out.String(), err)
	}
}
