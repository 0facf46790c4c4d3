package trace

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ebb-am/ebb/dag"
)

// Job is one DAG of a trace and when it arrives.
type Job struct {
	ID     string
	Submit time.Duration // offset from the trace start (after window and scale)
	Spec   *dag.Spec
}

// Formats are the names Read accepts, in the order Detect tries them.
var Formats = []string{"swim", "alibaba", "alibaba-raw", "decima", "decima-csv", "ebb-json", "ebb-csv", "alibaba-dag"}

// Detect guesses a trace's format from its file name: .tsv is SWIM;
// cloudsimpy*.csv is Alibaba's derived file and batch_task*.csv the raw
// table; tpch*.json(.gz) is Decima's full DAGs and tpch*.csv its stage
// summary; other .json is ebb's scenario format and other .csv ebb's CSV; a folder
// holding task_num_dist.dat is Alibaba 2018's DAG distributions.
func Detect(path string) (string, error) {
	if _, err := os.Stat(filepath.Join(path, "task_num_dist.dat")); err == nil {
		return "alibaba-dag", nil
	}
	base := strings.ToLower(filepath.Base(path))
	switch {
	case strings.HasSuffix(base, ".tsv"):
		return "swim", nil
	case strings.HasPrefix(base, "cloudsimpy") && strings.HasSuffix(base, ".csv"):
		return "alibaba", nil
	case strings.HasPrefix(base, "batch_task") && strings.HasSuffix(base, ".csv"):
		return "alibaba-raw", nil
	case strings.HasPrefix(base, "tpch") && (strings.HasSuffix(base, ".json.gz") || strings.HasSuffix(base, ".json")):
		return "decima", nil
	case strings.HasPrefix(base, "tpch") && strings.HasSuffix(base, ".csv"):
		return "decima-csv", nil
	case strings.HasSuffix(base, ".json"):
		return "ebb-json", nil
	case strings.HasSuffix(base, ".csv"):
		return "ebb-csv", nil
	}
	return "", fmt.Errorf("%w: %s: cannot tell the trace format from the name: give one of %s",
		ErrFormat, path, strings.Join(Formats, ", "))
}

// Read turns a trace file into jobs sorted by submit time (ties keep the
// file's order). format "" means Detect(path). The window is cut in the
// trace's own time, then the kept jobs are shifted to start at 0 and their
// offsets multiplied by o.Scale.
func Read(path string, format string, o Options) ([]Job, error) {
	o, err := o.check()
	if err != nil {
		return nil, err
	}
	if format == "" {
		if format, err = Detect(path); err != nil {
			return nil, err
		}
	}
	var jobs []Job
	switch format {
	case "swim":
		jobs, err = readSWIM(path, o.Model)
	case "alibaba":
		jobs, err = readAlibabaDerived(path, o.Model)
	case "alibaba-raw":
		jobs, err = readAlibabaRaw(path, o.Model)
	case "decima":
		jobs, err = readDecimaFull(path, o.Model, o.Seed)
	case "decima-csv":
		jobs, err = readDecimaSummary(path, o.Model, o.Seed)
	case "ebb-json":
		var s *Scenario
		if s, err = ReadScenario(path); err == nil {
			jobs = s.Jobs
		}
	case "ebb-csv":
		jobs, err = readEbbCSV(path, o.Model)
	case "alibaba-dag":
		jobs, err = readAlibabaDAG(path, o.Model, o.Seed)
	default:
		return nil, fmt.Errorf("%w: %s: unknown format %q: want one of %s", ErrFormat, path, format, strings.Join(Formats, ", "))
	}
	if err != nil {
		return nil, err
	}
	return Replay(jobs, o), nil
}

// Replay sorts jobs by submit time and applies o's window and scale. It is
// exported so jobs built in code get the same treatment as read ones.
func Replay(jobs []Job, o Options) []Job {
	if o.Scale == 0 {
		o.Scale = 1
	}
	sort.SliceStable(jobs, func(i, j int) bool { return jobs[i].Submit < jobs[j].Submit })
	out := make([]Job, 0, len(jobs))
	for _, j := range jobs {
		if j.Submit < o.WindowStart || (o.WindowLength > 0 && j.Submit >= o.WindowStart+o.WindowLength) {
			continue
		}
		j.Submit = time.Duration(float64(j.Submit-o.WindowStart) * o.Scale).Round(time.Millisecond)
		out = append(out, j)
	}
	return out
}
