package lockorder

import (
	"fmt"
	"os"
)

// Checked runs a package's tests (run is testing.M's Run) and then fails
// them when this build saw a lock-order inversion, whether or not any
// test deadlocked: a TestMain is os.Exit(lockorder.Checked(m.Run)). In a
// build without the lockorder tag there is nothing to see, and the tests'
// own code is returned.
func Checked(run func() int) int {
	code := run()
	if err := Verify(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: lock order:\n%v\n", err)
		return 1
	}
	return code
}
