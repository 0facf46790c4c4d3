package main

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runEbbEnv is runEbb with extra environment (later entries win).
func runEbbEnv(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	cmd, cancel := ebbCommand(args...)
	defer cancel()
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// A HADOOP_CONF_DIR that is not there, or holds no yarn-site.xml, is an
// error naming it, never a silent 0.0.0.0:8032.
func TestSubmitRefusesAMissingHadoopConfDir(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		dir, want string
	}{
		{"/nope", "HADOOP_CONF_DIR=/nope is not a directory"},
		{empty, "HADOOP_CONF_DIR=" + empty + " has no yarn-site.xml"},
	} {
		out, err := runEbbEnv(t, []string{"HADOOP_CONF_DIR=" + tc.dir}, "submit", "--detach", "examples/wordcount.yaml")
		if err == nil || !strings.Contains(out, tc.want) {
			t.Errorf("HADOOP_CONF_DIR=%s: err %v, output %q; want a failure saying %q", tc.dir, err, out, tc.want)
		}
		if strings.Contains(out, "0.0.0.0:8032") {
			t.Errorf("HADOOP_CONF_DIR=%s: it tried 0.0.0.0:8032: %s", tc.dir, out)
		}
	}
}

// An RM that accepts connections and never answers: `ebb submit` fails
// within ipc.client.rpc-timeout.ms, naming the address and the key, instead
// of hanging (ebbCommand's 3-minute limit is the guard).
func TestSubmitToASilentRMTimesOut(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c); _ = c.Close() }()
		}
	}()
	dir := t.TempDir()
	site := func(name, key, value string) {
		body := `<?xml version="1.0"?><configuration><property><name>` + key + `</name><value>` + value + `</value></property></configuration>`
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	site("yarn-site.xml", "yarn.resourcemanager.address", l.Addr().String())
	site("core-site.xml", "ipc.client.rpc-timeout.ms", "2000")
	out, err := runEbbEnv(t, []string{"HADOOP_CONF_DIR=" + dir}, "submit", "--detach", "examples/wordcount.yaml")
	if err == nil {
		t.Fatalf("ebb submit to a silent RM succeeded:\n%s", out)
	}
	for _, want := range []string{l.Addr().String(), "ipc.client.rpc-timeout.ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("the error does not name %q:\n%s", want, out)
		}
	}
}
