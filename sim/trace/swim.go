package trace

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

const mb = 1 << 20

// swimColumns are SWIM's tab-separated columns, for error messages.
var swimColumns = []string{"job id", "submit secs", "gap secs", "map input bytes", "shuffle bytes", "reduce output bytes"}

// readSWIM reads a SWIM workload (one job per line, no header) and
// models each job as map -> reduce, or map only when nothing is shuffled.
func readSWIM(path string, m ModelOptions) ([]Job, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only: a failed close loses nothing
	var jobs []Job
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) != len(swimColumns) {
			return nil, fieldError(path, line, "", text, "%d tab-separated columns: want %d (%s)",
				len(cols), len(swimColumns), strings.Join(swimColumns, ", "))
		}
		var nums [5]float64
		for i := 1; i < len(cols); i++ {
			v, err := strconv.ParseFloat(strings.TrimSpace(cols[i]), 64)
			if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, fieldError(path, line, fmt.Sprintf("column %d (%s)", i+1, swimColumns[i]), cols[i], "want a non-negative number")
			}
			nums[i-1] = v
		}
		id := strings.TrimSpace(cols[0])
		stages := swimStages(nums[2], nums[3], m)
		capTasks(stages, m.MaxTasksPerJob)
		spec, err := buildSpec(path, line, id, m, stages, 0)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, Job{ID: id, Submit: secs(nums[0]), Spec: spec})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("trace: %s: %w", path, err)
	}
	return jobs, nil
}

// swimStages is the SWIM model: maps = ceil(input/split) (at least one)
// each lasting MapBase + its share of the input at MapMBPerSec; reduces =
// ceil(shuffle/ReduceInputMB) each lasting ReduceBase + its share of the
// shuffle at ReduceMBPerSec. Output bytes are not modelled.
func swimStages(input, shuffle float64, m ModelOptions) []stage {
	maps := max(1, int(math.Ceil(input/(m.SplitMB*mb))))
	mapDur := m.MapBase + secs(input/float64(maps)/(m.MapMBPerSec*mb))
	stages := []stage{{name: "map", tasks: maps, memoryMB: m.MapMemoryMB, vcores: 1, durations: []time.Duration{mapDur}}}
	if shuffle > 0 {
		reduces := int(math.Ceil(shuffle / (m.ReduceInputMB * mb)))
		redDur := m.ReduceBase + secs(shuffle/float64(reduces)/(m.ReduceMBPerSec*mb))
		stages = append(stages, stage{name: "reduce", tasks: reduces, memoryMB: m.ReduceMemoryMB, vcores: 1,
			durations: []time.Duration{redDur}, parents: []string{"map"}})
	}
	return stages
}

// secs turns seconds into a Duration rounded to the millisecond, so
// modelled times print and compare cleanly.
func secs(s float64) time.Duration {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond)
}
