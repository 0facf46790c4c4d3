package yarnclient

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
)

// Kill asks until the application has ended, and not once more.
func TestKillUntilEnded(t *testing.T) {
	rm := newFakeRM()
	rm.reports = []yarn.AppReport{{State: yarn.StateRunning}, {State: yarn.StateRunning}, {State: yarn.StateKilled, Final: yarn.Killed}}
	rep, err := testClient(t, testConf(t), rm, newMemStore()).Kill(context.Background(), rm.id)
	if err != nil || rep.State != yarn.StateKilled {
		t.Fatalf("Kill = %s, %v", rep.State, err)
	}
	if rm.kills != 2 {
		t.Errorf("asked the RM to kill %d times, want 2", rm.kills)
	}
}

// An application that does not end within the caller's time says what
// state it is stuck in and wraps the deadline.
func TestKillGivesUpWithContext(t *testing.T) {
	rm := newFakeRM()
	rm.reports = []yarn.AppReport{{State: yarn.StateRunning}}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := testClient(t, testConf(t), rm, newMemStore()).Kill(ctx, rm.id)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want it to wrap the deadline", err)
	}
}

func TestKillOfUnknownApplication(t *testing.T) {
	rm := newFakeRM() // no reports: the RM knows no application
	if _, err := testClient(t, testConf(t), rm, newMemStore()).Kill(context.Background(), rm.id); err == nil {
		t.Error("killing an unknown application succeeded")
	}
	if rm.kills != 0 {
		t.Errorf("asked the RM to kill %d times", rm.kills)
	}
}
