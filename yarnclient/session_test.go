package yarnclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
)

func TestFindSession(t *testing.T) {
	session := func(start int64, port int32, tags ...string) yarn.AppReport {
		return yarn.AppReport{ID: yarn.AppID{ClusterTS: 1, ID: int32(start)}, StartMs: start, RPCPort: port, Tags: tags}
	}
	for _, tc := range []struct {
		name string
		apps []yarn.AppReport
		want int64 // StartMs of the session found; 0: ErrNoSession
	}{
		{"none", nil, 0},
		{"a single-DAG application is no session", []yarn.AppReport{session(5, 9000)}, 0},
		{"a session whose AM has not registered has no address", []yarn.AppReport{session(5, 0, SessionTag)}, 0},
		{"the newest of two", []yarn.AppReport{session(5, 9000, SessionTag), session(9, 9001, "x", SessionTag), session(7, 9002, SessionTag)}, 9},
		{"the newest with an address", []yarn.AppReport{session(5, 9000, SessionTag), session(9, 0, SessionTag)}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rm := newFakeRM()
			rm.apps = tc.apps
			rep, err := testClient(t, testConf(t), rm, newMemStore()).FindSession(context.Background())
			if tc.want == 0 {
				if !errors.Is(err, ErrNoSession) {
					t.Errorf("err = %v, want ErrNoSession", err)
				}
				return
			}
			if err != nil || rep.StartMs != tc.want {
				t.Errorf("found %d (%v), want %d", rep.StartMs, err, tc.want)
			}
		})
	}
}

func TestFindSessionListingFails(t *testing.T) {
	rm := newFakeRM()
	rm.appsErr = errors.New("connection refused")
	_, err := testClient(t, testConf(t), rm, newMemStore()).FindSession(context.Background())
	if !errors.Is(err, rm.appsErr) || errors.Is(err, ErrNoSession) {
		t.Errorf("err = %v, want the listing's error and not ErrNoSession", err)
	}
}

// Without a session and without leave to start one, FindAM says so and
// names the user; nothing is submitted.
func TestFindAMNoSession(t *testing.T) {
	rm := newFakeRM()
	_, err := testClient(t, testConf(t), rm, newMemStore()).FindAM(context.Background(), "", false, func(string) { t.Error("progress") })
	if !errors.Is(err, ErrNoSession) || !strings.Contains(err.Error(), "alice") {
		t.Errorf("err = %v", err)
	}
	if len(rm.submitted) != 0 {
		t.Errorf("submitted %d applications", len(rm.submitted))
	}
}

// By id: wait for the AM to register, then read the secret it wrote to
// the staging directory of the application's user.
func TestFindAMByID(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	rm.reports = []yarn.AppReport{
		{State: yarn.StateAccepted},
		{State: yarn.StateRunning, User: "bob"}, // registering: no port yet
		{State: yarn.StateRunning, User: "bob", Host: "node1", RPCPort: 4242, Attempt: 2},
	}
	id := yarn.AppID{ClusterTS: 1700000000000, ID: 3}
	if _, err := fs.WriteFile(StagingDir("bob", id)+"/"+StagedSecret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := testClient(t, testConf(t), rm, fs).FindAM(context.Background(), id.String(), false, nil)
	// The application and its attempt come back too: a client follows the
	// AM to the next attempt by them.
	if err != nil || got != (AM{Addr: "node1:4242", Secret: "s3cret", App: id.String(), Attempt: 2}) {
		t.Errorf("FindAM = %+v, %v", got, err)
	}
}

// No session and leave to start one: a session is submitted, progress
// hears of it, and its AM is found once it runs.
func TestFindAMStartsSession(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	rm.reports = []yarn.AppReport{{State: yarn.StateAccepted}, {State: yarn.StateRunning, Host: "node2", RPCPort: 4243}}
	if _, err := fs.WriteFile(StagingDir("alice", rm.id)+"/"+StagedSecret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	var heard []string
	got, err := testClient(t, testConf(t), rm, fs).FindAM(context.Background(), "session", true, func(s string) { heard = append(heard, s) })
	if err != nil || got.Addr != "node2:4243" {
		t.Fatalf("FindAM = %+v, %v", got, err)
	}
	if len(rm.submitted) != 1 || len(rm.submitted[0].Tags) != 1 || rm.submitted[0].Tags[0] != SessionTag {
		t.Errorf("submitted %+v", rm.submitted)
	}
	// First what became of the binary (binary_test.go), then the session.
	if len(heard) != 3 || !strings.HasPrefix(heard[0], "uploaded ebb binary") || heard[2] != "started ebb session "+rm.id.String() {
		t.Errorf("progress heard %q", heard)
	}
}

func TestWaitRunningEnded(t *testing.T) {
	rm := newFakeRM()
	rm.reports = []yarn.AppReport{{State: yarn.StateFailed, Final: yarn.Failed, Diagnostics: "AM container exited 1"}}
	_, err := testClient(t, testConf(t), rm, newMemStore()).WaitRunning(context.Background(), rm.id, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "is FAILED") || !strings.Contains(err.Error(), "exited 1") {
		t.Errorf("err = %v", err)
	}
}

func TestWaitRunningTimesOut(t *testing.T) {
	rm := newFakeRM()
	rm.reports = []yarn.AppReport{{State: yarn.StateAccepted}}
	_, err := testClient(t, testConf(t), rm, newMemStore()).WaitRunning(context.Background(), rm.id, 0)
	if err == nil || !strings.Contains(err.Error(), "still ACCEPTED") {
		t.Errorf("err = %v", err)
	}
}
