package yarnrpc

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Recorded exchanges: a recording net.Conn captures what a real client
// and a real server said (integration tests write them to testdata/ when
// EBB_YARNRPC_CAPTURE=1), and a replaying net.Conn (replayconn_test.go)
// plays the server's bytes back while checking that the client says
// exactly what it said then.

// recordingConn tees both directions of a live connection.
type recordingConn struct {
	net.Conn
	mu             sync.Mutex
	client, server bytes.Buffer
}

func (r *recordingConn) Write(p []byte) (int, error) {
	n, err := r.Conn.Write(p)
	r.mu.Lock()
	r.client.Write(p[:n])
	r.mu.Unlock()
	return n, err
}

func (r *recordingConn) Read(p []byte) (int, error) {
	n, err := r.Conn.Read(p)
	r.mu.Lock()
	r.server.Write(p[:n])
	r.mu.Unlock()
	return n, err
}

func (r *recordingConn) bytes() (client, server []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Clone(r.client.Bytes()), bytes.Clone(r.server.Bytes())
}

// recorder dials real connections and keeps the last one.
type recorder struct {
	mu   sync.Mutex
	last *recordingConn
}

func (r *recorder) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	rc := &recordingConn{Conn: c}
	r.mu.Lock()
	r.last = rc
	r.mu.Unlock()
	return rc, nil
}

// recording is the metadata saved next to a capture's .client/.server files.
type recording struct {
	Note       string `json:"note"`
	Protocol   string `json:"protocol"`
	Method     string `json:"method"`
	ClientID   string `json:"client_id"` // base64
	User       string `json:"user,omitempty"`
	Cnonce     string `json:"cnonce,omitempty"`
	TokenID    string `json:"token_identifier,omitempty"` // base64
	TokenPW    string `json:"token_password,omitempty"`   // base64
	TokenKind  string `json:"token_kind,omitempty"`
	Hadoop     string `json:"hadoop_version,omitempty"`
	CapturedAt string `json:"captured_at"`
}

// saveRecording writes testdata/NAME.{json,client,server} when
// EBB_YARNRPC_CAPTURE=1.
func saveRecording(t *testing.T, name string, meta recording, rc *recordingConn) {
	t.Helper()
	if os.Getenv("EBB_YARNRPC_CAPTURE") != "1" {
		return
	}
	client, server := rc.bytes()
	meta.CapturedAt = time.Now().UTC().Format(time.RFC3339)
	js, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	for ext, b := range map[string][]byte{".json": append(js, '\n'), ".client": client, ".server": server} {
		if err := os.WriteFile(filepath.Join("testdata", name+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("captured %s: %d client bytes, %d server bytes", name, len(client), len(server))
}

func loadRecording(t *testing.T, name string) (recording, []byte, []byte) {
	t.Helper()
	var meta recording
	js, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatalf("recording %s missing (capture it with EBB_YARNRPC_CAPTURE=1, see testdata/README.md): %v", name, err)
	}
	if err := json.Unmarshal(js, &meta); err != nil {
		t.Fatal(err)
	}
	client, err := os.ReadFile(filepath.Join("testdata", name+".client"))
	if err != nil {
		t.Fatal(err)
	}
	server, err := os.ReadFile(filepath.Join("testdata", name+".server"))
	if err != nil {
		t.Fatal(err)
	}
	return meta, client, server
}

func b64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
