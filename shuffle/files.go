package shuffle

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// FanIn is how many files one merge pass reads at once (MapReduce's
// io.sort.factor): each costs an open file and a 32 KiB buffer.
const FanIn = 64

// MergeFiles merges sorted partition files into emit, in cmp's order
// (ties in the order of paths). Beyond FanIn files the first FanIn are
// merged into a file in tmp first, until one pass can read them all.
func MergeFiles(paths []string, cmp Compare, tmp string, emit func(key, value []byte) error) error {
	seq := 0
	for len(paths) > FanIn {
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			return fmt.Errorf("making the merge directory: %w", err)
		}
		out := filepath.Join(tmp, "merge-"+strconv.Itoa(seq))
		seq++
		if err := mergeToFile(paths[:FanIn], cmp, out); err != nil {
			return err
		}
		paths = append([]string{out}, paths[FanIn:]...)
	}
	return mergeOnce(paths, cmp, emit)
}

func mergeToFile(paths []string, cmp Compare, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("creating merged run: %w", err)
	}
	w := NewRunWriter(f)
	err = mergeOnce(paths, cmp, w.Write)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing merged run: %w", cerr)
	}
	return err
}

func mergeOnce(paths []string, cmp Compare, emit func(key, value []byte) error) error {
	srcs := make([]Source, 0, len(paths))
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("opening sorted input: %w", err)
		}
		defer func() { _ = f.Close() }() // read-only
		srcs = append(srcs, NewRunReader(f, 32<<10, p))
	}
	return Merge(srcs, cmp, emit)
}
