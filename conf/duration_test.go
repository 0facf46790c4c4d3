package conf

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Every duration key holds its largest allowed value without overflowing
// (the value comes back from Duration unchanged in its unit), and one more
// is refused with an error naming the key. A value of 18446744073710 ms
// (585 years) once became 448 µs.
func TestDurationKeysAtTheirBounds(t *testing.T) {
	n := 0
	for _, k := range keys {
		unit := time.Duration(0)
		switch {
		case strings.HasSuffix(k.Name, ".ms"):
			unit = time.Millisecond
		case strings.HasSuffix(k.Name, ".secs"):
			unit = time.Second
		default:
			continue
		}
		n++
		max := k.Bounds.Max
		if !k.Bounds.HasMax {
			if k.Type != Int {
				t.Errorf("%s: a duration key without an upper bound", k.Name)
				continue
			}
			max = math.MaxInt32 // Int keys are int32
		}
		top := strconv.FormatFloat(max, 'f', 0, 64)
		c, _, err := Load(LoadOptions{Getenv: envOf(nil), Sets: map[string]string{k.Name: top}})
		if err != nil {
			t.Errorf("%s=%s (its bound): %v", k.Name, top, err)
			continue
		}
		d := c.Duration(k.Name)
		if d <= 0 || int64(d/unit) != int64(max) {
			t.Errorf("%s=%s became %s: the conversion overflowed", k.Name, top, d)
		}
		over := strconv.FormatFloat(max+1, 'f', 0, 64)
		_, _, err = Load(LoadOptions{Getenv: envOf(nil), Sets: map[string]string{k.Name: over}})
		if err == nil || !strings.Contains(err.Error(), k.Name) || !strings.Contains(err.Error(), over) {
			t.Errorf("%s=%s (over its bound): err = %v, want an error naming the key and the value", k.Name, over, err)
		}
	}
	if n < 15 {
		t.Fatalf("only %d duration keys found: the suffix rule no longer matches the table", n)
	}
}
