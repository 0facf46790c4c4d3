package main

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
)

// Issue 23, item 7, on YARN: a session with mr3.am.max.app.attempts=2
// loses its AM twice, the kills further apart than
// ebb.am.attempt.failures.validity.interval.ms. Only the second failure
// is inside the window when it happens, so YARN starts a third attempt
// and the session still runs a DAG. Without the interval the second kill
// ends the application FAILED.
func TestYarnAMFailuresSpreadOverTheValidityInterval(t *testing.T) {
	y := newYarnTest(t)
	const validity = 15 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	out, err := y.ebb(ctx, append(append([]string{"submit", "--detach", "--name", "validity-session"}, amSets...),
		"--set", "mr3.am.max.app.attempts=2",
		"--set", "ebb.am.attempt.failures.validity.interval.ms="+strconv.FormatInt(validity.Milliseconds(), 10),
		"--set", "ebb.session.idle.timeout.secs=600")...)
	t.Logf("ebb submit --detach:\n%s", out)
	if err != nil {
		t.Fatalf("ebb submit: %v", err)
	}
	id := y.appID(out)
	defer func() { _, _ = y.ebb(context.Background(), "kill", id.String()) }()
	running := func(attempt int32) func() bool {
		return func() bool {
			r := y.report(id)
			return r.State == yarn.StateRunning && r.Attempt == attempt && y.amPIDOK(id)
		}
	}
	y.waitFor("attempt 1 running", time.Minute, running(1))
	y.kill9AM(id)
	first := time.Now()
	y.waitFor("attempt 2 running", time.Minute, running(2))
	// The first failure must have left the window before the second.
	y.waitFor("the validity interval to pass since the first kill", 2*validity, func() bool {
		return time.Since(first) > validity+2*time.Second
	})
	y.kill9AM(id)
	y.waitFor("attempt 3 running, or the application ended", 2*time.Minute, func() bool {
		r := y.report(id)
		return r.State.Done() || (r.State == yarn.StateRunning && r.Attempt == 3 && y.amPIDOK(id))
	})
	if r := y.report(id); r.State.Done() {
		t.Fatalf("the application ended %s after the second AM kill (%s): the first failure still counted", r.State, r.Diagnostics)
	}
	spec := y.writeDAG(`
name: after-two-kills
containerGroup: {name: s, workerMemoryMB: 256}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "1", --seconds, "0.2"], parallelism: 2, memoryMB: 128}
`)
	out, err = y.ebb(ctx, "dag", "submit", "--app", id.String(), "--wait", "--output", filepath.Join(t.TempDir(), "out"), spec)
	t.Logf("ebb dag submit on attempt 3:\n%s", out)
	if err != nil || !strings.Contains(out, "SUCCEEDED") {
		t.Fatalf("a DAG on the session after two AM losses: %v", err)
	}
}
