package s3fs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ebb-am/ebb/internal/s3test"
	"github.com/ebb-am/ebb/s3fs"
)

func TestParse(t *testing.T) {
	for _, c := range []struct{ in, bucket, key string }{
		{"s3://b/k/x", "b", "k/x"}, {"s3a://b/k/", "b", "k"}, {"s3://b", "b", ""},
	} {
		l, err := s3fs.Parse(c.in)
		if err != nil || l.Bucket != c.bucket || l.Key != c.key {
			t.Errorf("Parse(%q) = %+v, %v", c.in, l, err)
		}
	}
	for _, bad := range []string{"s3:///k", "hdfs://nn/x", "/local"} {
		if _, err := s3fs.Parse(bad); err == nil {
			t.Errorf("Parse(%q) passed", bad)
		}
	}
}

// Per-bucket keys override the general ones, as in S3A; a bare endpoint
// takes its scheme from fs.s3a.connection.ssl.enabled; half a key pair and
// a bad boolean are errors naming the key, never the secret's value.
func TestSettingsFor(t *testing.T) {
	keys := map[string]string{
		"fs.s3a.endpoint": "s3.example.com", "fs.s3a.path.style.access": "false",
		"fs.s3a.access.key": "AK", "fs.s3a.secret.key": "SK",
		"fs.s3a.bucket.special.endpoint": "10.0.0.1:9000", "fs.s3a.bucket.special.connection.ssl.enabled": "false",
		"fs.s3a.bucket.special.path.style.access": "true", "fs.s3a.bucket.special.access.key": "AK2",
		"fs.s3a.bucket.special.secret.key": "SK2",
	}
	lookup := func(k string) (string, bool) { v, ok := keys[k]; return v, ok }
	s, err := s3fs.SettingsFor("plain", lookup)
	if err != nil || s.Endpoint != "https://s3.example.com" || s.PathStyle || s.AccessKey != "AK" || s.SecretKey != "SK" {
		t.Errorf("plain: %+v %v", s, err)
	}
	s, err = s3fs.SettingsFor("special", lookup)
	if err != nil || s.Endpoint != "http://10.0.0.1:9000" || !s.PathStyle || s.AccessKey != "AK2" || s.SecretKey != "SK2" {
		t.Errorf("special: %+v %v", s, err)
	}
	keys["fs.s3a.bucket.half.access.key"] = "only"
	keys["fs.s3a.secret.key"] = ""
	delete(keys, "fs.s3a.access.key")
	if _, err := s3fs.SettingsFor("half", lookup); err == nil || !strings.Contains(err.Error(), "fs.s3a.bucket.half.access.key") {
		t.Errorf("half a key pair: %v", err)
	}
	keys["fs.s3a.path.style.access"] = "yes please"
	if _, err := s3fs.SettingsFor("plain", lookup); err == nil || !strings.Contains(err.Error(), "fs.s3a.path.style.access") {
		t.Errorf("a bad boolean: %v", err)
	}
}

// Bad input against the real server: a missing bucket, a wrong secret, an
// endpoint nobody listens on. Each is one line naming the URI and what to
// do, and holds no secret.
func TestErrorsNameTheURIAndNoSecret(t *testing.T) {
	srv := s3test.Find(t)
	ctx := context.Background()
	wrongSecret := "not-the-secret-4f1c"
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	_ = dead.Close()
	for _, c := range []struct {
		name string
		keys map[string]string
		uri  string
		want string
	}{
		{"no bucket", srv.Keys(), "s3://no-such-bucket-ebb/x", "bucket does not exist"},
		{"wrong secret", with(srv.Keys(), "fs.s3a.secret.key", wrongSecret), "s3://any-bucket-ebb/x", "refused the credentials"},
		{"dead endpoint", with(srv.Keys(), "fs.s3a.endpoint", "http://"+deadAddr), "s3://any-bucket-ebb/x", "fs.s3a.endpoint"},
	} {
		st := s3fs.NewStore(func(k string) (string, bool) { v, ok := c.keys[k]; return v, ok })
		l, _ := s3fs.Parse(c.uri)
		_, err := st.Get(ctx, l)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.uri) || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q, want one line naming %s and saying %q", c.name, msg, c.uri, c.want)
		}
		if strings.Contains(msg, srv.SecretKey) || strings.Contains(msg, wrongSecret) {
			t.Errorf("%s: the error holds the secret: %q", c.name, msg)
		}
	}
}

func with(m map[string]string, k, v string) map[string]string {
	out := map[string]string{}
	for a, b := range m {
		out[a] = b
	}
	out[k] = v
	return out
}

// Listing and globs on the real server, hidden names skipped; a ranged
// read from an offset; a multipart upload of more than one part streamed
// and completed.
func TestListReadAndUpload(t *testing.T) {
	st, b := bucket(t)
	ctx := context.Background()
	at := func(k string) s3fs.Location { return s3fs.Location{Scheme: "s3", Bucket: b, Key: k} }
	for k, v := range map[string]string{"in/a.txt": "aaaa", "in/b.txt": "bb", "in/c.csv": "c", "in/_SUCCESS": "",
		"in/sub/d.txt": "ddd", "in/.hidden/e.txt": "e", "in/_temporary/x/f.txt": "f"} {
		if err := st.Put(ctx, at(k), []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	l := s3fs.Lister{Store: st}
	for pattern, want := range map[string]string{
		"s3://" + b + "/in":            "in/a.txt:4 in/b.txt:2 in/c.csv:1 in/sub/d.txt:3",
		"s3://" + b + "/in/*.txt":      "in/a.txt:4 in/b.txt:2",
		"s3a://" + b + "/in/s*":        "in/sub/d.txt:3",
		"s3://" + b + "/in/b.txt":      "in/b.txt:2",
		"s3://" + b + "/in/nothing*":   "",
		"s3://" + b + "/in/[ab].txt":   "in/a.txt:4 in/b.txt:2",
		"s3://" + b + "/missing/place": "",
	} {
		fis, err := l.List(pattern)
		if err != nil {
			t.Fatalf("List(%s): %v", pattern, err)
		}
		var got []string
		for _, fi := range fis {
			got = append(got, fmt.Sprintf("%s:%d", fi.Path[strings.Index(fi.Path, b)+len(b)+1:], fi.Size))
		}
		if strings.Join(got, " ") != want {
			t.Errorf("List(%s) = %v, want %s", pattern, got, want)
		}
	}

	body := bytes.Repeat([]byte("0123456789abcdef"), (s3fs.PartSize+1000)/16)
	w, err := st.Begin(ctx, at("big/file"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w, bytes.NewReader(body)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(w.Upload().Parts); n != 2 {
		t.Errorf("%d bytes went up in %d parts, want 2 of at most %d", len(body), n, s3fs.PartSize)
	}
	if _, _, err := st.Head(ctx, at("big/file")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a pending upload is visible: %v", err)
	}
	u := w.Upload()
	if err := st.Bucket(at("")).Complete(u); err != nil {
		t.Fatal(err)
	}
	r, err := st.Open(ctx, at("big/file"))
	if err != nil {
		t.Fatal(err)
	}
	off := int64(s3fs.PartSize - 5)
	if _, err := r.Seek(off, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, body[off:]) {
		t.Errorf("read from %d: %d bytes, %v; want %d bytes", off, len(got), err, len(body)-int(off))
	}
}

// A fake S3 that answers 503 SlowDown twice, then drops a GET's stream
// part-way: the Store retries the throttled calls with backoff and the
// Reader resumes where the stream broke, so the bytes read are whole.
func TestRetriesThrottlingAndResumesABrokenStream(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 100000)
	var heads, gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodHead:
			if heads.Add(1) <= 2 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.Header().Set("ETag", `"e1"`)
		case http.MethodGet:
			var from int
			_, _ = fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &from)
			rest := body[from:]
			w.Header().Set("Content-Length", fmt.Sprint(len(rest)))
			w.Header().Set("ETag", `"e1"`)
			w.WriteHeader(http.StatusPartialContent)
			if gets.Add(1) == 1 {
				// Half the stream, then the connection drops.
				_, _ = w.Write(rest[:len(rest)/2])
				w.(http.Flusher).Flush()
				conn, _, _ := w.(http.Hijacker).Hijack()
				_ = conn.Close()
				return
			}
			_, _ = w.Write(rest)
		}
	}))
	defer srv.Close()
	keys := map[string]string{"fs.s3a.endpoint": srv.URL, "fs.s3a.path.style.access": "true",
		"fs.s3a.access.key": "a", "fs.s3a.secret.key": "s"}
	st := s3fs.NewStore(func(k string) (string, bool) { v, ok := keys[k]; return v, ok })
	r, err := st.Open(context.Background(), s3fs.Location{Scheme: "s3", Bucket: "b", Key: "k"})
	if err != nil {
		t.Fatalf("Open after two 503s: %v", err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, body) {
		t.Errorf("read %d bytes, %v; want %d", len(got), err, len(body))
	}
	if heads.Load() != 3 || gets.Load() != 2 {
		t.Errorf("%d HEADs and %d GETs, want 3 (two throttled) and 2 (one broken)", heads.Load(), gets.Load())
	}
}
