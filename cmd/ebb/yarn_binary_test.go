package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/yarnclient"
)

// TestYarnBinaryUploadedOnce: two `ebb submit` runs of one build. The
// first uploads the binary to /user/<user>/.ebb/lib/<sha256>/ebb; the
// second uploads nothing (it says so, and the file in HDFS keeps its
// modification time), and each NodeManager that ran a container of either
// application holds exactly one downloaded copy, in its public cache, none
// in the applications' own caches.
func TestYarnBinaryUploadedOnce(t *testing.T) {
	y := newYarnTest(t)
	// A build of its own (ebb with a trailer no other run has): other
	// tests on this cluster share ebbBin's upload and its cached copies.
	bin, sum, size := uniqueBuild(t)
	lib := yarnclient.LibPath(y.user, sum)
	t.Cleanup(func() { _ = y.fs.RemoveAll(filepath.Dir(lib)) })
	// /user and the home directory searchable by others, as on a cluster
	// whose admin made them (HDFS's default umask gives 0755). Here the
	// first test to stage anything created both, and ebb's staging
	// directory makes missing parents 0700; then the binary is rightly
	// APPLICATION (unit-tested in yarnclient). This only ever adds search
	// permission, so no other test's PUBLIC resource can become unreadable.
	for _, d := range []string{"/user", "/user/" + y.user} {
		if info, err := y.fs.Info(d); err == nil && info.Perm&0o001 == 0 {
			if err := y.fs.Chmod(d, info.Perm|0o011); err != nil {
				t.Fatal(err)
			}
		}
	}

	// Three 1536 MB workers, at most two per 4096 MB NodeManager: each
	// application uses at least two of the three nodes, so at least one
	// node runs containers of both.
	spec := y.writeDAG(`
name: binary-once
containerGroup: {name: b, workerMemoryMB: 1536}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "1", --seconds, "3"], parallelism: 3, memoryMB: 1536}
`)
	id1, out := submitAndWait(t, y, bin, spec)
	if !strings.Contains(out, "uploaded ebb binary to "+y.fs.URL(lib)) {
		t.Fatalf("first submit did not upload to %s:\n%s", lib, out)
	}
	first, err := y.fs.Info(lib)
	if err != nil {
		t.Fatal(err)
	}
	if first.Size != size || first.Perm&0o004 == 0 {
		t.Errorf("%s: %d bytes, mode %s; want %d bytes readable by others", lib, first.Size, first.Perm, size)
	}
	id2, out := submitAndWait(t, y, bin, spec)
	if want := "reusing ebb binary at " + y.fs.URL(lib) + " (uploaded earlier)"; !strings.Contains(out, want) || strings.Contains(out, "uploaded ebb binary") {
		t.Errorf("second submit did not say %q alone:\n%s", want, out)
	}
	second, err := y.fs.Info(lib)
	if err != nil {
		t.Fatal(err)
	}
	if second.ModTime != first.ModTime {
		t.Errorf("the binary's modification time changed from %d to %d: uploaded again", first.ModTime, second.ModTime)
	}
	apps := []yarn.AppID{id1, id2}

	// Where the NodeManagers put their copies of this build.
	n, _ := strconv.Atoi(testcluster.EnvValue(t, "NM_COUNT"))
	both := 0
	for i := 0; i < n; i++ {
		ran := 0
		for _, id := range apps {
			if c, _ := filepath.Glob(filepath.Join(testcluster.EnvValue(t, fmt.Sprintf("NM%d_LOG_DIRS", i)), id.String(), "container_*")); len(c) > 0 {
				ran++
			}
		}
		if ran == 2 {
			both++
		}
		public, private := localisedCopies(t, i, apps, sum, size)
		t.Logf("NodeManager %d: containers of %d of the 2 applications; copies of the binary: %d public %v, %d per application %v",
			i, ran, len(public), public, len(private), private)
		want := 0
		if ran > 0 {
			want = 1
		}
		if len(public) != want || len(private) != 0 {
			t.Errorf("NodeManager %d ran containers of %d applications and holds %d public and %d per-application copies; want %d and 0",
				i, ran, len(public), len(private), want)
		}
	}
	if both == 0 {
		t.Fatalf("no NodeManager ran containers of both applications: nothing shows one download serving two")
	}
}

// submitAndWait runs `ebb submit --detach` of bin (it returns once the AM
// is RUNNING), waits for the application to succeed, and logs both times.
func submitAndWait(t *testing.T, y *yarnTest, bin, spec string) (yarn.AppID, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, bin, append([]string{"submit", spec, "--detach"}, amSets...)...)
	cmd.Env = append(os.Environ(), "HADOOP_CONF_DIR="+y.confDir, "EBB_CONF_DIR=", "EBB_LOCAL_DIR=")
	b, err := cmd.CombinedOutput()
	out := string(b)
	running := time.Since(start)
	if err != nil {
		t.Fatalf("ebb submit --detach: %v\n%s", err, out)
	}
	// Not the first id in the output: the sweep names ended applications.
	_, submitted, _ := strings.Cut(out, "submitted application ")
	id := y.appID(submitted)
	y.waitFor(id.String()+" to end", 90*time.Second, func() bool { return y.report(id).State.Done() })
	r := y.report(id)
	t.Logf("%s: submit to RUNNING %s, submit to %s %s:\n%s", id, running.Round(time.Millisecond), r.Final,
		time.Since(start).Round(time.Millisecond), out)
	if r.State != yarn.StateFinished || r.Final != yarn.Succeeded {
		t.Fatalf("%s ended %s %s: %s", id, r.State, r.Final, r.Diagnostics)
	}
	return id, out
}

// uniqueBuild copies ebbBin with a trailer of this run's own (the loader
// ignores bytes past the ELF's segments) and returns it, its SHA-256 and
// its size.
func uniqueBuild(t *testing.T) (string, string, int64) {
	t.Helper()
	src, err := os.Open(ebbBin)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	p := filepath.Join(t.TempDir(), "ebb")
	dst, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(dst, h), src)
	if err == nil {
		var m int
		m, err = fmt.Fprintf(io.MultiWriter(dst, h), "\nebb test build %d\n", time.Now().UnixNano())
		n += int64(m)
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return p, hex.EncodeToString(h.Sum(nil)), n
}

// localisedCopies finds NodeManager i's downloaded copies of the build
// (by size, then content): in its public cache (filecache/), and in the
// caches of the given applications (usercache/<user>/appcache/<app>/).
func localisedCopies(t *testing.T, i int, apps []yarn.AppID, sum string, size int64) (public, private []string) {
	t.Helper()
	for _, dir := range strings.Split(testcluster.EnvValue(t, fmt.Sprintf("NM%d_LOCAL_DIRS", i)), ",") {
		pub, _ := filepath.Glob(filepath.Join(dir, "filecache", "*", "ebb"))
		public = append(public, sameBuild(t, pub, sum, size)...)
		for _, id := range apps {
			app, _ := filepath.Glob(filepath.Join(dir, "usercache", "*", "appcache", id.String(), "filecache", "*", "ebb"))
			private = append(private, sameBuild(t, app, sum, size)...)
		}
	}
	return public, private
}

func sameBuild(t *testing.T, paths []string, sum string, size int64) []string {
	var out []string
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || fi.Size() != size {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err == nil && hex.EncodeToString(h.Sum(nil)) == sum {
			out = append(out, p)
		}
	}
	return out
}

// TestYarnLibURI: ebb.lib.uri names a binary installed in HDFS; a submit
// uploads nothing and the application runs it. A path with nothing there
// is refused before anything is submitted, naming the key and the path.
func TestYarnLibURI(t *testing.T) {
	y := newYarnTest(t)
	bin, _, _ := uniqueBuild(t)
	installed := y.dir + "/installed/ebb"
	if err := y.fs.MkdirMode(y.dir+"/installed", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := y.fs.Upload(bin, installed, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := y.writeDAG(`
name: lib-uri
containerGroup: {name: b, workerMemoryMB: 256}
vertices:
  - {name: burn, command: [ebb, task, burn, --memory-mb, "1", --seconds, "0.2"], parallelism: 2, memoryMB: 128}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	out, err := y.ebb(ctx, append([]string{"submit", spec, "--set", "ebb.lib.uri=" + y.fs.URL(installed)}, amSets...)...)
	t.Logf("ebb submit with ebb.lib.uri:\n%s", out)
	if err != nil {
		t.Fatalf("ebb submit: %v", err)
	}
	if want := "using the ebb binary at " + y.fs.URL(installed) + " (ebb.lib.uri); nothing uploaded"; !strings.Contains(out, want) || strings.Contains(out, "uploaded ebb binary") {
		t.Errorf("output lacks %q", want)
	}
	if r := y.report(y.appID(out[strings.Index(out, "submitted application"):])); r.Final != yarn.Succeeded {
		t.Errorf("%s %s: %s", r.State, r.Final, r.Diagnostics)
	}

	missing := y.fs.URL(y.dir + "/nowhere/ebb")
	out, err = y.ebb(ctx, append([]string{"submit", spec, "--set", "ebb.lib.uri=" + missing}, amSets...)...)
	t.Logf("ebb submit with a missing ebb.lib.uri:\n%s", out)
	if err == nil || !strings.Contains(out, "ebb.lib.uri") || !strings.Contains(out, missing+" does not") || strings.Contains(out, "submitted application") {
		t.Errorf("a missing ebb.lib.uri: err %v, output above; want a refusal naming the key and %s before any submission", err, missing)
	}
}
