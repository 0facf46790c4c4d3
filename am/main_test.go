package am

import (
	"os"
	"testing"

	"github.com/ebb-am/ebb/internal/lockorder"
)

// TestMain fails the package when a lockorder build (scripts/test.sh runs
// one) saw the AM's locks taken in an order that closes a cycle.
func TestMain(m *testing.M) { os.Exit(lockorder.Checked(m.Run)) }
