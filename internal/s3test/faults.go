package s3test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// Faults is a small HTTP proxy in front of the real S3 server that injects
// the faults a test names, and passes everything else through untouched
// (the Host header included, so the clients' SigV4 signatures still hold).
// Point a client at Server() instead of the real one.
type Faults struct {
	srv  Server
	http *httptest.Server

	// RefuseMultipart answers every CreateMultipartUpload with 501
	// NotImplemented, as a gateway without multipart support does.
	RefuseMultipart bool
	// CutUploadOf, when set, cuts the connection after CutAfter bytes of
	// the body of every UploadPart of the first multipart upload to a key
	// it matches (later uploads to such keys, a retry's, pass).
	CutUploadOf func(key string) bool
	CutAfter    int64
	// ThenForget: after the first cut, the victim's parts are answered
	// 404 NoSuchUpload (the store dropped the upload), which the client
	// does not retry: its attempt fails at once instead of after the
	// SDK's backoff.
	ThenForget bool

	mu      sync.Mutex
	victim  string // the upload id being cut
	cuts    int
	refused int
}

// NewFaults starts the proxy in front of srv; it stops with the test.
func NewFaults(t testing.TB, srv Server) *Faults {
	t.Helper()
	target, err := url.Parse(srv.Endpoint)
	if err != nil {
		t.Fatalf("the S3 endpoint %q: %v", srv.Endpoint, err)
	}
	f := &Faults{srv: srv}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host // signed by the client as it reached us
	}}
	f.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.fault(w, r) {
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(f.http.Close)
	return f
}

// Server is the real server as reached through the proxy.
func (f *Faults) Server() Server {
	s := f.srv
	s.Endpoint = f.http.URL
	return s
}

// Counts says how many connections were cut and how many multipart
// uploads refused.
func (f *Faults) Counts() (cuts, refused int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cuts, f.refused
}

// fault injects a fault into r's answer, if one applies, and says so.
func (f *Faults) fault(w http.ResponseWriter, r *http.Request) bool {
	q := r.URL.Query()
	_, creating := q["uploads"]
	if r.Method == http.MethodPost && creating && f.RefuseMultipart {
		f.mu.Lock()
		f.refused++
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusNotImplemented)
		_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+
			`<Error><Code>NotImplemented</Code><Message>A header you provided implies functionality that is not implemented</Message></Error>`)
		return true
	}
	id := q.Get("uploadId")
	if r.Method != http.MethodPut || id == "" || q.Get("partNumber") == "" || f.CutUploadOf == nil {
		return false
	}
	key := strings.TrimPrefix(r.URL.Path, "/")
	if _, k, ok := strings.Cut(key, "/"); ok {
		key = k // path-style: /BUCKET/KEY
	}
	f.mu.Lock()
	if f.victim == "" && f.CutUploadOf(key) {
		f.victim = id
	}
	cut := f.victim == id
	forget := cut && f.ThenForget && f.cuts > 0
	if cut && !forget {
		f.cuts++
	}
	f.mu.Unlock()
	if !cut {
		return false
	}
	if forget {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+
			`<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist</Message></Error>`)
		return true
	}
	_, _ = io.CopyN(io.Discard, r.Body, f.CutAfter)
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = conn.Close()
		return true
	}
	panic(http.ErrAbortHandler) // closes the connection without an answer
}
