package yarn

import (
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/yarnrpc"
)

// fakeRM records every call and answers allocates from a script; an
// entry with err set fails that allocate.
type fakeRM struct {
	registers int
	requests  []AllocateRequest
	script    []fakeAnswer
	finishes  []FinalStatus
	finalURLs []string // the tracking URL of each Finish
	notYet    int      // Finish says "not yet" this many times (0: once)
	previous  []Container
}

type fakeAnswer struct {
	resp AllocateResponse
	err  error
}

func (f *fakeRM) Register(context.Context, string, int32, string) (Registration, error) {
	f.registers++
	return Registration{Max: Resource{MemoryMB: 2048, VCores: 4}, Previous: f.previous}, nil
}

func (f *fakeRM) Allocate(_ context.Context, req AllocateRequest) (AllocateResponse, error) {
	f.requests = append(f.requests, req)
	if len(f.script) == 0 {
		return AllocateResponse{ResponseID: req.ResponseID + 1}, nil
	}
	a := f.script[0]
	f.script = f.script[1:]
	return a.resp, a.err
}

func (f *fakeRM) Finish(_ context.Context, s FinalStatus, _, url string) (bool, error) {
	f.finishes = append(f.finishes, s)
	f.finalURLs = append(f.finalURLs, url)
	return len(f.finishes) > max(f.notYet, 1), nil // the RM says "not yet" first
}

func (f *fakeRM) last() AllocateRequest { return f.requests[len(f.requests)-1] }

// fakeNM records launches and stops; startErr fails every start.
type fakeNM struct {
	mu       sync.Mutex
	tokens   map[string]yarnrpc.Token
	started  map[ContainerID]Launch
	stopped  map[string][]ContainerID
	startErr error
}

func newFakeNM() *fakeNM {
	return &fakeNM{tokens: map[string]yarnrpc.Token{}, started: map[ContainerID]Launch{}, stopped: map[string][]ContainerID{}}
}

func (n *fakeNM) SetToken(node string, t yarnrpc.Token) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.tokens[node] = t
}

func (n *fakeNM) Start(_ context.Context, c Container, l Launch) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.tokens[c.Node]; !ok {
		return ErrNoNMToken
	}
	if n.startErr != nil {
		return n.startErr
	}
	n.started[c.ID] = l
	return nil
}

func (n *fakeNM) Stop(_ context.Context, node string, ids []ContainerID) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stopped[node] = append(n.stopped[node], ids...)
	return nil
}

func (n *fakeNM) Close() error { return nil }

type harness struct {
	w        *World
	rm       *fakeRM
	nm       *fakeNM
	posts    atomic.Int32
	shutdown []string
}

func newHarness(t *testing.T) *harness {
	h := &harness{rm: &fakeRM{}, nm: newFakeNM()}
	log := logrus.New()
	log.SetOutput(io.Discard)
	h.w = New(Options{
		RM: h.rm, NM: h.nm, Host: "amhost", Port: 4000, TrackingURL: "http://amhost:4001/",
		Worker: WorkerLaunch{Binary: LocalResource{URL: "hdfs://nn:8020/staging/ebb", Size: 10, Timestamp: 99},
			AMAddress: "amhost:4000", Secret: "s3cret", Env: map[string]string{"HADOOP_USER_NAME": "alice"}},
		Nodes:       []NodeReport{{Node: "n1:1", MemoryMB: 4096}, {Node: "n2:1", MemoryMB: 8192}},
		IncludePort: true, Log: log,
		Events:     countSender{&h.posts},
		OnShutdown: func(r string) { h.shutdown = append(h.shutdown, r) },
	})
	if _, err := h.w.Register(context.Background()); err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *harness) beat(t *testing.T) {
	t.Helper()
	if err := h.w.beat(context.Background()); err != nil {
		t.Fatalf("beat: %v", err)
	}
	h.w.launches.Wait()
}

func tok(node string) NMToken {
	return NMToken{Node: node, Token: yarnrpc.Token{Kind: yarnrpc.KindNMToken, Service: node}}
}

func TestWorldHeartbeatLaunchesWorkersAndReportsLost(t *testing.T) {
	h := newHarness(t)
	now := time.Unix(1000, 0)
	if h.w.NodeMB("n2:1") != 8192 || h.w.NodeMB("nope:1") != 0 {
		t.Errorf("NodeMB: %d, %d", h.w.NodeMB("n2:1"), h.w.NodeMB("nope:1"))
	}
	h.w.WantWorkers(now, core.WantWorkers{Group: small, Total: 2})
	h.rm.script = []fakeAnswer{
		{resp: AllocateResponse{ResponseID: 1, Allocated: []Container{ctr(2, 1, "n1:1"), ctr(3, 1, "n2:1")}, NMTokens: []NMToken{tok("n1:1"), tok("n2:1")}}},
		{resp: AllocateResponse{ResponseID: 2, Completed: []Completed{{ID: cid(3), ExitStatus: 137, Diagnostics: "Killed"}, {ID: cid(50)}}}},
	}
	h.beat(t)
	if r := h.rm.last(); r.ResponseID != 0 || !reflect.DeepEqual(r.Asks, []Ask{anyAsk(1, small, 2, true)}) {
		t.Fatalf("first allocate: %+v", r)
	}
	if len(h.nm.started) != 2 {
		t.Fatalf("started %d workers, want 2", len(h.nm.started))
	}
	l := h.nm.started[cid(2)]
	cmd := l.Command[0]
	for _, want := range []string{"exec ./ebb worker", "--am amhost:4000", "--worker-id container_1700000000000_0007_01_000002",
		"--group small", "--node n1:1", "--memory-mb 512", "--vcores 1", "--work-dir $PWD/work", "--log-dir <LOG_DIR>",
		"--advertise-host $NM_HOST", "1><LOG_DIR>/stdout 2><LOG_DIR>/stderr"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("worker command lacks %q: %s", want, cmd)
		}
	}
	if l.Resources["ebb"] != h.w.o.Worker.Binary || len(l.Resources) != 1 || l.Env["HADOOP_USER_NAME"] != "alice" || secretOf(t, l.Tokens) != "s3cret" {
		t.Errorf("launch context: %+v", l)
	}
	h.beat(t)
	// Both arrived: the RM's table is at 0 already, nothing to change.
	if r := h.rm.last(); r.ResponseID != 1 || len(r.Asks) != 0 {
		t.Errorf("second allocate (both arrived): %+v", r)
	}
	if n := h.posts.Load(); n != 1 {
		t.Errorf("%d worker-lost events posted, want 1 (container 50 was never ours)", n)
	}
	// The Core has not lowered its total: the lost container is asked for again.
	h.beat(t)
	if r := h.rm.last(); r.ResponseID != 2 || !reflect.DeepEqual(r.Asks, []Ask{anyAsk(1, small, 1, true)}) {
		t.Errorf("third allocate: %+v", r)
	}
	s := h.w.Stats()
	if s.Heartbeats != 3 || s.Allocated != 2 || s.Launched != 2 || s.CompletedLost != 1 {
		t.Errorf("stats %+v", s)
	}
}

func TestLostReasonNamesTheExitStatus(t *testing.T) {
	got := lostReason(Completed{ID: cid(3), ExitStatus: -104, Diagnostics: " Container killed on request.\n"})
	want := "container container_1700000000000_0007_01_000003 completed, exit status -104 (killed: physical memory limit exceeded): Container killed on request."
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestWorldResyncAndReRegister(t *testing.T) {
	h := newHarness(t)
	h.w.WantWorkers(time.Unix(1000, 0), core.WantWorkers{Group: small, Total: 1})
	notRegistered := &yarnrpc.RemoteError{Class: "org.apache.hadoop.yarn.exceptions.ApplicationMasterNotRegisteredException", Method: "allocate"}
	h.rm.script = []fakeAnswer{
		{resp: AllocateResponse{ResponseID: 5}},
		{resp: AllocateResponse{ResponseID: 6, Command: CommandResync}},
		{err: notRegistered},
		{resp: AllocateResponse{ResponseID: 1, Command: CommandShutdown}},
	}
	h.beat(t) // 5
	h.beat(t) // resync: register again
	if h.rm.registers != 2 {
		t.Fatalf("registers = %d after AM_RESYNC, want 2", h.rm.registers)
	}
	h.beat(t) // not registered: register again
	if h.rm.registers != 3 {
		t.Fatalf("registers = %d after ApplicationMasterNotRegisteredException, want 3", h.rm.registers)
	}
	h.beat(t)
	r := h.rm.last()
	// After re-registering, response ids start again at 0 and the whole
	// ask table is sent again.
	if r.ResponseID != 0 || !reflect.DeepEqual(r.Asks, []Ask{anyAsk(1, small, 1, true)}) {
		t.Errorf("allocate after re-register: %+v", r)
	}
	if len(h.shutdown) != 1 {
		t.Errorf("AM_SHUTDOWN: OnShutdown called %d times", len(h.shutdown))
	}
}

func TestWorldAttemptNotFoundStops(t *testing.T) {
	h := newHarness(t)
	h.rm.script = []fakeAnswer{{err: &yarnrpc.RemoteError{Class: "org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException"}}}
	stopped := make(chan string, 1)
	h.w.o.OnShutdown = func(r string) { stopped <- r }
	h.w.o.Heartbeat = time.Millisecond
	h.w.Start()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatalf("no shutdown after ApplicationAttemptNotFoundException")
	}
	select {
	case <-h.w.hbDone: // the heartbeat ended by itself
	case <-time.After(5 * time.Second):
		t.Fatalf("the heartbeat goes on after the attempt is gone")
	}
}

func TestWorldLaunchFailureAsksAgain(t *testing.T) {
	h := newHarness(t)
	h.nm.startErr = errors.New("NM says no")
	h.w.WantWorkers(time.Unix(1000, 0), core.WantWorkers{Group: small, Total: 1})
	h.rm.script = []fakeAnswer{{resp: AllocateResponse{ResponseID: 1, Allocated: []Container{ctr(2, 1, "n1:1")}, NMTokens: []NMToken{tok("n1:1")}}}}
	h.beat(t)
	h.beat(t)
	r := h.rm.last()
	if !reflect.DeepEqual(r.Release, []ContainerID{cid(2)}) {
		t.Errorf("a container that failed to launch is not released: %+v", r)
	}
	// Sent ANY 1; the RM's row went to 0 when it allocated; now 1 again.
	if !reflect.DeepEqual(r.Asks, []Ask{anyAsk(1, small, 1, true)}) {
		t.Errorf("asks after a failed launch: %+v", r.Asks)
	}
	if h.w.Stats().LaunchFailed != 1 {
		t.Errorf("stats %+v", h.w.Stats())
	}
}

func TestWorldRefusesWorkersAboveTheLargestContainer(t *testing.T) {
	h := newHarness(t)
	h.w.WantWorkers(time.Unix(1000, 0), core.WantWorkers{Group: core.GroupInfo{Name: "huge", MemoryMB: 4096}, Total: 1})
	h.beat(t)
	if len(h.rm.last().Asks) != 0 {
		t.Errorf("a 4096 MB group on a 2048 MB cluster is asked for: %+v", h.rm.last().Asks)
	}
	// The kill of its DAGs is posted from another goroutine.
	deadline := time.Now().Add(5 * time.Second)
	for h.posts.Load() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d posts, want the one that kills the group's DAGs", h.posts.Load())
		}
		time.Sleep(time.Millisecond)
	}
}

func TestWorldCloseStopsAndReleasesEverything(t *testing.T) {
	h := newHarness(t)
	h.w.WantWorkers(time.Unix(1000, 0), core.WantWorkers{Group: small, Total: 3})
	h.rm.script = []fakeAnswer{{resp: AllocateResponse{ResponseID: 1, NMTokens: []NMToken{tok("n1:1"), tok("n2:1")},
		Allocated: []Container{ctr(2, 1, "n1:1"), ctr(3, 1, "n2:1"), ctr(4, 1, "n1:1")}}}}
	h.beat(t)
	if err := h.w.Close(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h.nm.stopped, map[string][]ContainerID{"n1:1": {cid(2), cid(4)}, "n2:1": {cid(3)}}) {
		t.Errorf("stopped %v", h.nm.stopped)
	}
	r := h.rm.last()
	if !reflect.DeepEqual(r.Release, []ContainerID{cid(2), cid(3), cid(4)}) {
		t.Errorf("last allocate releases %v", r.Release)
	}
	if err := h.w.Finish(context.Background(), Succeeded, "done"); err != nil || len(h.rm.finishes) != 2 {
		t.Errorf("finish: %v after %d calls (the fake says 'not yet' once)", err, len(h.rm.finishes))
	}
	// The AM's status page (TrackingURL) closes with the AM: the RM must
	// be left to show its own application page.
	for _, u := range h.rm.finalURLs {
		if u != "" {
			t.Errorf("unregistered with tracking URL %q; want \"\" (the RM's application page outlives the AM)", u)
		}
	}
}

func TestProgressCountsRunningDAGsOnly(t *testing.T) {
	dags := []core.DAGStatus{
		{State: core.DAGRunning, TotalTasks: 6, Succeeded: 3},
		{State: core.DAGSucceeded, TotalTasks: 10, Succeeded: 10}, // ended: not counted
		{State: core.DAGRunning, TotalTasks: 2, Succeeded: 1},
	}
	// (3 + 1) / (6 + 2) = 0.5
	if p := Progress(dags); p != 0.5 {
		t.Errorf("progress %v, want 0.5", p)
	}
	if p := Progress(dags[1:2]); p != 1 {
		t.Errorf("progress with nothing running %v, want 1", p)
	}
}

// The secret reaches the worker in its container's token file, a secret
// key: not in the environment or the command (launch_container.sh, which
// the NM keeps in the log dir), and not as a localized file (a localizer
// run per container; only the cached PUBLIC binary is localized).
func TestWorkerLaunchCarriesTheSecretInTheTokenFile(t *testing.T) {
	h := newHarness(t)
	l := mustLaunch(t, h.w, Placed{Container: ctr(2, 1, "n1:1"), Group: small})
	if !strings.HasPrefix(l.Command[0], "exec ./ebb worker ") {
		t.Errorf("command %s", l.Command[0])
	}
	if len(l.Resources) != 1 || l.Resources["ebb"] != h.w.o.Worker.Binary {
		t.Errorf("resources %+v, want the binary only", l.Resources)
	}
	if _, ok := l.Env["EBB_SECRET"]; ok || strings.Contains(l.Command[0], "s3cret") {
		t.Errorf("the secret itself is in the environment or command: %+v", l)
	}
	if got := secretOf(t, l.Tokens); got != "s3cret" {
		t.Errorf("secret in the token file %q, want s3cret", got)
	}
}

// A launch whose token file cannot be built fails like one the NM
// refused: counted, its container given back (and asked for again).
func TestWorkerLaunchWithUnreadableTokensFails(t *testing.T) {
	h := newHarness(t)
	h.w.o.Worker.Tokens = []byte("not a credentials file")
	h.w.WantWorkers(time.Unix(1000, 0), core.WantWorkers{Group: small, Total: 1})
	h.rm.script = []fakeAnswer{{resp: AllocateResponse{ResponseID: 1, Allocated: []Container{ctr(2, 1, "n1:1")}, NMTokens: []NMToken{tok("n1:1")}}}}
	h.beat(t)
	if s := h.w.Stats(); s.LaunchFailed != 1 || s.Launched != 0 || len(h.nm.started) != 0 {
		t.Fatalf("stats %+v, started %d: want one failed launch and none started", s, len(h.nm.started))
	}
	h.beat(t)
	if r := h.rm.last(); !reflect.DeepEqual(r.Release, []ContainerID{cid(2)}) {
		t.Errorf("the container is not given back: releases %v", r.Release)
	}
}

func mustLaunch(t *testing.T, w *World, p Placed) Launch {
	t.Helper()
	l, err := w.workerLaunch(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// secretOf is the application secret in a launch's token file.
func secretOf(t *testing.T, tokens []byte) string {
	t.Helper()
	creds, err := yarnrpc.ReadCredentials(bytes.NewReader(tokens))
	if err != nil {
		t.Fatalf("the launch's token file: %v", err)
	}
	for _, s := range creds.Secrets {
		if s.Alias == SecretAlias {
			return string(s.Secret)
		}
	}
	return ""
}

// On a secure cluster every worker's launch context carries the HDFS
// delegation tokens, in the tokens field (not the environment).
func TestWorkerLaunchCarriesTokens(t *testing.T) {
	h := newHarness(t)
	blob := (&yarnrpc.Credentials{Tokens: []yarnrpc.NamedToken{{Alias: "127.0.0.1:8020",
		Token: yarnrpc.Token{Identifier: []byte("id"), Password: []byte("pw"), Kind: yarnrpc.KindHDFSDelegationToken, Service: "127.0.0.1:8020"}}}}).MarshalWritable()
	h.w.o.Worker.Tokens = blob
	l := mustLaunch(t, h.w, Placed{Container: ctr(2, 1, "n1:1"), Group: small})
	clc, err := launchProto(l)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := yarnrpc.ReadCredentials(bytes.NewReader(clc.GetTokens()))
	if err != nil {
		t.Fatal(err)
	}
	if tk, ok := creds.TokenOfKind(yarnrpc.KindHDFSDelegationToken); !ok || string(tk.Password) != "pw" || secretOf(t, clc.GetTokens()) != "s3cret" {
		t.Errorf("token file %+v, want the HDFS token and the secret", creds)
	}
	for _, e := range clc.GetEnvironment() {
		if strings.Contains(e.GetValue(), "pw") {
			t.Errorf("a token password is in the environment: %s", e.GetKey())
		}
	}
}

func TestWorldResendsTheTableAfterAFailedAllocate(t *testing.T) {
	h := newHarness(t)
	h.w.WantWorkers(time.Unix(1000, 0), core.WantWorkers{Group: small, Total: 2})
	h.rm.script = []fakeAnswer{
		{resp: AllocateResponse{ResponseID: 1}},
		{err: errors.New("connection reset")},
	}
	h.beat(t) // sends ANY 2
	if err := h.w.beat(context.Background()); err == nil {
		t.Fatal("a failed allocate is not reported")
	}
	h.beat(t) // the RM may answer this one from its cache and drop the asks
	h.beat(t) // so the table goes out once more
	h.beat(t)
	full := []Ask{anyAsk(1, small, 2, true)}
	for i, want := range [][]Ask{full, nil, full, full, nil} {
		if got := h.rm.requests[i].Asks; !reflect.DeepEqual(got, want) {
			t.Errorf("allocate %d asks %+v, want %+v", i, got, want)
		}
	}
	// Both retries carry the response id of the last answer that arrived.
	if h.rm.requests[2].ResponseID != 1 {
		t.Errorf("retry response id %d, want 1", h.rm.requests[2].ResponseID)
	}
}

// Fresh tokens (an AM with a keytab refreshed them) go into the launch
// context of every worker launched afterwards, in place of the ones the
// AM started with.
func TestWorkerLaunchCarriesFreshTokens(t *testing.T) {
	h := newHarness(t)
	blob := func(id string) []byte {
		return (&yarnrpc.Credentials{Tokens: []yarnrpc.NamedToken{{Alias: "nn",
			Token: yarnrpc.Token{Identifier: []byte(id), Kind: yarnrpc.KindHDFSDelegationToken, Service: "nn"}}}}).MarshalWritable()
	}
	h.w.o.Worker.Tokens = blob("old")
	h.w.SetWorkerTokens(blob("fresh"))
	clc, err := launchProto(mustLaunch(t, h.w, Placed{Container: ctr(2, 1, "n1:1"), Group: small}))
	if err != nil {
		t.Fatal(err)
	}
	creds, err := yarnrpc.ReadCredentials(bytes.NewReader(clc.GetTokens()))
	if err != nil {
		t.Fatal(err)
	}
	if tk, _ := creds.TokenOfKind(yarnrpc.KindHDFSDelegationToken); string(tk.Identifier) != "fresh" {
		t.Errorf("token %q, want the fresh one", tk.Identifier)
	}
}

// The roll keys reach each worker's command line; without them (0 KB) the
// worker is not told to roll.
func TestWorkerLaunchRollsLogs(t *testing.T) {
	h := newHarness(t)
	if cmd := mustLaunch(t, h.w, Placed{Container: ctr(2, 1, "n1:1"), Group: small}).Command[0]; strings.Contains(cmd, "--log-roll") {
		t.Errorf("no roll asked, yet: %s", cmd)
	}
	h.w.o.Worker.LogRollKB, h.w.o.Worker.LogRollCount = 128, 3
	if cmd := mustLaunch(t, h.w, Placed{Container: ctr(3, 1, "n1:1"), Group: small}).Command[0]; !strings.Contains(cmd, "--log-roll-kb 128 --log-roll-count 3") {
		t.Errorf("worker command lacks the roll flags: %s", cmd)
	}
}

// countSender counts the events a world sends.
type countSender struct{ n *atomic.Int32 }

func (c countSender) Send(core.Event) { c.n.Add(1) }

// The World is every world port package am defines (checked here, not in
// world.go, so that the package itself needs no import of am).
var (
	_ am.World            = (*World)(nil)
	_ am.WorkerJoiner     = (*World)(nil)
	_ am.WorkerKiller     = (*World)(nil)
	_ am.AMWorkerLauncher = (*World)(nil)
	_ am.SpecChecker      = (*World)(nil)
)
