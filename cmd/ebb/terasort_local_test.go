package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLocalTeraSort runs examples/terasort.yaml in the local world on
// records in TeraGen's layout (random keys with newline bytes in them, in
// three files of unequal size): the AM cuts the splits on record
// boundaries, the workers copy them exactly, and the four reduce outputs
// in name order are every input record, sorted bytewise.
func TestLocalTeraSort(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "terasort-input")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	var all [][]byte
	for f, n := range []int{4000, 2500, 3501} {
		var b []byte
		for i := range n {
			rec := make([]byte, 100)
			for j := range 10 {
				rec[j] = byte(r.UintN(256))
			}
			copy(rec[10:], fmt.Sprintf("%08d-%05d", f, i))
			all = append(all, rec)
			b = append(b, rec...)
		}
		if err := os.WriteFile(filepath.Join(in, fmt.Sprintf("part-m-%05d", f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec, err := os.ReadFile("../../examples/terasort.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "terasort.yaml"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	log, err := runEbb(t, "local", "run", filepath.Join(dir, "terasort.yaml"), "--output", out)
	if err != nil {
		t.Fatalf("ebb local run: %v\n%s", err, log)
	}
	var got []byte
	for p := range 4 {
		b, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("part-%05d", p)))
		if err != nil {
			t.Fatal(err)
		}
		if len(b) == 0 || len(b)%100 != 0 {
			t.Errorf("part-%05d: %d bytes, want whole records and some of them", p, len(b))
		}
		got = append(got, b...)
	}
	slices.SortFunc(all, bytes.Compare)
	if want := bytes.Join(all, nil); !bytes.Equal(got, want) {
		t.Errorf("outputs in name order (%d bytes) are not the %d input records sorted (%d bytes)", len(got), len(all), len(want))
	}
}
