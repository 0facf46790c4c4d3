package conf

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Type is the kind of value a key holds.
type Type int

// The value types a key can have. Int is 32-bit like the Java int that MR3
// reads the same keys into, so a value MR3 would reject is rejected here too.
const (
	String Type = iota
	Int
	Int64
	Bool
	Float
	Enum
)

func (t Type) String() string {
	switch t {
	case String:
		return "string"
	case Int:
		return "int"
	case Int64:
		return "int64"
	case Bool:
		return "bool"
	case Float:
		return "float"
	case Enum:
		return "enum"
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// Bounds limits a numeric key. A zero Bounds allows everything its type
// can hold; from and between build the rest so the key table stays readable.
type Bounds struct {
	Min, Max       float64
	HasMin, HasMax bool
}

func from(lo float64) Bounds { return Bounds{Min: lo, HasMin: true} }

// maxDurationMillis caps every millisecond key at 100 years: far beyond any
// timeout an admin means ("never" in practice), and far below the 292 years
// a time.Duration holds, so the conversion can never overflow (an unbounded
// 18446744073710 ms once became 448 µs). Second keys are Int, so int32
// caps them at 68 years.
const maxDurationMillis = 100 * 365 * 24 * 3600 * 1000

// millis bounds a duration key in milliseconds.
func millis(lo float64) Bounds { return between(lo, maxDurationMillis) }

func between(lo, hi float64) Bounds {
	return Bounds{Min: lo, Max: hi, HasMin: true, HasMax: true}
}

// Allowed says in words which values the key accepts; it completes the
// sentence "want ...".
func (k Key) Allowed() string {
	switch k.Type {
	case Int, Int64:
		b := k.Bounds
		if k.Type == Int {
			// An unbounded side of a 32-bit key is still bounded by int32.
			if !b.HasMin {
				b.Min, b.HasMin = math.MinInt32, true
			}
			if !b.HasMax {
				b.Max, b.HasMax = math.MaxInt32, true
			}
		}
		return "an integer" + b.phrase("%.0f")
	case Float:
		return "a number" + k.Bounds.phrase("%g")
	case Bool:
		return "true or false"
	case Enum:
		return "one of " + strings.Join(k.Enum, ", ")
	}
	return "a string"
}

func (b Bounds) phrase(verb string) string {
	switch {
	case b.HasMin && b.HasMax:
		return fmt.Sprintf(" from "+verb+" to "+verb, b.Min, b.Max)
	case b.HasMin:
		return fmt.Sprintf(" >= "+verb, b.Min)
	case b.HasMax:
		return fmt.Sprintf(" <= "+verb, b.Max)
	}
	return ""
}

func (b Bounds) contains(v float64) bool {
	return !(b.HasMin && v < b.Min) && !(b.HasMax && v > b.Max)
}

// parse turns an expanded value into the Go value the typed accessors
// return (int, int64, bool, float64 or string). ok is false when the value
// is not one Allowed describes. Surrounding blanks are ignored, as Hadoop's
// typed getters trim.
func (k Key) parse(s string) (v any, ok bool) {
	s = strings.TrimSpace(s)
	switch k.Type {
	case Int:
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil || !k.Bounds.contains(float64(n)) {
			return nil, false
		}
		return int(n), true
	case Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || !k.Bounds.contains(float64(n)) {
			return nil, false
		}
		return n, true
	case Float:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || !k.Bounds.contains(f) {
			return nil, false
		}
		return f, true
	case Bool:
		switch strings.ToLower(s) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
		return nil, false
	case Enum:
		for _, e := range k.Enum {
			if strings.EqualFold(s, e) {
				return e, true
			}
		}
		return nil, false
	}
	return s, true
}
