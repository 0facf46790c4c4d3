package worker

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// missingPartitions lists the partition files an attempt that exited 0
// should have written and did not: one regular file
// $EBB_OUTPUT_DIR/<consumer>/<partition> per partition of every outgoing
// edge (task/doc.go). A producer that skips them would make every consumer's
// fetch fail and be re-run for nothing, so the worker fails it at once.
func missingPartitions(outputDir string, outs []*ebbpb.OutputSpec) []string {
	var missing []string
	for _, o := range outs {
		for p := 0; p < int(o.GetPartitions()); p++ {
			rel := filepath.Join(o.GetConsumer(), strconv.Itoa(p))
			st, err := os.Stat(filepath.Join(outputDir, rel))
			if err != nil || !st.Mode().IsRegular() {
				missing = append(missing, rel)
			}
		}
	}
	return missing
}

// missingDiagnostic says which files are missing (the first few) and what
// the contract asks for.
func missingDiagnostic(missing []string, total int) string {
	shown := missing
	if len(shown) > 5 {
		shown = shown[:5]
	}
	more := ""
	if len(missing) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(missing)-len(shown))
	}
	return fmt.Sprintf("the task exited 0 but wrote %d of its %d partition files (missing $EBB_OUTPUT_DIR/%s%s): "+
		"the task contract asks for one file $EBB_OUTPUT_DIR/<consumer>/<partition> per partition of every outgoing edge, empty if it has no records (task/doc.go)",
		total-len(missing), total, strings.Join(shown, ", $EBB_OUTPUT_DIR/"), more)
}

// partitionCount is the number of partition files an attempt owes.
func partitionCount(outs []*ebbpb.OutputSpec) int {
	n := 0
	for _, o := range outs {
		n += int(o.GetPartitions())
	}
	return n
}
