// Package s3test lets tests find the S3 server they run against, the
// s3proxy that scripts/s3server/start.sh starts: EBB_TEST_S3_DIR names its
// run directory, whose s3.env holds S3_ENDPOINT, AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_REGION. Without the variable a test skips
// with a loud reason, except under CI=true, where it fails.
//
//	export EBB_TEST_S3_DIR=$(scripts/s3server/start.sh)
//
// It is for tests.
package s3test

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// EnvDir names the variable that points tests at the server.
const EnvDir = "EBB_TEST_S3_DIR"

// Server is the test S3 server.
type Server struct {
	Endpoint, AccessKey, SecretKey, Region string
}

// Find returns the server, or skips (fails under CI=true).
func Find(t testing.TB) Server {
	t.Helper()
	dir := os.Getenv(EnvDir)
	if dir == "" {
		const hint = "start one with\n\texport " + EnvDir + "=$(scripts/s3server/start.sh)"
		if os.Getenv("CI") == "true" {
			t.Fatalf("test %s needs the S3 server: %s is unset and CI=true; %s", t.Name(), EnvDir, hint)
		}
		t.Skipf("SKIPPING S3 TEST %s: no S3 server (%s is unset); %s", t.Name(), EnvDir, hint)
	}
	f, err := os.Open(filepath.Join(dir, "s3.env"))
	if err != nil {
		t.Fatalf("%s=%s: %v (is the server still running?)", EnvDir, dir, err)
	}
	defer func() { _ = f.Close() }()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	s := Server{Endpoint: env["S3_ENDPOINT"], AccessKey: env["AWS_ACCESS_KEY_ID"], SecretKey: env["AWS_SECRET_ACCESS_KEY"], Region: env["AWS_REGION"]}
	if s.Endpoint == "" || s.SecretKey == "" {
		t.Fatalf("%s/s3.env lacks S3_ENDPOINT or AWS_SECRET_ACCESS_KEY", dir)
	}
	return s
}

// Keys are the server's settings as Hadoop's fs.s3a.* keys.
func (s Server) Keys() map[string]string {
	return map[string]string{
		"fs.s3a.endpoint": s.Endpoint, "fs.s3a.path.style.access": "true", "fs.s3a.endpoint.region": s.Region,
		"fs.s3a.access.key": s.AccessKey, "fs.s3a.secret.key": s.SecretKey,
	}
}

// Lookup reads Keys, as a conf lookup.
func (s Server) Lookup(k string) (string, bool) {
	v, ok := s.Keys()[k]
	return v, ok
}

// Env is the server's settings as the AWS CLI's environment.
func (s Server) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + s.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s.SecretKey,
		"AWS_DEFAULT_REGION=" + s.Region, "AWS_REGION=" + s.Region}
}

// BucketName is a fresh bucket name for one test (S3's rules: lower case,
// digits and dashes, 3 to 63 characters).
func BucketName(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}
