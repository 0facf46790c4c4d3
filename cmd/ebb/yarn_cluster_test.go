package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/yarnclient"
)

// Helpers of the YARN integration tests: they run the ebb binary built in
// TestMain against the minicluster named by EBB_TEST_HADOOP_CONF_DIR, as a
// user on a gateway would (HADOOP_CONF_DIR, ebb submit, ebb kill).

// yarnTest is one test's view of the cluster.
type yarnTest struct {
	t       *testing.T
	confDir string
	rm      *yarn.Client
	fs      *hdfsfs.FS
	user    string
	dir     string // an HDFS directory of this test's own
	env     []string
}

func newYarnTest(t *testing.T) *yarnTest {
	t.Helper()
	confDir := testcluster.ConfDir(t)
	user := yarnclient.User()
	fs, err := hdfsfs.Dial(testcluster.DefaultFS(t), user)
	if err != nil {
		t.Fatal(err)
	}
	// Every RM under RM HA (the faults cluster), failing over as ebb does.
	rm := yarn.NewHAClient(testcluster.RMAddresses(t), user)
	rm.SetRetry(testRetry)
	y := &yarnTest{t: t, confDir: confDir, rm: rm, fs: fs, user: user,
		dir: fmt.Sprintf("/user/%s/ebb-test/%s-%d", user, t.Name(), time.Now().UnixNano())}
	t.Cleanup(func() {
		fs.RemoveAll(y.dir)
		fs.Close()
		rm.Close()
	})
	return y
}

// testRetry is how the tests' own RM client outlasts an RM restart or
// failover: quicker than Hadoop's defaults, and bounded well inside each
// test's deadline.
var testRetry = yarn.Retry{MaxWait: 2 * time.Minute, Interval: 500 * time.Millisecond, FailoverAttempts: -1,
	FailoverBase: 200 * time.Millisecond, FailoverMax: time.Second}

// client is a yarnclient.Client of the cluster, configured as ebb's
// commands are on a gateway: from HADOOP_CONF_DIR alone.
func (y *yarnTest) client() *yarnclient.Client {
	y.t.Helper()
	c, _, err := conf.Load(conf.LoadOptions{Getenv: func(k string) string {
		if k == "HADOOP_CONF_DIR" {
			return y.confDir
		}
		return ""
	}})
	if err != nil {
		y.t.Fatal(err)
	}
	yc, err := yarnclient.New(yarnclient.Options{Conf: c, User: y.user, Binary: ebbBin})
	if err != nil {
		y.t.Fatal(err)
	}
	y.t.Cleanup(func() { _ = yc.Close() })
	return yc
}

// ebb runs the ebb binary with the cluster's HADOOP_CONF_DIR and small
// AM settings (the minicluster's largest container is 2 GB).
func (y *yarnTest) ebb(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, ebbBin, args...)
	cmd.Env = append(os.Environ(), "HADOOP_CONF_DIR="+y.confDir, "EBB_CONF_DIR=", "EBB_LOCAL_DIR=")
	cmd.Env = append(cmd.Env, y.env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// amSets are --set flags every test's AM runs with: a small AM container
// and a fast heartbeat, so the suite stays short.
var amSets = []string{
	"--set", "mr3.am.resource.memory.mb=256",
	"--set", "mr3.am.rm.heartbeat.interval.ms=250",
	"--set", "ebb.am.worker.heartbeat.interval.ms=250",
	"--set", "mr3.am.max.app.attempts=1",
}

var appIDRe = regexp.MustCompile(`application_\d+_\d+`)

var submittedRe = regexp.MustCompile(`submitted application (application_\d+_\d+)`)

func (y *yarnTest) appID(out string) yarn.AppID {
	y.t.Helper()
	// The submitted application's line, not the first id: ebb submit first
	// says which ended applications' staging it removed.
	s := appIDRe.FindString(out)
	if m := submittedRe.FindStringSubmatch(out); m != nil {
		s = m[1]
	}
	id, err := yarn.ParseAppID(s)
	if err != nil {
		y.t.Fatalf("no application id in the output of ebb submit:\n%s", out)
	}
	return id
}

func (y *yarnTest) report(id yarn.AppID) yarn.AppReport {
	y.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := y.rm.Report(ctx, id)
	if err != nil {
		y.t.Fatalf("report of %s: %v", id, err)
	}
	return r
}

// waitFor polls cond every 100 ms until it holds or the deadline passes.
func (y *yarnTest) waitFor(what string, timeout time.Duration, cond func() bool) {
	y.t.Helper()
	waitUntil(y.t, what, timeout, 100*time.Millisecond, cond)
}

// waitUntil polls cond every period until it holds, failing the test with
// what when timeout passes first: the one way tests here wait for a
// condition.
func waitUntil(t testing.TB, what string, timeout, period time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(period)
	}
}

func (y *yarnTest) getJSON(url string, into any) {
	y.t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		y.t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		y.t.Fatalf("GET %s: %v", url, err)
	}
}

// runningContainers counts the application's live containers: the RM's
// count while it runs (its REST API; the RPC report does not carry it; -1
// once the application ended) plus, after the end, the containers the
// NodeManagers still hold in any state but COMPLETE/DONE.
func (y *yarnTest) runningContainers(id yarn.AppID) int {
	y.t.Helper()
	var r struct {
		App struct {
			RunningContainers int `json:"runningContainers"`
		} `json:"app"`
	}
	y.getJSON(testcluster.RMWebURL(y.t)+"/ws/v1/cluster/apps/"+id.String(), &r)
	if r.App.RunningContainers > 0 {
		return r.App.RunningContainers
	}
	live := 0
	n, _ := strconv.Atoi(testcluster.EnvValue(y.t, "NM_COUNT"))
	for i := 0; i < n; i++ {
		var cs struct {
			Containers struct {
				Container []struct {
					ID    string `json:"id"`
					State string `json:"state"`
				} `json:"container"`
			} `json:"containers"`
		}
		y.getJSON("http://"+testcluster.EnvValue(y.t, fmt.Sprintf("NM%d_HTTP", i))+"/ws/v1/node/containers", &cs)
		for _, c := range cs.Containers.Container {
			if strings.Contains(c.ID, strings.TrimPrefix(id.String(), "application_")) && c.State != "COMPLETE" && c.State != "DONE" {
				live++
			}
		}
	}
	return live
}

// containerLogs maps each NodeManager log dir to the application's
// container directories in it.
func (y *yarnTest) containerLogs(id yarn.AppID) map[string][]string {
	out := map[string][]string{}
	for _, d := range testcluster.NMLogDirs(y.t) {
		cs, _ := filepath.Glob(filepath.Join(d, id.String(), "container_*"))
		if len(cs) > 0 {
			out[d] = cs
		}
	}
	return out
}

// hdfsCounts reads every word\tcount line of the part files under dir.
func (y *yarnTest) hdfsCounts(dir string) map[string]int {
	y.t.Helper()
	files, err := hdfsfs.Lister{FS: y.fs}.List(y.fs.URL(dir + "/part-*"))
	if err != nil || len(files) == 0 {
		y.t.Fatalf("no part files in hdfs %s (%v)", dir, err)
	}
	got := map[string]int{}
	for _, f := range files {
		p, _ := y.fs.Path(f.Path)
		b, err := y.fs.ReadFile(p)
		if err != nil {
			y.t.Fatal(err)
		}
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for sc.Scan() {
			word, n, ok := strings.Cut(sc.Text(), "\t")
			c, err := strconv.Atoi(n)
			if !ok || err != nil {
				y.t.Fatalf("%s: bad line %q", f.Path, sc.Text())
			}
			if _, dup := got[word]; dup {
				y.t.Fatalf("%s: word %q appears in two reduce outputs", f.Path, word)
			}
			got[word] = c
		}
	}
	return got
}

// countText is the test's own word counter (as countWords, on a string).
func countText(s string) map[string]int {
	counts := map[string]int{}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		counts[strings.ToLower(w)]++
	}
	return counts
}

// writeDAG writes a DAG spec to a local temp file.
func (y *yarnTest) writeDAG(spec string) string {
	p := filepath.Join(y.t.TempDir(), "dag.yaml")
	if err := os.WriteFile(p, []byte(spec), 0o644); err != nil {
		y.t.Fatal(err)
	}
	return p
}

// submitted is what a followed `ebb submit` said.
type submitted struct {
	out string
	err error
}

// submitFollowed runs `ebb submit args...` in the background (it follows
// its DAG to the end) and waits for the EBB application named name to
// appear; the channel gives what the submit said once it exits.
func (y *yarnTest) submitFollowed(ctx context.Context, name string, args ...string) (yarn.AppID, <-chan submitted) {
	y.t.Helper()
	done := make(chan submitted, 1)
	go func() {
		out, err := y.ebb(ctx, append([]string{"submit"}, args...)...)
		done <- submitted{out, err}
	}()
	var id yarn.AppID
	y.waitFor("the application "+name+" to appear", 60*time.Second, func() bool {
		apps, err := y.rm.Apps(ctx, []string{"EBB"}, []yarn.AppState{yarn.StateRunning, yarn.StateAccepted}, []string{y.user})
		for _, a := range apps {
			if err == nil && a.Name == name {
				id = a.ID
				return true
			}
		}
		return false
	})
	return id, done
}

// startSession starts a detached session AM named name (`ebb submit
// --detach`, ebb.session.idle.timeout.secs=600 so that it outlives a
// slow test's pauses) with the settings sets, and returns its id. The
// caller kills it when done with it.
func (y *yarnTest) startSession(ctx context.Context, name string, sets ...string) yarn.AppID {
	y.t.Helper()
	sets = append([]string{"--set", "mr3.am.session.mode=true", "--set", "ebb.session.idle.timeout.secs=600"}, sets...)
	out, err := y.ebb(ctx, append([]string{"submit", "--detach", "--name", name}, sets...)...)
	if err != nil {
		y.t.Fatalf("starting the session %s: %v\n%s", name, err, out)
	}
	return y.appID(out)
}
