package am

import (
	"context"
	"github.com/ebb-am/ebb/am/amconf"
	"io"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
)

// testAM is an AM with no world of consequence (nopWorld), running until
// the test stops it or ends.
type testAM struct {
	*AM
	ctx  context.Context // lives as long as the test's 30 s guard
	stop func() error    // ends the AM and returns what Run returned
}

// runTestAM starts an AM from o (secret "s", a listener on a free port and
// a silent log unless o says otherwise).
func runTestAM(t *testing.T, o Options) *testAM {
	t.Helper()
	if o.Secret == "" {
		o.Secret = "s"
	}
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	if o.Core.Tasks == nil {
		o.Core = amconf.Defaults()
	}
	if o.Log == nil {
		o.Log = logrus.New()
		o.Log.SetOutput(io.Discard)
	}
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	a.SetWorld(nopWorld{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	amCtx, stopAM := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(amCtx) }()
	var runErr error
	stopped := false
	stop := func() error {
		if !stopped {
			stopped = true
			stopAM()
			runErr = <-done
		}
		return runErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("the AM ended with %v", err)
		}
		cancel()
	})
	return &testAM{AM: a, ctx: ctx, stop: stop}
}
