package kubeworld

import (
	"os"
	"testing"

	"github.com/ebb-am/ebb/internal/lockorder"
)

// TestMain fails the package when a lockorder build (scripts/test.sh runs
// one) saw the world's lock and the loop's taken in an order that closes a cycle.
func TestMain(m *testing.M) { os.Exit(lockorder.Checked(m.Run)) }
