package yarnrpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// fakeServer plays a Hadoop RPC server on a real local socket. For every
// call it asks handle what to do; handle runs on the connection's reader
// goroutine and answers through reply (possibly later, from elsewhere).
type fakeServer struct {
	t       *testing.T
	ln      net.Listener
	accepts atomic.Int32
	calls   atomic.Int32
	handle  func(c *fakeConn, callID int32, method string, body []byte)
	// sasl, when set, runs the server side of SASL on connections that ask
	// for it.
	sasl func(c *fakeConn) error
	// context is the last connection context a client sent.
	context atomic.Pointer[hadooppb.IpcConnectionContextProto]
}

type fakeConn struct {
	net.Conn
	wmu sync.Mutex
}

func (c *fakeConn) reply(t testing.TB, h *hadooppb.RpcResponseHeaderProto, body proto.Message) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.Write(serverPacket(t, h, body)); err != nil {
		t.Errorf("server write: %v", err)
	}
}

func newFakeServer(t *testing.T, handle func(c *fakeConn, callID int32, method string, body []byte)) *fakeServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{t: t, ln: ln, handle: handle}
	t.Cleanup(func() { ln.Close() })
	go s.serve()
	return s
}

func (s *fakeServer) addr() string { return s.ln.Addr().String() }

func (s *fakeServer) serve() {
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.accepts.Add(1)
		c := &fakeConn{Conn: nc}
		s.t.Cleanup(func() { nc.Close() })
		go s.serveConn(c)
	}
}

func (s *fakeServer) serveConn(c *fakeConn) {
	defer c.Close()
	sasl, err := ReadPreamble(c)
	if err != nil {
		return
	}
	if sasl {
		if s.sasl == nil || s.sasl(c) != nil {
			return
		}
	}
	h, parts, err := ReadRequest(c) // connection context
	if err != nil || h.GetCallId() != callIDConnectionContext || len(parts) != 1 {
		return
	}
	cc := &hadooppb.IpcConnectionContextProto{}
	if proto.Unmarshal(parts[0], cc) != nil {
		return
	}
	s.context.Store(cc)
	for {
		h, parts, err := ReadRequest(c)
		if err != nil || len(parts) != 2 {
			return
		}
		var mh hadooppb.RequestHeaderProto
		if proto.Unmarshal(parts[0], &mh) != nil {
			return
		}
		s.calls.Add(1)
		s.handle(c, h.GetCallId(), mh.GetMethodName(), parts[1])
	}
}

func metricsReply(n int32) *hadooppb.GetClusterMetricsResponseProto {
	return &hadooppb.GetClusterMetricsResponseProto{ClusterMetrics: &hadooppb.YarnClusterMetricsProto{NumNodeManagers: proto.Int32(n)}}
}

func fastRetry() Option { return WithRetry(3, time.Millisecond, 4*time.Millisecond) }

// Two calls in flight; the server answers the second first. Each caller
// must get its own answer.
func TestOutOfOrderResponses(t *testing.T) {
	var mu sync.Mutex
	var held []int32
	s := newFakeServer(t, nil)
	s.handle = func(c *fakeConn, id int32, method string, body []byte) {
		mu.Lock()
		held = append(held, id)
		ready := len(held) == 2
		ids := append([]int32{}, held...)
		mu.Unlock()
		if ready { // answer in reverse order; the answer names the call id
			c.reply(t, okHeader(ids[1]), metricsReply(ids[1]+100))
			c.reply(t, okHeader(ids[0]), metricsReply(ids[0]+100))
		}
	}
	c := NewApplicationClient(s.addr(), "alice", fastRetry())
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Open the connection first so both calls share it.
	if _, err := c.rpc.getConn(ctx); err != nil {
		t.Fatal(err)
	}
	type result struct {
		got int32
		err error
	}
	results := make(chan result, 2)
	for i := 0; i < 2; i++ {
		go func() {
			resp := &hadooppb.GetClusterMetricsResponseProto{}
			err := c.rpc.call(ctx, "getClusterMetrics", retrySafe, &hadooppb.GetClusterMetricsRequestProto{}, resp)
			results <- result{got: resp.GetClusterMetrics().GetNumNodeManagers(), err: err}
		}()
	}
	seen := map[int32]bool{}
	for i := 0; i < 2; i++ {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		seen[r.got] = true
	}
	// Calls 0 and 1 answered with 100 and 101: both arrived, none twice.
	if !seen[100] || !seen[101] {
		t.Errorf("answers %v, want {100, 101}", seen)
	}
	if s.accepts.Load() != 1 {
		t.Errorf("%d connections, want 1", s.accepts.Load())
	}
}

// A call whose context ends gets ctx's error; the connection stays usable
// and the late answer is dropped.
func TestContextCancelKeepsConnection(t *testing.T) {
	var first atomic.Bool
	first.Store(true)
	s := newFakeServer(t, func(c *fakeConn, id int32, method string, body []byte) {
		if first.CompareAndSwap(true, false) {
			return // never answer the first call
		}
		c.reply(t, okHeader(id), metricsReply(3))
	})
	c := NewApplicationClient(s.addr(), "alice", fastRetry())
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.GetClusterMetrics(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want DeadlineExceeded", err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	m, err := c.GetClusterMetrics(ctx2)
	if err != nil || m.GetNumNodeManagers() != 3 {
		t.Fatalf("second call: %v %v", m, err)
	}
	if s.accepts.Load() != 1 {
		t.Errorf("%d connections, want 1", s.accepts.Load())
	}
}

// The server drops the connection after every answer: each call must
// reconnect transparently.
func TestReconnectAfterServerClose(t *testing.T) {
	s := newFakeServer(t, func(c *fakeConn, id int32, method string, body []byte) {
		c.reply(t, okHeader(id), metricsReply(3))
		c.Close()
	})
	c := NewApplicationClient(s.addr(), "alice", fastRetry())
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i := 0; i < 3; i++ {
		if _, err := c.GetClusterMetrics(ctx); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		// Wait until the client has seen the close, so the next call
		// takes the reconnect path rather than racing the FIN.
		deadline := time.Now().Add(2 * time.Second)
		for c.rpc.conn != nil && c.rpc.conn.broken() == nil && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	if got := s.accepts.Load(); got != 3 {
		t.Errorf("%d connections, want 3", got)
	}
}

// A request that reached the server before the connection died is resent
// only for methods safe to repeat.
func TestRetryOnlyWhereSafe(t *testing.T) {
	s := newFakeServer(t, nil)
	s.handle = func(c *fakeConn, id int32, method string, body []byte) {
		if s.calls.Load() == 1 {
			c.Close() // swallow the first request
			return
		}
		switch method {
		case "startContainers":
			c.reply(t, okHeader(id), &hadooppb.StartContainersResponseProto{})
		default:
			c.reply(t, okHeader(id), &hadooppb.GetContainerStatusesResponseProto{})
		}
	}
	nm := NewContainerManagerClient(s.addr(), Token{}, fastRetry())
	nm.rpc.token = nil // plain connection: this fake does no SASL
	defer nm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	if _, err := nm.StartContainers(ctx, nil); err == nil {
		t.Fatal("startContainers was resent after the server may have run it")
	}
	if got := s.calls.Load(); got != 1 {
		t.Fatalf("server saw %d startContainers, want 1", got)
	}

	s.calls.Store(0)
	if _, err := nm.GetContainerStatuses(ctx, nil); err != nil {
		t.Fatalf("getContainerStatuses not retried: %v", err)
	}
	// 1 swallowed + 1 answered.
	if got := s.calls.Load(); got != 2 {
		t.Errorf("server saw %d getContainerStatuses, want 2", got)
	}
}

// Dial failures are retried with backoff until the attempts run out.
func TestDialRetriesThenGivesUp(t *testing.T) {
	var dials atomic.Int32
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return nil, errors.New("connection refused")
	}
	c := NewApplicationClient("nowhere:1", "alice", WithDialer(dial), WithRetry(4, time.Millisecond, 2*time.Millisecond))
	_, err := c.GetClusterMetrics(context.Background())
	if err == nil || dials.Load() != 4 {
		t.Errorf("err %v after %d dials, want an error after 4", err, dials.Load())
	}
}

func TestRemoteErrorsAreTyped(t *testing.T) {
	cases := []struct {
		class string
		want  error
	}{
		{"org.apache.hadoop.yarn.exceptions.ApplicationMasterNotRegisteredException", ErrNotRegistered},
		{"org.apache.hadoop.yarn.exceptions.InvalidApplicationMasterRequestException", ErrInvalidRequest},
		{"org.apache.hadoop.yarn.exceptions.InvalidResourceRequestException", ErrInvalidRequest},
		{"org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException", ErrAttemptNotFound},
		{"org.apache.hadoop.security.token.SecretManager$InvalidToken", ErrInvalidToken},
	}
	for _, c := range cases {
		s := newFakeServer(t, func(fc *fakeConn, id int32, method string, body []byte) {
			fc.reply(t, &hadooppb.RpcResponseHeaderProto{
				CallId: proto.Uint32(uint32(id)), Status: hadooppb.RpcResponseHeaderProto_ERROR.Enum(),
				ExceptionClassName: proto.String(c.class), ErrorMsg: proto.String("it failed\n\tat some.Java(Frame.java:1)"),
			}, nil)
		})
		am := NewAMRMClient(s.addr(), Token{}, fastRetry())
		am.rpc.token = nil
		_, err := am.Allocate(context.Background(), &hadooppb.AllocateRequestProto{})
		wrapped := fmt.Errorf("heartbeat: %w", err)
		if !errors.Is(wrapped, c.want) {
			t.Errorf("%s: errors.Is(%v, %v) = false", c.class, wrapped, c.want)
		}
		var re *RemoteError
		if !errors.As(wrapped, &re) || re.Class != c.class || re.Method != "allocate" {
			t.Errorf("%s: not a RemoteError: %v", c.class, err)
		}
		if s.calls.Load() != 1 {
			t.Errorf("%s: remote error retried (%d calls)", c.class, s.calls.Load())
		}
		// Only the first line of the Java message goes into Error().
		if want := "allocate: remote " + c.class + ": it failed"; err.Error() != want {
			t.Errorf("Error() = %q, want %q", err.Error(), want)
		}
		am.Close()
	}
}

// RetriableException means the server did not run the call: try again.
func TestRetriableRemoteError(t *testing.T) {
	s := newFakeServer(t, nil)
	s.handle = func(c *fakeConn, id int32, method string, body []byte) {
		if s.calls.Load() == 1 {
			c.reply(t, &hadooppb.RpcResponseHeaderProto{
				CallId: proto.Uint32(uint32(id)), Status: hadooppb.RpcResponseHeaderProto_ERROR.Enum(),
				ExceptionClassName: proto.String("org.apache.hadoop.ipc.RetriableException"), ErrorMsg: proto.String("busy"),
			}, nil)
			return
		}
		c.reply(t, okHeader(id), metricsReply(3))
	}
	c := NewApplicationClient(s.addr(), "alice", fastRetry())
	defer c.Close()
	if _, err := c.GetClusterMetrics(context.Background()); err != nil || s.calls.Load() != 2 {
		t.Errorf("err %v after %d calls, want success after 2", err, s.calls.Load())
	}
}

func TestBackoff(t *testing.T) {
	base, max := 100*time.Millisecond, time.Second
	// base·2^attempt: 100, 200, 400, 800, then capped at 1000.
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for attempt, w := range want {
		if got := backoff(attempt, base, max); got != w*time.Millisecond {
			t.Errorf("backoff(%d) = %v, want %v", attempt, got, w*time.Millisecond)
		}
	}
	if got := backoff(200, base, max); got != max {
		t.Errorf("backoff(200) = %v, want the cap (no overflow)", got)
	}
}

func TestClosedClient(t *testing.T) {
	c := NewApplicationClient("127.0.0.1:1", "alice")
	c.Close()
	if _, err := c.GetClusterMetrics(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("got %v, want ErrClosed", err)
	}
}

// A connection unused for IdleTimeout is replaced before the next call;
// one used recently is kept.
func TestIdleConnectionReplaced(t *testing.T) {
	s := newFakeServer(t, func(c *fakeConn, id int32, method string, body []byte) {
		c.reply(t, okHeader(id), metricsReply(3))
	})
	now := time.Unix(1000, 0)
	c := NewApplicationClient(s.addr(), "alice", fastRetry(), WithIdleTimeout(10*time.Second),
		func(o *Options) { o.Now = func() time.Time { return now } })
	defer c.Close()
	ctx := context.Background()
	steps := []struct {
		advance time.Duration
		conns   int32
	}{
		{0, 1},                // first call dials
		{9 * time.Second, 1},  // 9s idle < 10s: reused
		{10 * time.Second, 2}, // 10s idle: replaced
	}
	for i, st := range steps {
		now = now.Add(st.advance)
		if _, err := c.GetClusterMetrics(ctx); err != nil {
			t.Fatal(err)
		}
		if got := s.accepts.Load(); got != st.conns {
			t.Errorf("step %d: %d connections, want %d", i, got, st.conns)
		}
	}
}

// The server offers DIGEST-MD5 with integrity/privacy only: the client
// must stop with a clear ErrSASL instead of a mysterious failure later.
func TestSASLQopUnsupported(t *testing.T) {
	s := newFakeServer(t, nil)
	s.sasl = func(c *fakeConn) error {
		if _, _, err := ReadRequest(c); err != nil { // NEGOTIATE
			return err
		}
		c.reply(t, okHeader(callIDSASL), &hadooppb.RpcSaslProto{
			State: hadooppb.RpcSaslProto_NEGOTIATE.Enum(),
			Auths: []*hadooppb.RpcSaslProto_SaslAuth{{
				Method: proto.String("TOKEN"), Mechanism: proto.String("DIGEST-MD5"),
				Protocol: proto.String(""), ServerId: proto.String("default"),
				Challenge: []byte(`realm="default",nonce="n",qop="auth-int,auth-conf",charset=utf-8,algorithm=md5-sess`),
			}},
		})
		_, _, err := ReadRequest(c)
		return err
	}
	am := NewAMRMClient(s.addr(), Token{Identifier: []byte("id"), Password: []byte("pw")}, fastRetry())
	defer am.Close()
	_, err := am.RegisterApplicationMaster(context.Background(), "h", 0, "")
	if !errors.Is(err, ErrSASL) {
		t.Fatalf("got %v, want ErrSASL", err)
	}
	if s.accepts.Load() != 1 {
		t.Errorf("a SASL refusal was retried (%d connections)", s.accepts.Load())
	}
}

// The server rejects the digest with a FATAL header, as Hadoop does.
func TestSASLRejected(t *testing.T) {
	s := newFakeServer(t, nil)
	s.sasl = func(c *fakeConn) error {
		if _, _, err := ReadRequest(c); err != nil {
			return err
		}
		c.reply(t, okHeader(callIDSASL), &hadooppb.RpcSaslProto{
			State: hadooppb.RpcSaslProto_NEGOTIATE.Enum(),
			Auths: []*hadooppb.RpcSaslProto_SaslAuth{{
				Method: proto.String("TOKEN"), Mechanism: proto.String("DIGEST-MD5"),
				Protocol: proto.String(""), ServerId: proto.String("default"),
				Challenge: []byte(`realm="default",nonce="n",qop="auth",charset=utf-8,algorithm=md5-sess`),
			}},
		})
		_, parts, err := ReadRequest(c) // INITIATE
		if err != nil {
			return err
		}
		var init hadooppb.RpcSaslProto
		if err := proto.Unmarshal(parts[0], &init); err != nil {
			t.Errorf("the SASL initiate does not decode: %v", err)
		}
		if init.GetState() != hadooppb.RpcSaslProto_INITIATE || len(init.GetAuths()) != 1 ||
			init.GetAuths()[0].GetServerId() != "default" || init.GetAuths()[0].Challenge != nil {
			t.Errorf("INITIATE %v", &init)
		}
		h := okHeader(callIDSASL)
		h.Status = hadooppb.RpcResponseHeaderProto_FATAL.Enum()
		h.ExceptionClassName = proto.String("javax.security.sasl.SaslException")
		h.ErrorMsg = proto.String("DIGEST-MD5: digest response format violation")
		c.reply(t, h, nil)
		return errors.New("rejected")
	}
	am := NewAMRMClient(s.addr(), Token{Identifier: []byte("id"), Password: []byte("pw")}, fastRetry())
	defer am.Close()
	_, err := am.RegisterApplicationMaster(context.Background(), "h", 0, "")
	var re *RemoteError
	if !errors.As(err, &re) || !re.Fatal || !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("got %v, want a fatal RemoteError matching ErrInvalidToken", err)
	}
}
