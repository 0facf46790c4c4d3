package trace

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Alibaba 2018 DAG jobs generated from the trace's marginal distributions
// (alibaba_v2018_dag_distributions: one "<count> <value>" histogram per
// file). Spår's construction (Tian et al., SoCC'19), written anew here:
//
//   - arrivals: the trace's job intervals (mean 0.205 s), drawn in sequence over the span
//     (AlibabaDAGSpan, a day), each arrival kept with probability
//     AlibabaDAGMachines / alibaba2018Machines: the share of the
//     4,034-machine cluster's DAGs a cluster of that many machines would
//     see (at full rate a day is about 420,000 DAGs);
//   - a DAG of N tasks (task_num), C of them on the critical path
//     (cpl_dist-min(N,35)), one per level 1..C; the other N−C tasks at
//     levels drawn from level_dist-min(C,20) (clamped to C); each task of a
//     level feeds ceil(|next| / |this|) random tasks of the next level,
//     and the critical path's task the next one's, by scatter-gather edges;
//   - per task (a vertex): instances (instance_num, capped with the job as
//     MaxTasksPerJob says), one duration for all of them (task_duration,
//     whole seconds in the data, spread uniformly over the second), cores
//     ceil(task_cpu / 100) (at least 1), memory task_mem % of
//     AlibabaNodeMemoryMB rounded up to MemoryStepMB.
//
// The marginals are drawn independently: correlations the real jobs had
// (big tasks being long, say) are lost. Same seed and options, same jobs.

// alibaba2018Machines is the size of the cluster the v2018 trace was
// taken on (its machine_meta table).
const alibaba2018Machines = 4034

// histogram is one distribution file: values with cumulative counts.
type histogram struct {
	values []float64
	cum    []float64
}

func (h histogram) draw(r *rand.Rand) float64 {
	x := r.Float64() * h.cum[len(h.cum)-1]
	return h.values[sort.SearchFloat64s(h.cum, x+math.SmallestNonzeroFloat64)]
}

func readHistogram(path string) (histogram, error) {
	f, err := os.Open(path)
	if err != nil {
		return histogram{}, fmt.Errorf("trace: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only: a failed close loses nothing
	var h histogram
	var total float64
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if len(fs) != 2 {
			return h, fieldError(path, line, "", sc.Text(), "want \"<count> <value>\"")
		}
		c, err1 := strconv.ParseFloat(fs[0], 64)
		v, err2 := strconv.ParseFloat(fs[1], 64)
		if err1 != nil || err2 != nil || c < 0 {
			return h, fieldError(path, line, "", sc.Text(), "want a count ≥ 0 and a number")
		}
		if c == 0 {
			continue
		}
		total += c
		h.values, h.cum = append(h.values, v), append(h.cum, total)
	}
	if err := sc.Err(); err != nil {
		return h, fmt.Errorf("trace: %s: %w", path, err)
	}
	if total == 0 {
		return h, fieldError(path, 0, "", "", "empty histogram")
	}
	return h, nil
}

// dagDists is the whole folder, read once.
type dagDists struct {
	interval, taskNum, duration, instances, cpu, mem histogram
	cpl                                              map[int]histogram // by task count, 2..35
	level                                            map[int]histogram // by critical path length, 1..20
}

func readDAGDists(dir string) (*dagDists, error) {
	d := &dagDists{cpl: map[int]histogram{}, level: map[int]histogram{}}
	one := map[string]*histogram{
		"job_interval_dist.dat": &d.interval, "task_num_dist.dat": &d.taskNum,
		"task_duration_dist.dat": &d.duration, "instance_num_dist.dat": &d.instances,
		"task_cpu_dist.dat": &d.cpu, "task_mem_dist.dat": &d.mem,
	}
	for name, h := range one {
		var err error
		if *h, err = readHistogram(filepath.Join(dir, name)); err != nil {
			return nil, err
		}
	}
	for n := 2; n <= 35; n++ {
		h, err := readHistogram(filepath.Join(dir, fmt.Sprintf("cpl_dist-%d.dat", n)))
		if err != nil {
			return nil, err
		}
		d.cpl[n] = h
	}
	for c := 1; c <= 20; c++ {
		h, err := readHistogram(filepath.Join(dir, fmt.Sprintf("level_dist-%d.dat", c)))
		if err != nil {
			return nil, err
		}
		d.level[c] = h
	}
	return d, nil
}

// readAlibabaDAG generates the jobs of AlibabaDAGSpan from the folder dir.
func readAlibabaDAG(dir string, m ModelOptions, seed int64) ([]Job, error) {
	d, err := readDAGDists(dir)
	if err != nil {
		return nil, err
	}
	arrivals := rand.New(rand.NewPCG(uint64(seed), 3))
	shapes := rand.New(rand.NewPCG(uint64(seed), 4))
	keep := float64(m.AlibabaDAGMachines) / alibaba2018Machines
	var jobs []Job
	for t := 0.0; ; {
		t += d.interval.draw(arrivals) // differences of whole-second timestamps: 0 is the same second
		if t >= m.AlibabaDAGSpan.Seconds() {
			return jobs, nil
		}
		if arrivals.Float64() >= keep {
			continue
		}
		id := fmt.Sprintf("a%d", len(jobs)+1)
		stages := d.shape(shapes, m)
		capTasks(stages, m.MaxTasksPerJob)
		spec, err := buildSpec(dir, 0, id, m, stages, 0)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, Job{ID: id, Submit: secs(t), Spec: spec})
	}
}

// shape draws one DAG's tasks and edges (the construction above).
func (d *dagDists) shape(r *rand.Rand, m ModelOptions) []stage {
	n := max(1, int(d.taskNum.draw(r)))
	c := 1
	if n > 1 {
		c = min(n, max(1, int(d.cpl[min(n, 35)].draw(r))))
	}
	levels := make([][]int, c) // task indices per level, the critical one first
	for l := range c {
		levels[l] = []int{l}
	}
	for i := c; i < n; i++ {
		l := min(c, max(1, int(d.level[min(c, 20)].draw(r)))) - 1
		levels[l] = append(levels[l], i)
	}
	stages := make([]stage, n)
	for i := range stages {
		cores := max(1, int(math.Ceil(d.cpu.draw(r)/100)))
		stages[i] = stage{name: fmt.Sprintf("T%d", i+1), tasks: max(1, int(d.instances.draw(r))),
			memoryMB: m.denormalise(min(1, d.mem.draw(r)/100)), vcores: cores,
			durations: []time.Duration{secs(d.duration.draw(r) + r.Float64())}}
	}
	for l := 0; l+1 < c; l++ {
		this, next := levels[l], levels[l+1]
		k := (len(next) + len(this) - 1) / len(this)
		for _, from := range this {
			for _, j := range r.Perm(len(next))[:k] {
				stages[next[j]].addParent(stages[from].name)
			}
		}
		stages[next[0]].addParent(stages[this[0]].name) // the critical path
	}
	return stages
}

func (s *stage) addParent(name string) {
	for _, p := range s.parents {
		if p == name {
			return
		}
	}
	s.parents = append(s.parents, name)
}
