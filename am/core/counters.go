package core

import (
	"cmp"
	"slices"
)

// Counter is one named count a task reported (a Streaming program's
// `reporter:counter:GROUP,NAME,AMOUNT` lines on stderr, summed by its
// worker). A vertex's counters are the sums over its succeeded tasks, each
// task counted once, by the attempt whose output stands (as MapReduce's job
// counters count only successful attempts); a DAG's are the sums over its
// vertices.
type Counter struct {
	Group string
	Name  string
	Value int64
}

// AddCounters returns dst with src added, counter by counter, sorted by
// group then name; neither input is changed.
func AddCounters(dst, src []Counter) []Counter {
	if len(src) == 0 {
		return dst
	}
	out := slices.Clone(dst)
	for _, c := range src {
		i, found := slices.BinarySearchFunc(out, c, compareCounter)
		if found {
			out[i].Value += c.Value
			continue
		}
		out = slices.Insert(out, i, c)
	}
	return out
}

func compareCounter(a, b Counter) int {
	return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Name, b.Name))
}

// setTaskCounters keeps a succeeded task's counters, replacing those of an
// earlier success (an output lost and made again). Held per vertex, only
// for tasks that reported some: most tasks report none, and a taskRun stays
// small (state.go).
func (v *vertexRun) setTaskCounters(task int, cs []Counter) {
	if len(cs) == 0 {
		delete(v.counters, task)
		return
	}
	if v.counters == nil {
		v.counters = map[int][]Counter{}
	}
	v.counters[task] = AddCounters(nil, cs)
}

// counterSums is the sum of the counters of v's succeeded tasks.
func (v *vertexRun) counterSums() []Counter {
	var sum []Counter
	for i, cs := range v.counters {
		if i < len(v.tasks) && v.tasks[i].state == taskSucceeded {
			sum = AddCounters(sum, cs)
		}
	}
	return sum
}
