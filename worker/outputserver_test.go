package worker

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// outputServerForTest serves h on a loopback port; the test stops it.
func outputServerForTest(t *testing.T, h http.Handler) (*outputServer, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return startOutputServer(ln, h, func(err error) { t.Errorf("output server: %v", err) }), ln.Addr().String()
}

// A connection that never sent a request (the fetch client's transport
// leaves one behind when an idle connection serves the request it dialed
// for) must not hold a worker's exit: it held the in-AM worker, and so the
// AM's end, for the whole grace in a third of small-DAG runs. With no grace
// at all, a stop that waited for it would report a fetch cut.
func TestOutputServerStopClosesConnectionsWithoutARequest(t *testing.T) {
	s, addr := outputServerForTest(t, http.NotFoundHandler())
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	waitFor(t, "the server to take the connection", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.fresh) == 1
	})
	if err := s.stop(0); err != nil {
		t.Fatalf("stop with a request-less connection open: %v, want nothing cut", err)
	}
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the request-less connection after stop: read gave %v, want EOF (closed by the server)", err)
	}
}

// A fetch in flight when the worker stops is let finish within the grace.
func TestOutputServerStopLetsAFetchInFlightFinish(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	s, addr := outputServerForTest(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(started)
		<-release
		_, _ = io.WriteString(w, "the whole output")
	}))
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + addr + "/x")
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(b)
	}()
	<-started
	stopped := make(chan error, 1)
	go func() { stopped <- s.stop(time.Hour) }()
	close(release)
	if b := <-got; b != "the whole output" {
		t.Fatalf("the fetch in flight got %q, want the whole output", b)
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("stop: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("stop had not returned 30s after the fetch in flight ended")
	}
}

// A fetch still in flight after the grace is cut, and stop says so.
func TestOutputServerStopCutsAFetchPastTheGrace(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	s, addr := outputServerForTest(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(started)
		<-release
	}))
	go func() {
		if resp, err := http.Get("http://" + addr + "/x"); err == nil {
			_ = resp.Body.Close()
		}
	}()
	<-started
	if err := s.stop(0); err == nil {
		t.Fatal("stop with a fetch in flight and no grace: nil, want the fetch reported cut")
	}
}

// Many fetchers at once, some connections never sending a request, and the
// stop in the middle of it (track and stop share the server's lock, taken
// from the server's goroutines and the worker's): stop returns, cuts no
// fetch within the grace, and every fetch ends, whole or refused.
func TestOutputServerStopUnderManyFetchers(t *testing.T) {
	const fetchers, idle = 100, 20
	body := strings.Repeat("x", 64<<10)
	s, addr := outputServerForTest(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, body)
	}))
	for range idle {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	var whole atomic.Int64
	var wg sync.WaitGroup
	client := newFetchClient()
	for range fetchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				resp, err := client.Get("http://" + addr + "/x")
				if err != nil {
					return // refused: the server has stopped
				}
				b, err := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if err != nil || len(b) != len(body) {
					t.Errorf("a fetch read %d bytes (%v), want the whole %d", len(b), err, len(body))
					return
				}
				whole.Add(1)
			}
		}()
	}
	waitFor(t, "a thousand whole fetches", func() bool { return whole.Load() >= 1000 })
	stopped := make(chan error, 1)
	go func() { stopped <- s.stop(time.Hour) }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("stop under %d fetchers: %v", fetchers, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("stop under %d fetchers had not returned after 30s", fetchers)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("fetchers still running 30s after the stop")
	}
}
