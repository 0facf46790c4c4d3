package trace

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// decimaDAG is one TPC-H query at one input size: its stages in order.
type decimaDAG struct {
	key    string // e.g. "2g/q1"
	line   int    // where it starts in a CSV; 0 for the JSON file
	stages []decimaStage
}

type decimaStage struct {
	id      int
	parents []int
	tasks   int
	pool    []float64 // measured task times, ms; one value = every task
}

// decimaFile is the layout of tpch_dags_full.json(.gz).
type decimaFile map[string]struct {
	NumStages int `json:"num_stages"`
	Stages    []struct {
		Stage     int                  `json:"stage"`
		Parents   []int                `json:"parents"`
		NumTasks  int                  `json:"num_tasks"`
		FirstWave map[string][]float64 `json:"first_wave_ms"`
		RestWave  map[string][]float64 `json:"rest_wave_ms"`
	} `json:"stages"`
}

// readDecimaFull reads Decima's full TPC-H DAGs. A task's duration is
// drawn (seeded) from every time measured for its stage, first and later
// waves under every executor count pooled, so a stage keeps its spread.
func readDecimaFull(path string, m ModelOptions, seed int64) ([]Job, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only: a failed close loses nothing
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, &Error{File: path, Msg: "not gzip data", Err: err}
		}
		defer func() { _ = gz.Close() }() // read-only: a failed close loses nothing
		r = gz
	}
	var file decimaFile
	if err := json.NewDecoder(r).Decode(&file); err != nil {
		return nil, &Error{File: path, Msg: "not Decima's DAG JSON", Err: err}
	}
	var dags []decimaDAG
	for key, d := range file {
		if len(d.Stages) == 0 {
			return nil, fieldError(path, 0, key+".stages", "", "a DAG needs at least one stage")
		}
		dd := decimaDAG{key: key}
		for i, s := range d.Stages {
			var pool []float64
			for _, exec := range sortedKeys(s.FirstWave) {
				pool = append(pool, s.FirstWave[exec]...)
			}
			for _, exec := range sortedKeys(s.RestWave) {
				pool = append(pool, s.RestWave[exec]...)
			}
			field := fmt.Sprintf("%s.stages[%d]", key, i)
			if len(pool) == 0 {
				return nil, fieldError(path, 0, field, "", "no measured task times")
			}
			if s.NumTasks < 1 {
				return nil, fieldError(path, 0, field+".num_tasks", strconv.Itoa(s.NumTasks), "want at least 1 task")
			}
			dd.stages = append(dd.stages, decimaStage{id: s.Stage, parents: s.Parents, tasks: s.NumTasks, pool: pool})
		}
		dags = append(dags, dd)
	}
	return decimaJobs(path, dags, m, seed)
}

// readDecimaSummary reads tpch_stage_summary.csv: one row per stage, every
// task of a stage lasting the stage's mean measured task time.
func readDecimaSummary(path string, m ModelOptions, seed int64) ([]Job, error) {
	t, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	if len(t.rows) == 0 {
		return nil, fieldError(path, 0, "", "", "empty file: want a header and stage rows")
	}
	names := []string{"input_size", "tpch_query", "stage", "parent_stages", "num_tasks", "mean_task_ms"}
	cols := make([]int, len(names))
	for i, n := range names {
		if cols[i], err = t.column(t.rows[0], n); err != nil {
			return nil, err
		}
	}
	var dags []decimaDAG
	index := map[string]int{}
	for i := 1; i < len(t.rows); i++ {
		row := t.rows[i]
		if len(row) < len(t.rows[0]) {
			return nil, fieldError(path, t.lines[i], "", strings.Join(row, ","), "%d columns: want %d", len(row), len(t.rows[0]))
		}
		key := strings.TrimSpace(row[cols[0]]) + "/q" + strings.TrimSpace(row[cols[1]])
		stageID, err := t.num(i, cols[2], names[2])
		if err != nil {
			return nil, err
		}
		tasks, err := t.num(i, cols[4], names[4])
		if err != nil {
			return nil, err
		}
		if tasks < 1 {
			return nil, fieldError(path, t.lines[i], "num_tasks", row[cols[4]], "want at least 1 task")
		}
		ms, err := t.num(i, cols[5], names[5])
		if err != nil {
			return nil, err
		}
		if ms < 0 {
			return nil, fieldError(path, t.lines[i], "mean_task_ms", row[cols[5]], "want a non-negative time")
		}
		var parents []int
		for _, p := range strings.Fields(row[cols[3]]) {
			v, err := strconv.Atoi(p)
			if err != nil {
				return nil, fieldError(path, t.lines[i], "parent_stages", row[cols[3]], "want stage numbers separated by spaces")
			}
			parents = append(parents, v)
		}
		k, ok := index[key]
		if !ok {
			k = len(dags)
			index[key] = k
			dags = append(dags, decimaDAG{key: key, line: t.lines[i]})
		}
		dags[k].stages = append(dags[k].stages, decimaStage{id: int(stageID), parents: parents, tasks: int(tasks), pool: []float64{ms}})
	}
	return decimaJobs(path, dags, m, seed)
}

// decimaJobs draws arrivals for the DAGs: a Poisson process (exponential
// gaps of mean DecimaMeanInterarrival, the first job one gap after 0).
// With DecimaJobs 0 every DAG arrives once, in a seeded random order;
// otherwise DecimaJobs DAGs are drawn uniformly with replacement.
func decimaJobs(path string, dags []decimaDAG, m ModelOptions, seed int64) ([]Job, error) {
	sort.Slice(dags, func(i, j int) bool { return decimaLess(dags[i].key, dags[j].key) })
	// Two streams: arrivals and picks do not depend on how many task
	// times were drawn, so both Decima files give the same arrivals.
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	taskRNG := rand.New(rand.NewPCG(uint64(seed), 2))
	var picks []int
	if m.DecimaJobs == 0 {
		picks = rng.Perm(len(dags))
	} else {
		picks = make([]int, m.DecimaJobs)
		for i := range picks {
			picks[i] = rng.IntN(len(dags))
		}
	}
	var jobs []Job
	var at float64
	mean := m.DecimaMeanInterarrival.Seconds()
	for n, k := range picks {
		d := dags[k]
		at += rng.ExpFloat64() * mean
		stages := make([]stage, len(d.stages))
		for i, s := range d.stages {
			durs := []time.Duration{secs(s.pool[0] / 1000)}
			if len(s.pool) > 1 {
				durs = make([]time.Duration, s.tasks)
				for t := range durs {
					durs[t] = secs(s.pool[taskRNG.IntN(len(s.pool))] / 1000)
				}
			}
			stages[i] = stage{name: "s" + strconv.Itoa(s.id), tasks: s.tasks, memoryMB: m.DecimaMemoryMB, vcores: 1, durations: durs}
			for _, p := range s.parents {
				stages[i].parents = append(stages[i].parents, "s"+strconv.Itoa(p))
			}
		}
		capTasks(stages, m.MaxTasksPerJob)
		id := fmt.Sprintf("d%04d-%s", n, strings.ReplaceAll(d.key, "/", "-"))
		spec, err := buildSpec(path, d.line, id, m, stages, 0)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, Job{ID: id, Submit: secs(at), Spec: spec})
	}
	return jobs, nil
}

// decimaLess orders keys like "10g/q2" by input size, then query number,
// so the DAG list (and thus the seeded draws) does not depend on the
// order the file happens to list them in.
func decimaLess(a, b string) bool {
	na, qa := decimaKeyNums(a)
	nb, qb := decimaKeyNums(b)
	if na != nb {
		return na < nb
	}
	if qa != qb {
		return qa < qb
	}
	return a < b
}

func decimaKeyNums(key string) (size, query float64) {
	s, q, _ := strings.Cut(key, "/q")
	size, err := strconv.ParseFloat(strings.TrimSuffix(s, "g"), 64)
	if err != nil {
		size = math.Inf(1)
	}
	query, err = strconv.ParseFloat(q, 64)
	if err != nil {
		query = math.Inf(1)
	}
	return size, query
}

func sortedKeys(m map[string][]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, errA := strconv.Atoi(keys[i])
		b, errB := strconv.Atoi(keys[j])
		if errA == nil && errB == nil && a != b {
			return a < b
		}
		return keys[i] < keys[j]
	})
	return keys
}
