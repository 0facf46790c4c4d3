package am

import (
	"fmt"

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
// whole lines, so cuts may fall anywhere.
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
		out[v.Name] = cut(files, v.Parallelism)
	}
	return out, nil
}

// cut divides the concatenation of files into n ranges of near-equal size.
func cut(files []fsys.FileInfo, n int) [][]core.Split {
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
			s, e := max(lo, base), min(hi, base+f.Size)
			if s < e {
				tasks[i] = append(tasks[i], core.Split{Path: f.Path, Offset: s - base, Length: e - s})
			}
		}
		base += f.Size
	}
	return tasks
}
