package task

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// aggregate is Hadoop's ValueAggregatorReducer (and, with --combine,
// ValueAggregatorCombiner), what Streaming's `-reducer aggregate` runs, as
// a stream program: it reads "Type:id<TAB>value" lines sorted by key on
// stdin, aggregates the values of each key with the aggregator Type names
// (LongValueSum, LongValueMax, LongValueMin, DoubleValueSum,
// StringValueMax, StringValueMin, UniqValueCount, ValueHistogram; any
// case), and writes "id<TAB>report" — or, combining, "Type:id<TAB>partial"
// lines, which the reducer aggregates again.
func aggregate(_ *Context, args []string) error {
	fs := flag.NewFlagSet("aggregate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	combine := fs.Bool("combine", false, "emit partial aggregates (the combiner)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return aggregateLines(os.Stdin, os.Stdout, *combine)
}

func aggregateLines(in io.Reader, out io.Writer, combine bool) error {
	br := bufio.NewReaderSize(in, 64<<10)
	bw := bufio.NewWriterSize(out, 64<<10)
	var cur []byte
	var agg valueAggregator
	flush := func() error {
		if agg == nil {
			return nil
		}
		_, id, _ := bytes.Cut(cur, []byte{':'})
		if combine {
			for _, v := range agg.combinerOutput() {
				_, _ = fmt.Fprintf(bw, "%s\t%s\n", cur, v) // bufio keeps the error for Flush
			}
			return nil
		}
		_, _ = fmt.Fprintf(bw, "%s\t%s\n", id, agg.report()) // bufio keeps the error for Flush
		return nil
	}
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			line = bytes.TrimSuffix(line, []byte{'\n'})
			key, value, _ := bytes.Cut(line, []byte{'\t'})
			if agg == nil || !bytes.Equal(key, cur) {
				if ferr := flush(); ferr != nil {
					return ferr
				}
				cur = append(cur[:0], key...)
				typ, _, ok := bytes.Cut(key, []byte{':'})
				if !ok {
					return fmt.Errorf("aggregate: key %q has no ':' (want Type:id, e.g. LongValueSum:word)", key)
				}
				if agg, err = newAggregator(string(typ)); err != nil {
					return err
				}
			}
			if aerr := agg.add(string(value)); aerr != nil {
				return fmt.Errorf("aggregate: key %q: %w", key, aerr)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return bw.Flush()
}

// valueAggregator is one of Hadoop's ValueAggregators.
type valueAggregator interface {
	add(v string) error
	report() string
	combinerOutput() []string
}

func newAggregator(typ string) (valueAggregator, error) {
	switch strings.ToLower(typ) {
	case "longvaluesum":
		return &longAgg{op: func(a, b int64) int64 { return a + b }}, nil
	case "longvaluemax":
		return &longAgg{v: -1 << 63, op: func(a, b int64) int64 { return max(a, b) }}, nil
	case "longvaluemin":
		return &longAgg{v: 1<<63 - 1, op: func(a, b int64) int64 { return min(a, b) }}, nil
	case "doublevaluesum":
		return &doubleSum{}, nil
	case "stringvaluemax":
		return &stringAgg{max: true}, nil
	case "stringvaluemin":
		return &stringAgg{}, nil
	case "uniqvaluecount":
		return &uniqCount{seen: map[string]bool{}}, nil
	case "valuehistogram":
		return &histogram{counts: map[string]int64{}}, nil
	}
	return nil, fmt.Errorf("aggregate: aggregator %q is not supported (want LongValueSum, LongValueMax, LongValueMin, DoubleValueSum, StringValueMax, StringValueMin, UniqValueCount or ValueHistogram)", typ)
}

type longAgg struct {
	v  int64
	op func(a, b int64) int64
}

func (a *longAgg) add(v string) error {
	n, err := strconv.ParseInt(v, 10, 64) // Long.parseLong: no spaces, an optional sign
	if err != nil {
		return fmt.Errorf("value %q is not a long", v)
	}
	a.v = a.op(a.v, n)
	return nil
}
func (a *longAgg) report() string           { return strconv.FormatInt(a.v, 10) }
func (a *longAgg) combinerOutput() []string { return []string{a.report()} }

type doubleSum struct{ v float64 }

func (a *doubleSum) add(v string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64) // Double.parseDouble trims
	if err != nil {
		return fmt.Errorf("value %q is not a double", v)
	}
	a.v += f
	return nil
}
func (a *doubleSum) report() string           { return javaDouble(a.v) }
func (a *doubleSum) combinerOutput() []string { return []string{a.report()} }

// javaDouble formats f as Java's Double.toString: decimal with at least one
// fractional digit for 1e-3 <= |f| < 1e7, else d.dddE±n.
func javaDouble(f float64) string {
	switch {
	case f != f:
		return "NaN"
	case f > 1.7976931348623157e308:
		return "Infinity"
	case f < -1.7976931348623157e308:
		return "-Infinity"
	case f == 0:
		if 1/f < 0 {
			return "-0.0"
		}
		return "0.0"
	}
	if a := max(f, -f); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	n, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(n)
}

type stringAgg struct {
	v   string
	set bool
	max bool
}

func (a *stringAgg) add(v string) error {
	c := compareUTF16(v, a.v)
	if !a.set || (a.max && c > 0) || (!a.max && c < 0) {
		a.v, a.set = v, true
	}
	return nil
}
func (a *stringAgg) report() string           { return a.v }
func (a *stringAgg) combinerOutput() []string { return []string{a.v} }

// compareUTF16 is Java's String.compareTo: by UTF-16 code units.
func compareUTF16(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

type uniqCount struct{ seen map[string]bool }

func (a *uniqCount) add(v string) error { a.seen[v] = true; return nil }
func (a *uniqCount) report() string     { return strconv.Itoa(len(a.seen)) }
func (a *uniqCount) combinerOutput() []string {
	out := make([]string, 0, len(a.seen))
	for v := range a.seen {
		out = append(out, v)
	}
	slices.SortFunc(out, compareUTF16) // a TreeMap's order
	return out
}

// histogram is ValueHistogram: a count per distinct value, where a value
// "v<TAB>n" (the last tab) counts n, else 1. Its report is the number of
// distinct values, then the smallest, median (the sorted counts' middle,
// upper for an even number), largest and mean count and their standard
// deviation (over all, not a sample), tab-separated, the doubles as Java
// prints them; its combiner output is "v<TAB>n" per value in Java's
// String order.
type histogram struct{ counts map[string]int64 }

func (a *histogram) add(v string) error {
	val, count := v, "1"
	if i := strings.LastIndexByte(v, '\t'); i >= 0 {
		val, count = v[:i], v[i+1:]
	}
	n, err := strconv.ParseInt(count, 10, 64) // Long.parseLong
	if err != nil {
		return fmt.Errorf("value %q: count %q is not a long", v, count)
	}
	a.counts[val] += n
	return nil
}

func (a *histogram) report() string {
	counts := make([]int64, 0, len(a.counts))
	var acc int64
	for _, n := range a.counts {
		counts = append(counts, n)
		acc += n
	}
	slices.Sort(counts)
	s := strconv.Itoa(len(counts))
	if len(counts) == 0 {
		return s
	}
	mean := float64(acc) / float64(len(counts))
	var sd float64
	for _, n := range counts {
		d := float64(n) - mean
		sd += d * d
	}
	sd = math.Sqrt(sd / float64(len(counts)))
	return fmt.Sprintf("%s\t%d\t%d\t%d\t%s\t%s", s, counts[0], counts[len(counts)/2], counts[len(counts)-1], javaDouble(mean), javaDouble(sd))
}

func (a *histogram) combinerOutput() []string {
	vals := make([]string, 0, len(a.counts))
	for v := range a.counts {
		vals = append(vals, v)
	}
	slices.SortFunc(vals, compareUTF16) // a TreeMap's order
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = v + "\t" + strconv.FormatInt(a.counts[v], 10)
	}
	return out
}
