package worker

import (
	"strings"
	"testing"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// A producer that exits 0 without its partition files fails at once with
// a diagnostic naming what is missing and the contract; one that writes
// them (even empty) succeeds.
func TestSucceededAttemptMustWriteEveryPartition(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	lazy := shellAttempt("lazy", "d", "printf 'a\n' > output/red/0")
	lazy.Outputs = []*ebbpb.OutputSpec{{Consumer: "red", Partitions: 3}}
	w.conn.run(lazy)
	u := w.conn.waitUpdate(t, "lazy", ebbpb.AttemptState_ATTEMPT_FAILED)
	for _, want := range []string{"wrote 1 of its 3 partition files", "$EBB_OUTPUT_DIR/red/1, $EBB_OUTPUT_DIR/red/2", "task contract"} {
		if !strings.Contains(u.GetDiagnostics(), want) {
			t.Errorf("diagnostics %q lack %q", u.GetDiagnostics(), want)
		}
	}
	good := shellAttempt("good", "d", ": > output/red/0; : > output/red/1; : > output/red/2")
	good.Outputs = []*ebbpb.OutputSpec{{Consumer: "red", Partitions: 3}}
	w.conn.run(good)
	w.conn.waitUpdate(t, "good", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
}
