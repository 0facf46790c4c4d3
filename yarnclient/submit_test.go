package yarnclient

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/yarnrpc"
)

const testDAG = `
name: wordcount
containerGroup: {name: wc, workerMemoryMB: 1024}
vertices:
  - {name: map, command: [ebb, task, wc-map], parallelism: 2, memoryMB: 512, inputs: ["local.txt"]}
`

func writeDAG(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "wc.yaml")
	if err := os.WriteFile(p, []byte(testDAG), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A DAG's application: the binary, configuration and DAG in the staging
// directory, the AM's command line naming them, and YARN told who and what.
func TestSubmitStagesAndLaunches(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	yc := testClient(t, testConf(t, "mr3.am.resource.memory.mb", "512", "mr3.am.max.app.attempts", "3"), rm, fs)
	var warned []string
	dagPath := writeDAG(t)
	id, err := yc.Submit(context.Background(), SubmitOptions{DAGPath: dagPath, Queue: "q", Output: "hdfs://nn:8020/it's",
		Warn: func(w string) { warned = append(warned, w) }})
	if err != nil {
		t.Fatal(err)
	}
	staging := "/user/alice/.ebb/staging/application_1700000000000_0007"
	if id != rm.id || StagingDir("alice", id) != staging {
		t.Fatalf("id %s, staging %s", id, StagingDir("alice", id))
	}
	if !fs.dirs[staging] {
		t.Errorf("staging directory %s not made", staging)
	}
	// The binary is not staged: it is shared, under its content's hash
	// (binary_test.go).
	lib := LibPath("alice", sha256Hex("#!ebb"))
	if _, ok := fs.files[staging+"/ebb"]; ok || string(fs.files[lib]) != "#!ebb" || !strings.Contains(string(fs.files[staging+"/dag.yaml"]), "wordcount") {
		t.Errorf("binary at %s or DAG wrong: %q", lib, fs.files)
	}
	if !strings.Contains(string(fs.files[staging+"/mr3-site.xml"]), "mr3.am.max.app.attempts") {
		t.Errorf("staged configuration lacks the effective keys:\n%s", fs.files[staging+"/mr3-site.xml"])
	}
	if len(rm.submitted) != 1 {
		t.Fatalf("%d submissions", len(rm.submitted))
	}
	app := rm.submitted[0]
	if app.Name != "wordcount" || app.Queue != "q" || app.Type != "EBB" || app.Resource.MemoryMB != 512 || app.MaxAttempts != 3 || len(app.Tags) != 0 {
		t.Errorf("application %+v", app)
	}
	// --dag-name: the AM's messages name the user's file, not the staged copy.
	wantCmd := `exec ./ebb am --conf mr3-site.xml --dag dag.yaml --dag-name '` + dagPath + `' --output 'hdfs://nn:8020/it'\''s' --log-dir <LOG_DIR> 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr`
	if len(app.AM.Command) != 1 || app.AM.Command[0] != wantCmd {
		t.Errorf("AM command %q, want %q", app.AM.Command, wantCmd)
	}
	if app.AM.Env["HADOOP_USER_NAME"] != "alice" || app.AM.Env["EBB_STAGING"] != "hdfs://nn:8020"+staging {
		t.Errorf("AM env %v", app.AM.Env)
	}
	// Small: the configuration and the DAG go in the AM's token file
	// (no localizer run for them), staged all the same.
	for _, f := range []string{StagedConf, StagedDAG} {
		if r, ok := app.AM.Resources[f]; ok {
			t.Errorf("AM resource %s: %+v, want it in the token file instead", f, r)
		}
		if got := inlineFile(t, app.AM.Tokens, f); got != string(fs.files[staging+"/"+f]) {
			t.Errorf("%s in the AM's token file: %d bytes, want the staged %d bytes", f, len(got), len(fs.files[staging+"/"+f]))
		}
	}
	if r := app.AM.Resources[StagedBinary]; r.URL != "hdfs://nn:8020"+lib || app.AM.Env[EnvBinary] != r.URL || app.AM.Env[EnvBinaryVisibility] != r.Visibility.String() {
		t.Errorf("AM resource ebb %+v, env %v", r, app.AM.Env)
	}
	// The input is a local path; the hdfs:// --output is fine.
	if len(warned) != 1 || !strings.Contains(warned[0], `"local.txt"`) {
		t.Errorf("warnings %q", warned)
	}
}

// A session: no DAG, tagged for discovery, session mode in the staged
// configuration.
func TestSubmitSession(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	yc := testClient(t, testConf(t), rm, fs)
	id, err := yc.Submit(context.Background(), SubmitOptions{Session: true})
	if err != nil {
		t.Fatal(err)
	}
	app := rm.submitted[0]
	if app.Name != "ebb-session" || len(app.Tags) != 1 || app.Tags[0] != SessionTag {
		t.Errorf("session application %+v", app)
	}
	if strings.Contains(app.AM.Command[0], "--dag") {
		t.Errorf("a session's AM was given a DAG: %s", app.AM.Command[0])
	}
	staged := string(fs.files[StagingDir("alice", id)+"/"+StagedConf])
	if !regexp.MustCompile(`<name>mr3.am.session.mode</name>\s*<value>true</value>`).MatchString(staged) {
		t.Errorf("staged configuration is not a session's:\n%s", staged)
	}
}

// An AM container above the cluster's largest is refused before anything
// is staged, naming the key.
func TestSubmitAMTooBigStagesNothing(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	rm.max.MemoryMB = 1024
	yc := testClient(t, testConf(t, "mr3.am.resource.memory.mb", "2048"), rm, fs)
	_, err := yc.Submit(context.Background(), SubmitOptions{DAGPath: writeDAG(t)})
	if err == nil || !strings.Contains(err.Error(), "mr3.am.resource.memory.mb") || !strings.Contains(err.Error(), "maximum-allocation-mb=1024") {
		t.Fatalf("err = %v", err)
	}
	if len(fs.files) != 0 || len(fs.dirs) != 0 || len(rm.submitted) != 0 {
		t.Errorf("staged %d files, %d dirs, submitted %d", len(fs.files), len(fs.dirs), len(rm.submitted))
	}
}

// A refused submission leaves no staging directory behind.
func TestSubmitRefusedRemovesStaging(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	rm.submitErr = errors.New("queue q is stopped")
	yc := testClient(t, testConf(t), rm, fs)
	id, err := yc.Submit(context.Background(), SubmitOptions{Session: true})
	if err == nil || !errors.Is(err, rm.submitErr) {
		t.Fatalf("err = %v, want it to wrap the RM's", err)
	}
	// The shared binary stays for the next submit.
	if len(fs.removed) == 0 || fs.removed[len(fs.removed)-1] != StagingDir("alice", id) || len(fs.files) != 1 || fs.files[LibPath("alice", sha256Hex("#!ebb"))] == nil {
		t.Errorf("removed %v, left %q", fs.removed, fs.files)
	}
	if fs.closes != 1 {
		t.Errorf("the staging file system was closed %d times, want 1", fs.closes)
	}
}

// Without HADOOP_CONF_DIR or an RM address there is nothing to submit to.
func TestSubmitNeedsResourceManager(t *testing.T) {
	t.Setenv("HADOOP_CONF_DIR", "")
	c, _, err := conf.Load(conf.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	rm := newFakeRM()
	yc := testClient(t, c, rm, newMemStore())
	if _, err := yc.Submit(context.Background(), SubmitOptions{Session: true}); !errors.Is(err, ErrNoResourceManager) {
		t.Errorf("err = %v, want ErrNoResourceManager", err)
	}
}

// TestSubmitKeepsContainersWhenRecoveryIsOn: a new AM attempt resumes
// with the old one's workers only if YARN keeps them; with recovery off
// there is nobody to hand them to.
func TestSubmitKeepsContainersWhenRecoveryIsOn(t *testing.T) {
	for _, on := range []string{"true", "false"} {
		rm, fs := newFakeRM(), newMemStore()
		yc := testClient(t, testConf(t, "mr3.dag.recovery.enabled", on), rm, fs)
		if _, err := yc.Submit(context.Background(), SubmitOptions{DAGPath: writeDAG(t)}); err != nil {
			t.Fatal(err)
		}
		if got := rm.submitted[0].KeepContainers; got != (on == "true") {
			t.Errorf("mr3.dag.recovery.enabled=%s: keep containers %v", on, got)
		}
	}
}

// The rolled-logs pattern goes to YARN as configured; empty asks for no
// rolling aggregation.
func TestSubmitRolledLogsPattern(t *testing.T) {
	for _, pattern := range []string{`^(am\.log|worker\.log)\.[0-9]{4,}$`, `^x\.log\.\d+$`, ""} {
		rm, fs := newFakeRM(), newMemStore()
		yc := testClient(t, testConf(t, "ebb.log.aggregation.rolled.include.pattern", pattern), rm, fs)
		if _, err := yc.Submit(context.Background(), SubmitOptions{DAGPath: writeDAG(t)}); err != nil {
			t.Fatal(err)
		}
		if got := rm.submitted[0].RolledLogs; got != pattern {
			t.Errorf("pattern %q submitted as %q", pattern, got)
		}
	}
}

// The rerun of issue 12 on YARN: an hdfs:// output that holds results is
// refused before an application is asked for, naming the directory and
// --overwrite; with overwrite the AM is told to replace it.
func TestSubmitRefusesAnOutputWithResults(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	fs.files["/out/part-00000"] = []byte("old")
	fs.files["/out/_SUCCESS"] = nil
	yc := testClient(t, testConf(t), rm, fs)
	_, err := yc.Submit(context.Background(), SubmitOptions{DAGPath: writeDAG(t), Output: "hdfs://nn:8020/out"})
	if err == nil || !strings.Contains(err.Error(), "hdfs://nn:8020/out") || !strings.Contains(err.Error(), "--overwrite") {
		t.Fatalf("Submit = %v, want a refusal naming the output and --overwrite", err)
	}
	if len(rm.submitted) != 0 || len(fs.dirs) != 0 {
		t.Fatalf("refused, yet %d applications submitted and %v staged", len(rm.submitted), fs.dirs)
	}
	if _, err := yc.Submit(context.Background(), SubmitOptions{DAGPath: writeDAG(t), Output: "hdfs://nn:8020/out", Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if len(rm.submitted) != 1 || !strings.Contains(rm.submitted[0].AM.Command[0], " --overwrite ") {
		t.Fatalf("with overwrite: %d submitted, AM command %q", len(rm.submitted), rm.submitted[0].AM.Command)
	}
	// A fresh output needs no overwrite.
	if _, err := yc.Submit(context.Background(), SubmitOptions{DAGPath: writeDAG(t), Output: "hdfs://nn:8020/fresh"}); err != nil {
		t.Fatal(err)
	}
}

// inlineFile is a file the AM's token file carries ("" when none).
func inlineFile(t *testing.T, tokens []byte, name string) string {
	t.Helper()
	if len(tokens) == 0 {
		return ""
	}
	creds, err := yarnrpc.ReadCredentials(bytes.NewReader(tokens))
	if err != nil {
		t.Fatalf("the AM's token file: %v", err)
	}
	for _, s := range creds.Secrets {
		if s.Alias == InlineAliasPrefix+name {
			return string(s.Secret)
		}
	}
	return ""
}

// A DAG too large for the token file (InlineMaxBytes with the
// configuration) is localized from the staging directory, with the
// configuration.
func TestSubmitLocalizesALargeDAG(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	yc := testClient(t, testConf(t, "mr3.am.resource.memory.mb", "512"), rm, fs)
	p := filepath.Join(t.TempDir(), "big.yaml")
	big := testDAG + "# " + strings.Repeat("x", InlineMaxBytes) + "\n"
	if err := os.WriteFile(p, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	id, err := yc.Submit(context.Background(), SubmitOptions{DAGPath: p, Output: "hdfs://nn:8020/out"})
	if err != nil {
		t.Fatal(err)
	}
	app, staging := rm.submitted[0], StagingDir("alice", id)
	for _, f := range []string{StagedConf, StagedDAG} {
		if r, ok := app.AM.Resources[f]; !ok || r.URL != "hdfs://nn:8020"+staging+"/"+f {
			t.Errorf("AM resource %s: %+v, want the staged file", f, r)
		}
		if got := inlineFile(t, app.AM.Tokens, f); got != "" {
			t.Errorf("%s is in the AM's token file too", f)
		}
	}
}

// ebb.am.priority and ebb.am.attempt.failures.validity.interval.ms become
// the application's priority and validity interval; at -1 there is no
// priority (the queue's default) and the interval is off (the RM client
// sends only a positive one: TestSubmitPriorityAndValidityInterval).
func TestSubmitPriorityAndValidityKeys(t *testing.T) {
	for _, tc := range []struct {
		prio, validity string
		wantPrio       int32 // -1: none
		wantValidity   time.Duration
	}{
		{"7", "3600000", 7, time.Hour},
		{"0", "0", 0, 0},
		{"-1", "-1", -1, -time.Millisecond},
	} {
		rm, fs := newFakeRM(), newMemStore()
		c := testConf(t, "ebb.am.priority", tc.prio, "ebb.am.attempt.failures.validity.interval.ms", tc.validity)
		yc := testClient(t, c, rm, fs)
		if _, err := yc.Submit(context.Background(), SubmitOptions{DAGPath: writeDAG(t)}); err != nil {
			t.Fatal(err)
		}
		app := rm.submitted[0]
		got := int32(-1)
		if app.Priority != nil {
			got = *app.Priority
		}
		if got != tc.wantPrio || app.AttemptFailuresValidity != tc.wantValidity {
			t.Errorf("priority %s, validity %s ms: submitted priority %d (-1: none), validity %s; want %d, %s",
				tc.prio, tc.validity, got, app.AttemptFailuresValidity, tc.wantPrio, tc.wantValidity)
		}
	}
}
