package task

import (
	"fmt"
	"strconv"
	"strings"
)

// The environment variables of the task contract. The worker sets them for
// every attempt; FromEnv reads them. They are the only coupling between a
// task program and the worker, so both sides use these constants.
const (
	EnvDAGID        = "EBB_DAG_ID"
	EnvDAGName      = "EBB_DAG_NAME"
	EnvVertex       = "EBB_VERTEX"
	EnvTaskIndex    = "EBB_TASK_INDEX"
	EnvAttempt      = "EBB_ATTEMPT"
	EnvAttemptID    = "EBB_ATTEMPT_ID"
	EnvParallelism  = "EBB_PARALLELISM"
	EnvMemoryMB     = "EBB_MEMORY_MB"
	EnvWorkDir      = "EBB_WORK_DIR"
	EnvInputDir     = "EBB_INPUT_DIR"
	EnvOutputDir    = "EBB_OUTPUT_DIR"
	EnvOutputs      = "EBB_OUTPUTS"
	EnvProgressFile = "EBB_PROGRESS_FILE"
)

// EnvSpillBytes is not set by the worker: a vertex's env may set it to
// bound the records wc-map, wc-reduce and sort buffer before spilling a
// sorted run, in place of the share of EBB_MEMORY_MB they take by default.
const EnvSpillBytes = "EBB_TASK_SPILL_BYTES"

// SinkFile is the file a built-in task writes in the output directory when
// its vertex has no outgoing edge.
const SinkFile = "part"

// Output is one outgoing edge of the attempt's vertex: the consumer vertex
// and how many partitions the attempt writes for it.
type Output struct {
	Consumer   string
	Partitions int
}

// FormatOutputs renders edges the way EBB_OUTPUTS carries them:
// "consumer:partitions" joined by commas; empty for a sink vertex.
func FormatOutputs(outs []Output) string {
	parts := make([]string, len(outs))
	for i, o := range outs {
		parts[i] = fmt.Sprintf("%s:%d", o.Consumer, o.Partitions)
	}
	return strings.Join(parts, ",")
}

// ParseOutputs is the inverse of FormatOutputs.
func ParseOutputs(s string) ([]Output, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var outs []Output
	for _, item := range strings.Split(s, ",") {
		name, count, ok := strings.Cut(strings.TrimSpace(item), ":")
		if !ok || name == "" {
			return nil, fmt.Errorf("%s: %q is not consumer:partitions", EnvOutputs, item)
		}
		n, err := strconv.Atoi(count)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%s: %q: partitions must be a positive integer", EnvOutputs, item)
		}
		outs = append(outs, Output{Consumer: name, Partitions: n})
	}
	return outs, nil
}
