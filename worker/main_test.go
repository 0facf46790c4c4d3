package worker

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ebb-am/ebb/internal/lockorder"
	"github.com/ebb-am/ebb/task"
)

// hogEnv makes the test binary act as a task that holds memory, so the
// memory limit can be tested with a real process.
const hogEnv = "EBB_WORKER_TEST_HOG_MB"

func TestMain(m *testing.M) {
	// The test binary stands in for the ebb binary: "ebb task NAME" runs a
	// built-in task, as cmd/ebb does.
	if len(os.Args) > 1 && os.Args[1] == "task" {
		if err := task.Main(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if mb, err := strconv.Atoi(os.Getenv(hogEnv)); err == nil {
		buf := make([]byte, mb<<20)
		for i := range len(buf) / 4096 {
			buf[i*4096] = 1
		}
		time.Sleep(60 * time.Second) // killed long before; a workload, not a wait
		os.Exit(int(buf[0]))
	}
	// With -tags lockorder (scripts/test.sh), an inversion of the worker's
	// locks seen by any test fails the run, even if no test deadlocked.
	os.Exit(lockorder.Checked(m.Run))
}
