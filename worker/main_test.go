package worker

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// hogEnv makes the test binary act as a task that holds memory, so the
// memory limit can be tested with a real process.
const hogEnv = "EBB_WORKER_TEST_HOG_MB"

func TestMain(m *testing.M) {
	if mb, err := strconv.Atoi(os.Getenv(hogEnv)); err == nil {
		buf := make([]byte, mb<<20)
		for i := range len(buf) / 4096 {
			buf[i*4096] = 1
		}
		time.Sleep(60 * time.Second) // killed long before; a workload, not a wait
		os.Exit(int(buf[0]))
	}
	os.Exit(m.Run())
}
