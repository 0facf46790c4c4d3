package testcluster

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeControl writes a conf dir whose cluster.env names srv as CONTROL.
func fakeControl(t *testing.T, srv *httptest.Server) *Control {
	t.Helper()
	run := t.TempDir()
	conf := filepath.Join(run, "conf")
	if err := os.MkdirAll(conf, 0o755); err != nil {
		t.Fatal(err)
	}
	env := "CONTROL=" + strings.TrimPrefix(srv.URL, "http://") + "\nRM_IDS=rm0,rm1\nRM1_ADMIN_ADDRESS=127.0.0.1:1\n"
	if err := os.WriteFile(filepath.Join(run, "cluster.env"), []byte(env), 0o644); err != nil {
		t.Fatal(err)
	}
	return ControlOf(t, conf)
}

// A refused verb comes back as a ControlError naming the verb, the
// control address, the bound, and the launcher's reason; the launcher is
// told to give up before the caller does.
func TestControlErrorNamesVerbAddressAndBound(t *testing.T) {
	var gotTimeout string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotTimeout = r.URL.Query().Get("timeout_ms")
		http.Error(w, "rm1 is stopped", http.StatusInternalServerError)
	}))
	defer srv.Close()
	c := fakeControl(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.ActivateRM(ctx, "rm1")
	var ce *ControlError
	if !errors.As(err, &ce) {
		t.Fatalf("ActivateRM: %v, want a *ControlError", err)
	}
	if ce.Bound <= 0 || ce.Bound > 10*time.Second || !strings.Contains(err.Error(), "(bound "+ce.Bound.String()+")") {
		t.Errorf("bound %s in %q, want what was left of the caller's 10 s, named", ce.Bound, err)
	}
	for _, want := range []string{"/rm/active", strings.TrimPrefix(srv.URL, "http://"), "rm1 is stopped"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if n, err := strconv.Atoi(gotTimeout); err != nil || n <= 0 || n >= 10000 {
		t.Errorf("timeout_ms=%q, want under the caller's 10 s", gotTimeout)
	}
}

// A start that the launcher reports done still waits for the daemon's
// address to take connections, and gives up at the bound.
func TestControlStartWaitsForTheAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("rm1 started, STANDBY\n"))
	}))
	defer srv.Close()
	c := fakeControl(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	err := c.StartRM(ctx, "rm1")
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1 takes no connections") {
		t.Fatalf("StartRM with nothing at RM1_ADDRESS: %v", err)
	}
}

func TestControlRMStates(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/rm/state" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("rm0 STOPPED\nrm1 ACTIVE\n"))
	}))
	defer srv.Close()
	c := fakeControl(t, srv)
	id, err := c.ActiveRM(context.Background())
	if err != nil || id != "rm1" {
		t.Fatalf("ActiveRM = %q, %v; want rm1", id, err)
	}
}

// TestLiveControlVerbs drives every verb on the fault-injection cluster
// and leaves it as it found it (rm0 active).
func TestLiveControlVerbs(t *testing.T) {
	dir := FaultsConfDir(t)
	ExclusiveAt(t, dir)
	c := ControlOf(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	step := func(name string, f func() error) {
		t.Helper()
		start := time.Now()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %s", name, time.Since(start).Round(time.Millisecond))
	}
	active, err := c.ActiveRM(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other := "rm1"
	if active == "rm1" {
		other = "rm0"
	}
	step("stop "+active, func() error { return c.StopRM(ctx, active) })
	step("activate "+other, func() error { return c.ActivateRM(ctx, other) })
	step("start "+active, func() error { return c.StartRM(ctx, active) })
	st, err := c.RMStates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st[active] != "STANDBY" || st[other] != "ACTIVE" {
		t.Fatalf("after failover RM states %v, want %s STANDBY, %s ACTIVE", st, active, other)
	}
	step("standby "+other, func() error { return c.StandbyRM(ctx, other) })
	step("activate rm0", func() error { return c.ActivateRM(ctx, "rm0") })
	step("stop NodeManager 2", func() error { return c.StopNodeManager(ctx, 2) })
	step("start NodeManager 2", func() error { return c.StartNodeManager(ctx, 2) })
	step("stop NodeManager 2, killing", func() error { return c.StopNodeManagerKilling(ctx, 2) })
	step("start NodeManager 2 again", func() error { return c.StartNodeManager(ctx, 2) })
	step("stop NameNode", func() error { return c.StopNameNode(ctx) })
	step("start NameNode", func() error { return c.StartNameNode(ctx) })
	if err := c.StopNodeManager(ctx, 7); err == nil || !strings.Contains(err.Error(), "nm=7: want 0..2") {
		t.Errorf("stop NodeManager 7: %v, want the allowed range named", err)
	}
}
