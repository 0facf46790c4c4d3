package conf

import (
	"testing"

	"github.com/ebb-am/ebb/internal/rolllog"
)

// The default rolled-logs pattern is the one rolllog names its pieces for:
// a rename there must not leave YARN uploading nothing (or, worse, the
// files being written, which the NodeManager deletes after uploading).
func TestRolledPatternDefaultMatchesRolllog(t *testing.T) {
	k, _ := Lookup("ebb.log.aggregation.rolled.include.pattern")
	if want := rolllog.RolledPattern(rolllog.AMFile, rolllog.WorkerFile); k.Default != want {
		t.Errorf("default %s, want %s", k.Default, want)
	}
}
