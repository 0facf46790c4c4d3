package report

import (
	"math"
	"sort"
)

// Percentile is the nearest-rank p-th percentile (0 < p <= 100) of xs:
// the value at 1-based rank ceil(p/100 x n) in sorted order. It is NaN
// for no values. xs is not modified.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 || p <= 0 || p > 100 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	// Round p/100 x n before the ceiling so 95% of 20 is rank 19, not 20
	// through float error.
	rank := int(math.Ceil(math.Round(p/100*float64(len(s))*1e9) / 1e9))
	return s[max(rank, 1)-1]
}

// Mean is the arithmetic mean of xs, NaN for none.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// ratio is a/b, NaN when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 || math.IsNaN(b) {
		return math.NaN()
	}
	return a / b
}
