package hdfsfs

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/colinmarc/hdfs/v2"
)

// fakeClock moves only when Do sleeps or a fake connect times out.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) Sleep(_ context.Context, d time.Duration) error {
	c.now = c.now.Add(d)
	return nil
}

// timeoutErr is a dial that ran into its deadline, as net's is.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "dial tcp 10.0.0.1:8020: i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// A gateway command waits for a NameNode that does not answer as Hadoop's
// own client does (ClientRetryFrom): one try by default
// (dfs.client.retry.policy.enabled=false, TRY_ONCE_THEN_FAIL), the spec's
// sleeps when enabled, and a connect that times out tried again at once up
// to ipc.client.connect.max.retries.on.timeouts times. The AM's policy
// (RetryFrom) waits out the spec whatever the switch says. Each gives up
// in one line naming the NameNode, the bound and the key. The dialer is a
// fake that refuses (or times out, moving the fake clock by the connect
// timeout); the clock is fake, so an 11-minute bound takes no time.
func TestGatewayRetryIsHadoopsClient(t *testing.T) {
	const nn = "nn.example:8020"
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	for _, tc := range []struct {
		name      string
		keys      map[string]string
		am        bool // the AM's policy (RetryFrom), not a gateway's
		timeouts  bool // the NameNode's host drops packets: every connect times out
		dials     int
		waited    time.Duration
		wantInErr string
	}{
		// Hadoop's default: the first refusal fails the call.
		{name: "default", dials: 1, waited: 0, wantInErr: `past the bound dfs.client.retry.policy.enabled=false (one try, Hadoop's default)`},
		{name: "disabled", keys: map[string]string{RetryEnabledKey: "FALSE"}, dials: 1, wantInErr: RetryEnabledKey + "=false"},
		// Enabled: 1 + 6 + 10 tries, 6 × 10 s + 10 × 60 s = 11 min.
		{name: "enabled", keys: map[string]string{RetryEnabledKey: "true"}, dials: 17, waited: 11 * time.Minute,
			wantInErr: `past the bound dfs.client.retry.policy.spec="10000,6,60000,10" (11m0s)`},
		{name: "enabled, short spec", keys: map[string]string{RetryEnabledKey: "true", RetrySpecKey: "1000,2"}, dials: 3, waited: 2 * time.Second,
			wantInErr: `dfs.client.retry.policy.spec="1000,2" (2s)`},
		// Connects that time out: 1 + 45 of 20 s each = 15 min 20 s.
		{name: "timeouts", timeouts: true, dials: 46, waited: 46 * NamenodeConnectTimeout,
			wantInErr: "and ipc.client.connect.max.retries.on.timeouts=45"},
		{name: "timeouts, 2", keys: map[string]string{ConnectTimeoutRetriesKey: "2"}, timeouts: true, dials: 3, waited: 3 * NamenodeConnectTimeout,
			wantInErr: "ipc.client.connect.max.retries.on.timeouts=2"},
		// The AM waits out the spec though the switch is off: it must
		// outlast a NameNode restart.
		{name: "the AM", am: true, keys: map[string]string{RetryEnabledKey: "false"}, dials: 17, waited: 11 * time.Minute,
			wantInErr: `dfs.client.retry.policy.spec="10000,6,60000,10" (11m0s)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := func(k string) (string, bool) { v, ok := tc.keys[k]; return v, ok }
			from := ClientRetryFrom
			if tc.am {
				from = RetryFrom
			}
			r, err := from(raw)
			if err != nil {
				t.Fatal(err)
			}
			clk := &fakeClock{now: time.Unix(1e9, 0)}
			r.clock = clk
			start, dials := clk.now, 0
			fake := func(context.Context, string, string) (net.Conn, error) {
				dials++
				if tc.timeouts {
					clk.now = clk.now.Add(NamenodeConnectTimeout)
					return nil, timeoutErr{}
				}
				return nil, refused
			}
			fs, err := r.Dial(context.Background(), "hdfs://"+nn, func(context.Context) (*FS, error) {
				return open(nn, hdfs.ClientOptions{Addresses: []string{nn}, User: "u", NamenodeDialFunc: fake})
			}, nil)
			var ue *UnavailableError
			if fs != nil || !errors.As(err, &ue) {
				t.Fatalf("Dial = %v, %v; want an UnavailableError", fs, err)
			}
			msg := err.Error()
			t.Logf("%d dials, %s: %s", dials, clk.now.Sub(start), msg)
			if dials != tc.dials || clk.now.Sub(start) != tc.waited {
				t.Errorf("%d dials over %s, want %d over %s", dials, clk.now.Sub(start), tc.dials, tc.waited)
			}
			if strings.Contains(msg, "\n") || !strings.Contains(msg, "HDFS unavailable") || !strings.Contains(msg, "NameNode "+nn) ||
				!strings.Contains(msg, tc.wantInErr) {
				t.Errorf("error %q: want one line naming HDFS unavailable, the NameNode %s and %q", msg, nn, tc.wantInErr)
			}
		})
	}
}

// An FS's own calls name its NameNode when they give up, a connect tried
// again at once is told under its own key, and bad values of the
// gateway's keys are refused naming the key.
func TestGatewayRetryNamesTheNameNodeAndRefusesBadKeys(t *testing.T) {
	r, err := ClientRetryFrom(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	f := &FS{namenode: "nn.example:8020"}
	f.SetRetry(r, nil)
	calls := 0
	err = f.Do("stat /x", func() error { calls++; return errors.New("no available namenodes: connection refused") })
	if calls != 1 || err == nil || !strings.Contains(err.Error(), "HDFS unavailable: stat /x (NameNode nn.example:8020)") {
		t.Fatalf("Do = %v after %d calls, want one try naming the NameNode", err, calls)
	}
	if n := RetryNote("stat /x", errors.New("i/o timeout"), 0); !strings.Contains(n, "trying again in 0s ("+ConnectTimeoutRetriesKey+")") {
		t.Errorf("the note of a connect tried again at once: %q, want it to name %s", n, ConnectTimeoutRetriesKey)
	}
	for k, v := range map[string]string{RetryEnabledKey: "yes", ConnectTimeoutRetriesKey: "-1", RetrySpecKey: "1000"} {
		_, err := ClientRetryFrom(func(key string) (string, bool) { return v, key == k })
		if err == nil || !strings.Contains(err.Error(), k) || !strings.Contains(err.Error(), v) {
			t.Errorf("%s = %q: %v, want an error naming the key and the value", k, v, err)
		}
	}
}
