package worker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// outputStopGrace bounds how long a worker that is exiting lets fetches in
// flight finish before it cuts them.
const outputStopGrace = 2 * time.Second

// outputServer serves finished outputs over HTTP to the consumers that
// fetch them: other workers, and this worker for its own consumers.
type outputServer struct {
	srv      *http.Server
	ln       net.Listener
	stopping atomic.Bool
	mu       sync.Mutex
	// fresh are the connections accepted that have not sent a request yet;
	// freshGone, when set, is closed once there are none.
	fresh     map[net.Conn]struct{}
	freshGone chan struct{}
}

// serveOutputs starts the HTTP server for finished outputs. Behind a
// loopback advertise address it listens on loopback only; otherwise on all
// interfaces, because workers on other nodes fetch from it.
func (w *worker) serveOutputs() (*outputServer, error) {
	listenHost := ""
	if ip := net.ParseIP(w.o.AdvertiseHost); ip != nil && ip.IsLoopback() {
		listenHost = w.o.AdvertiseHost
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(listenHost, "0"))
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	w.dataAddress = net.JoinHostPort(w.o.AdvertiseHost, strconv.Itoa(port))
	s := startOutputServer(ln, w.outputs.handler(), func(err error) { w.log.WithError(err).Error("output server stopped") })
	w.log.WithField("address", w.dataAddress).Info("serving outputs")
	return s, nil
}

// startOutputServer serves h on ln until stop; onErr hears why Serve
// ended, unless stop ended it.
func startOutputServer(ln net.Listener, h http.Handler, onErr func(error)) *outputServer {
	s := &outputServer{ln: ln, fresh: map[net.Conn]struct{}{}}
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ConnState: s.track}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && !s.stopping.Load() {
			onErr(err)
		}
	}()
	return s
}

func (s *outputServer) track(c net.Conn, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st == http.StateNew {
		if s.stopping.Load() {
			_ = c.Close() // accepted as stop closed the listener
			return
		}
		s.fresh[c] = struct{}{}
		return
	}
	delete(s.fresh, c)
	if len(s.fresh) == 0 && s.freshGone != nil {
		close(s.freshGone)
		s.freshGone = nil
	}
}

// freshCloseWait bounds how long stop waits for the connections it closed
// to be let go by the server's goroutines (a moment: they are blocked
// reading a request that cannot come now).
const freshCloseWait = 2 * time.Second

// stop ends the server as the worker exits. No new connection is taken;
// idle ones and those that have sent no request yet are closed at once;
// fetches in flight get up to grace to finish, then are cut (the error
// says so). http.Server's Shutdown alone waits up to 5 s for a connection
// that never sent a request: the fetch client's transport leaves one
// behind when it dials for a request that an idle connection then serves,
// and the in-AM worker, which fetches its own outputs, kept the AM from
// ending for the whole grace (2 s) in a third of small-DAG runs.
func (s *outputServer) stop(grace time.Duration) error {
	s.stopping.Store(true)
	_ = s.ln.Close() // Serve returns; its error is expected now
	s.mu.Lock()
	var gone chan struct{}
	if len(s.fresh) > 0 {
		gone = make(chan struct{})
		s.freshGone = gone
	}
	for c := range s.fresh {
		_ = c.Close() // it asked for nothing: a fetcher would see a closed connection and report a fetch failure
	}
	s.mu.Unlock()
	if gone != nil {
		select {
		case <-gone:
		case <-time.After(freshCloseWait):
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		_ = s.srv.Close()
		return fmt.Errorf("output fetches still in flight %s after the worker began to exit were cut: %w", grace, err)
	}
	return nil
}
