package yarn

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/proto/hadooppb"
	"github.com/ebb-am/ebb/yarnrpc"
)

// scriptedRM answers reports with err (nil: a report) and counts calls.
type scriptedRM struct {
	appClient
	err   error
	calls int
}

func (s *scriptedRM) GetApplicationReport(context.Context, *hadooppb.ApplicationIdProto) (*hadooppb.ApplicationReportProto, error) {
	s.calls++
	if s.err != nil {
		return nil, s.err
	}
	return &hadooppb.ApplicationReportProto{Name: new("found")}, nil
}

func (s *scriptedRM) Close() error { return nil }

func haClient(rms map[string]*scriptedRM, addrs ...string) *Client {
	f := newFailover(addrs, func(a string) appClient { return rms[a] })
	instant(f.ring)
	return &Client{rms: f}
}

// instant makes r's waits take no time; it returns the waits asked for.
func instant(r *rmRing) *[]time.Duration {
	var waits []time.Duration
	r.after = func(d time.Duration) <-chan time.Time {
		waits = append(waits, d)
		c := make(chan time.Time, 1)
		c <- time.Time{}
		return c
	}
	r.jitter = func() float64 { return 0.5 } // the factor 1
	return &waits
}

var standby = &yarnrpc.RemoteError{Class: "org.apache.hadoop.ipc.StandbyException", Message: "Operation category READ is not supported in state standby"}

// TestFailoverFindsTheActiveRM: rm1 cannot be reached, rm2 is standby,
// rm3 answers: the call succeeds there, and the next call goes straight
// to rm3.
func TestFailoverFindsTheActiveRM(t *testing.T) {
	rms := map[string]*scriptedRM{
		"rm1:8032": {err: errors.New("dial tcp rm1:8032: connect: connection refused")},
		"rm2:8032": {err: standby},
		"rm3:8032": {},
	}
	c := haClient(rms, "rm1:8032", "rm2:8032", "rm3:8032")
	for i := 0; i < 2; i++ {
		r, err := c.Report(context.Background(), AppID{ClusterTS: 1, ID: 1})
		if err != nil || r.Name != "found" {
			t.Fatalf("report %d: %+v, %v", i, r, err)
		}
	}
	if rms["rm1:8032"].calls != 1 || rms["rm2:8032"].calls != 1 || rms["rm3:8032"].calls != 2 {
		t.Errorf("calls rm1 %d rm2 %d rm3 %d; want 1, 1, 2 (the active RM is remembered)",
			rms["rm1:8032"].calls, rms["rm2:8032"].calls, rms["rm3:8032"].calls)
	}
}

// TestFailoverStopsAtARealAnswer: an error the active RM gives (the
// application does not exist) is the answer, not a reason to ask another.
func TestFailoverStopsAtARealAnswer(t *testing.T) {
	notFound := &yarnrpc.RemoteError{Class: "org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException"}
	rms := map[string]*scriptedRM{"rm1:8032": {err: notFound}, "rm2:8032": {}}
	_, err := haClient(rms, "rm1:8032", "rm2:8032").Report(context.Background(), AppID{ClusterTS: 1, ID: 1})
	if !errors.Is(err, notFound) || rms["rm2:8032"].calls != 0 {
		t.Fatalf("err %v, rm2 asked %d times; want rm1's answer and rm2 left alone", err, rms["rm2:8032"].calls)
	}
}

// TestFailoverGivesUpAtTheBound: yarn.client.failover-max-attempts=3 is
// four calls, alternating; the error names every RM and the bound.
func TestFailoverGivesUpAtTheBound(t *testing.T) {
	rms := map[string]*scriptedRM{"rm1:8032": {err: standby}, "rm2:8032": {err: standby}}
	c := haClient(rms, "rm1:8032", "rm2:8032")
	c.SetRetry(Retry{MaxWait: time.Minute, Interval: time.Second, FailoverAttempts: 3, FailoverBase: time.Second, FailoverMax: time.Minute})
	_, err := c.Report(context.Background(), AppID{ClusterTS: 1, ID: 1})
	var ue *RMUnreachableError
	if !errors.As(err, &ue) || rms["rm1:8032"].calls != 2 || rms["rm2:8032"].calls != 2 {
		t.Fatalf("err %v after rm1 %d, rm2 %d calls; want 4 calls and an RMUnreachableError", err, rms["rm1:8032"].calls, rms["rm2:8032"].calls)
	}
	for _, want := range []string{"no active ResourceManager among [rm1:8032 rm2:8032]", "yarn.client.failover-max-attempts=3", "StandbyException"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
