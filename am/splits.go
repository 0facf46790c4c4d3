package am

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/fsys"
)

// InputError is an input that cannot be read or matches nothing.
type InputError struct {
	Vertex  string
	Pattern string
	Err     error
}

func (e *InputError) Error() string {
	return fmt.Sprintf("vertex %s input %q: %v", e.Vertex, e.Pattern, e.Err)
}
func (e *InputError) Unwrap() error { return e.Err }

// ComputeSplits lists every vertex's inputs and cuts them into one list of
// byte ranges per task, of about equal size. Workers widen each range to
// whole lines, so cuts may fall anywhere; for a vertex with a recordLength
// they fall on record boundaries instead, and are copied exactly.
func ComputeSplits(spec *dag.Spec, list func(pattern string) ([]fsys.FileInfo, error)) (map[string][][]core.Split, error) {
	out := map[string][][]core.Split{}
	for _, v := range spec.Vertices {
		if len(v.Inputs) == 0 {
			continue
		}
		var files []fsys.FileInfo
		for _, p := range v.Inputs {
			fs, err := list(p)
			if err != nil {
				return nil, &InputError{Vertex: v.Name, Pattern: p, Err: err}
			}
			if len(fs) == 0 {
				return nil, &InputError{Vertex: v.Name, Pattern: p, Err: fmt.Errorf("matches no file")}
			}
			files = append(files, fs...)
		}
		if v.SplitSize > 0 {
			tasks, err := hadoopCut(files, v.SplitSize, v.Parallelism)
			if err != nil {
				return nil, &InputError{Vertex: v.Name, Pattern: strings.Join(v.Inputs, ","), Err: err}
			}
			out[v.Name] = tasks
			continue
		}
		out[v.Name] = cut(files, v.Parallelism, v.RecordLength)
	}
	return out, nil
}

// hadoopCut is a vertex's splitSize: every file cut on its own as
// FileInputFormat cuts it, the splits ordered by length, largest first
// (a stable sort, as Hadoop's), one per task: Hadoop numbers its map tasks
// so, and a map-only job's part files follow.
func hadoopCut(files []fsys.FileInfo, size int64, n int) ([][]core.Split, error) {
	var splits []core.Split
	for _, f := range files {
		for _, s := range fsys.SplitsOf(f.Path, f.Size, size) {
			splits = append(splits, core.Split{Path: f.Path, Offset: s[0], Length: s[1]})
		}
	}
	if len(splits) != n {
		return nil, fmt.Errorf("the files make %d splits of %d bytes, but parallelism is %d (did the inputs change since the DAG was written?)", len(splits), size, n)
	}
	slices.SortStableFunc(splits, func(a, b core.Split) int { return cmp.Compare(b.Length, a.Length) })
	tasks := make([][]core.Split, n)
	for i, s := range splits {
		tasks[i] = []core.Split{s}
	}
	return tasks, nil
}

// cut divides the concatenation of files into n ranges of near-equal size.
// With a record length r > 0 every cut inside a file moves back to the
// record boundary at or before it (a multiple of r from the file's
// start), so that each record lies in one range whole; both ranges beside
// a cut move it alike, so the ranges still tile every file.
func cut(files []fsys.FileInfo, n int, r int64) [][]core.Split {
	var total int64
	for _, f := range files {
		total += f.Size
	}
	tasks := make([][]core.Split, n)
	if total == 0 {
		return tasks
	}
	// Task i covers global bytes [i*total/n, (i+1)*total/n).
	var base int64
	for _, f := range files {
		for i := 0; i < n; i++ {
			lo := int64(i) * total / int64(n)
			hi := int64(i+1) * total / int64(n)
			s, e := max(lo, base)-base, min(hi, base+f.Size)-base
			if r > 0 {
				s -= s % r
				if e < f.Size { // the file's end (even a short last record) stays put
					e -= e % r
				}
			}
			if s < e {
				tasks[i] = append(tasks[i], core.Split{Path: f.Path, Offset: s, Length: e - s, RecordLength: r})
			}
		}
		base += f.Size
	}
	return tasks
}
