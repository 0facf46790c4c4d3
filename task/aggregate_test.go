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
	for _, bad := range []string{"nocolon\t1\n", "LongValueSum:w\tx\n", "ValueHistogram:h\t1\n"} {
		if err := aggregateLines(strings.NewReader(bad), &out, false); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
