package amclient

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// fakeAM is one AM attempt's client API: it answers DAG d1 with its own
// attempt number in the diagnostics, and counts submissions.
type fakeAM struct {
	ebbpb.UnimplementedClientServer
	attempt int32
	secret  string
	submits atomic.Int32
	addr    string
	stop    func()
}

func (f *fakeAM) auth(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	if a := md.Get("authorization"); len(a) != 1 || a[0] != "Bearer "+f.secret {
		return status.Error(codes.Unauthenticated, "bad secret")
	}
	return nil
}

func (f *fakeAM) DAGStatus(ctx context.Context, r *ebbpb.DAGStatusRequest) (*ebbpb.DAGStatusResponse, error) {
	if err := f.auth(ctx); err != nil {
		return nil, err
	}
	if r.DagId != "d1" {
		return nil, status.Errorf(codes.NotFound, "no DAG %s", r.DagId)
	}
	return &ebbpb.DAGStatusResponse{Dag: &ebbpb.DAGStatus{DagId: "d1", State: "RUNNING", TotalTasks: 4, SucceededTasks: 2,
		Diagnostics: "attempt " + string(rune('0'+f.attempt))}}, nil
}

func (f *fakeAM) SubmitDAG(ctx context.Context, _ *ebbpb.SubmitDAGRequest) (*ebbpb.SubmitDAGResponse, error) {
	f.submits.Add(1)
	return &ebbpb.SubmitDAGResponse{DagId: "d1"}, f.auth(ctx)
}

func (f *fakeAM) ListDAGs(_ context.Context, r *ebbpb.ListDAGsRequest) (*ebbpb.ListDAGsResponse, error) {
	// The page asked for comes back in the answer, to show it went out.
	return &ebbpb.ListDAGsResponse{Dags: []*ebbpb.DAGStatus{{DagId: r.Before, Name: r.State, State: "SUCCEEDED"}},
		Total: r.Limit, NextBefore: "d0"}, nil
}

func startAM(t *testing.T, attempt int32) *fakeAM {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeAM{attempt: attempt, secret: "s3cret", addr: lis.Addr().String()}
	s := grpc.NewServer()
	ebbpb.RegisterClientServer(s, f)
	go func() { _ = s.Serve(lis) }()
	f.stop = s.Stop
	t.Cleanup(s.Stop)
	return f
}

func (f *fakeAM) target() Target { return Target{Addr: f.addr, Secret: f.secret, Attempt: f.attempt} }

func TestStatusAndListSpeakEbbTypes(t *testing.T) {
	am := startAM(t, 1)
	c, err := Dial(am.target(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	ctx := context.Background()
	d, err := c.Status(ctx, "d1")
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "d1" || d.State != Running || d.SucceededTasks != 2 || d.TotalTasks != 4 || d.State.Done() {
		t.Fatalf("status: %+v", d)
	}
	l, err := c.List(ctx, Page{State: "SUCCEEDED", Limit: 7, Before: "d9"})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.DAGs) != 1 || l.DAGs[0].ID != "d9" || l.DAGs[0].Name != "SUCCEEDED" || l.Total != 7 || l.NextBefore != "d0" || !l.AllDone() {
		t.Fatalf("list did not carry the page: %+v", l)
	}
	_, err = c.Status(ctx, "nope")
	var e *Error
	if !errors.As(err, &e) || e.Op != "status" || e.Unavailable || e.Error() != "no DAG nope" {
		t.Fatalf("a refusal is an *Error with the AM's message: %#v", err)
	}
	bad, err := Dial(Target{Addr: am.addr, Secret: "wrong"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bad.Close() }()
	if _, err := bad.Status(ctx, "d1"); err == nil || err.Error() != "bad secret" {
		t.Fatalf("the wrong secret: %v", err)
	}
}

// The attempt talked to goes away: a reading call moves to the attempt
// Locate finds and answers from there; a submission does
// not move (the next attempt may have resumed it already).
func TestFollowsToTheNextAttempt(t *testing.T) {
	first, second := startAM(t, 1), startAM(t, 2)
	var prevAsked int32
	locate := func(_ context.Context, prev int32) (Target, error) {
		prevAsked = prev
		return second.target(), nil
	}
	c, err := Dial(first.target(), Options{Locate: locate})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if d, err := c.Status(ctx, "d1"); err != nil || d.Diagnostics != "attempt 1" {
		t.Fatalf("before: %+v %v", d, err)
	}
	first.stop()
	if _, err := c.Submit(ctx, Submit{Spec: []byte("x")}); !IsUnavailable(err) || first.submits.Load()+second.submits.Load() != 0 {
		t.Fatalf("a submission to a gone AM must fail unrepeated: %v (submits %d, %d)", err, first.submits.Load(), second.submits.Load())
	}
	d, err := c.Status(ctx, "d1")
	if err != nil || d.Diagnostics != "attempt 2" {
		t.Fatalf("after the takeover: %+v %v", d, err)
	}
	if prevAsked != 1 || c.Attempt() != 2 {
		t.Fatalf("Locate asked after attempt %d, now at %d; want 1, 2", prevAsked, c.Attempt())
	}
}

func TestGoneWhenNoAttemptTakesOver(t *testing.T) {
	am := startAM(t, 1)
	ended := errors.New("application ended: FAILED")
	c, err := Dial(am.target(), Options{Locate: func(context.Context, int32) (Target, error) { return Target{}, ended }})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	am.stop()
	_, err = c.Status(context.Background(), "d1")
	var g *GoneError
	if !errors.As(err, &g) || !errors.Is(err, ended) || !strings.Contains(err.Error(), "no attempt took over") {
		t.Fatalf("want a GoneError wrapping the locator's: %v", err)
	}
}

func TestAwaitWaitsForAnotherAttempt(t *testing.T) {
	calls := 0
	find := func(context.Context) (Target, error) {
		calls++
		return Target{Attempt: int32(1 + calls/3)}, nil // attempt 1 twice, then 2
	}
	got, err := Await(find, time.Millisecond)(context.Background(), 1)
	if err != nil || got.Attempt != 2 || calls != 3 {
		t.Fatalf("Await: %+v %v after %d finds; want attempt 2 after 3", got, err, calls)
	}
}

func TestTakeoverLineNamesTheAttemptAndWhereDAGsResumed(t *testing.T) {
	got := TakeoverLine(2, []DAG{
		{ID: "dag_0001", State: Succeeded, SucceededTasks: 3, TotalTasks: 3},
		{ID: "dag_0002", State: Running, SucceededTasks: 5, TotalTasks: 8},
		{ID: "dag_0003", State: Submitted, SucceededTasks: 0, TotalTasks: 4},
	})
	if want := "AM attempt 2 took over; DAG dag_0002 resumed at 5/8 tasks; DAG dag_0003 resumed at 0/4 tasks"; got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if got := TakeoverLine(3, nil); got != "AM attempt 3 took over; no DAG to resume" {
		t.Fatal(got)
	}
}

func TestAllDoneNeedsDAGsAllEnded(t *testing.T) {
	d := func(s State) DAG { return DAG{State: s} }
	for _, c := range []struct {
		dags []DAG
		want bool
	}{
		{nil, false}, // a session before its first DAG: nothing ended
		{[]DAG{d(Succeeded)}, true},
		{[]DAG{d(Failed), d(Killed)}, true},
		{[]DAG{d(Succeeded), d(Running)}, false},
		{[]DAG{d(Submitted)}, false},
	} {
		if got := (List{DAGs: c.dags}).AllDone(); got != c.want {
			t.Errorf("AllDone(%v) = %v, want %v", c.dags, got, c.want)
		}
	}
}
