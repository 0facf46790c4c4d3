package kubeworld

import (
	"fmt"
	"os"
	"testing"

	"github.com/ebb-am/ebb/internal/lockorder"
)

// TestMain fails the package when a lockorder build (scripts/test.sh runs
// one) saw the world's lock and the loop's taken in an order that closes
// a cycle, whether or not any test deadlocked.
func TestMain(m *testing.M) {
	code := m.Run()
	if err := lockorder.Verify(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: lock order:\n%v\n", err)
		code = 1
	}
	os.Exit(code)
}
