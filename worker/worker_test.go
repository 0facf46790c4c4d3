package worker

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

func httpGet(t *testing.T, url, secret string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestRegisterCarriesIdentityAndDataAddress(t *testing.T) {
	am := startFakeAM(t, "s3cret")
	w := startWorker(t, am, "w1", nil)
	r := w.conn.register
	if r.GetWorkerId() != "w1" || r.GetGroup() != "g" || r.GetMemoryMb() != 1024 || r.GetVcores() != 2 || r.GetContainerId() != "c-w1" {
		t.Errorf("register = %v", r)
	}
	if !strings.HasPrefix(r.GetDataAddress(), "127.0.0.1:") {
		t.Errorf("data address %q, want 127.0.0.1:port", r.GetDataAddress())
	}
	// Heartbeats follow without any attempt.
	deadline := time.After(5 * time.Second)
	for {
		select {
		case m := <-w.conn.fromW:
			if m.GetHeartbeat() != nil {
				return
			}
		case <-deadline:
			t.Fatal("no heartbeat within 5s")
		}
	}
}

func TestWrongSecretIsRejected(t *testing.T) {
	am := startFakeAM(t, "right")
	dir := t.TempDir()
	err := Run(t.Context(), Options{
		AMAddress: am.addr, Secret: "wrong", WorkerID: "w", MemoryMB: 100,
		WorkDir: dir, LogDir: dir, RegisterTimeout: 5 * time.Second,
	})
	var re *RegisterError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "Unauthenticated") {
		t.Fatalf("Run with a wrong secret = %v, want a RegisterError saying Unauthenticated", err)
	}
}

func TestAttemptRunsWithContractAndOutputsAreServed(t *testing.T) {
	am := startFakeAM(t, "s3cret")
	w1 := startWorker(t, am, "w1", nil)
	producer := shellAttempt("a-map-0", "dag1", `
		printf 'x\n' > output/red/0
		printf 'yy\n' > output/red/1
		echo "$EBB_DAG_ID $EBB_VERTEX $EBB_TASK_INDEX $EBB_ATTEMPT $EBB_ATTEMPT_ID $EBB_PARALLELISM $EBB_MEMORY_MB $EBB_OUTPUTS $MYVAR" > "$EBB_WORK_DIR/../../env"
		test "$EBB_INPUT_DIR" = "$PWD/input" && test "$EBB_OUTPUT_DIR" = "$PWD/output" || exit 9
		echo to-stdout; echo to-stderr >&2`)
	producer.Vertex, producer.TaskIndex, producer.Attempt, producer.Parallelism = "map", 0, 2, 3
	producer.Env = map[string]string{"MYVAR": "hello"}
	producer.Outputs = []*ebbpb.OutputSpec{{Consumer: "red", Partitions: 2}}
	w1.conn.run(producer)
	w1.conn.waitUpdate(t, "a-map-0", ebbpb.AttemptState_ATTEMPT_RUNNING)
	done := w1.conn.waitUpdate(t, "a-map-0", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
	if done.GetOutputBytes() != 5 {
		t.Errorf("output bytes = %d, want 5 (2 + 3)", done.GetOutputBytes())
	}
	env, _ := os.ReadFile(filepath.Join(w1.opts.WorkDir, "env"))
	if got, want := strings.TrimSpace(string(env)), "dag1 map 0 2 a-map-0 3 64 red:2 hello"; got != want {
		t.Errorf("task saw env %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(w1.opts.LogDir, "a-map-0.stdout")); string(b) != "to-stdout\n" {
		t.Errorf("stdout log = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(w1.opts.LogDir, "a-map-0.stderr")); string(b) != "to-stderr\n" {
		t.Errorf("stderr log = %q", b)
	}
	if _, err := os.Stat(filepath.Join(w1.opts.LogDir, "worker.log")); err != nil {
		t.Errorf("worker.log: %v", err)
	}

	addr := w1.conn.register.GetDataAddress()
	url := outputURL(addr, "dag1", "a-map-0", "red", 1)
	if code, body := httpGet(t, url, "s3cret"); code != 200 || body != "yy\n" {
		t.Errorf("GET partition 1 = %d %q", code, body)
	}
	for _, secret := range []string{"", "s3cre", "s3cret!"} {
		if code, _ := httpGet(t, url, secret); code != http.StatusUnauthorized {
			t.Errorf("GET with secret %q = %d, want 401", secret, code)
		}
	}
	if code, _ := httpGet(t, outputURL(addr, "other-dag", "a-map-0", "red", 1), "s3cret"); code != 404 {
		t.Errorf("GET under another DAG = %d, want 404", code)
	}
	if code, _ := httpGet(t, "http://"+addr+"/v1/outputs/dag1/a-map-0/../0", "s3cret"); code == 200 {
		t.Errorf("GET with .. = %d, want an error", code)
	}

	// A second worker fetches both partitions' producer output and commits
	// as a sink.
	w2 := startWorker(t, am, "w2", nil)
	commit := filepath.Join(t.TempDir(), "result")
	consumer := shellAttempt("a-red-1", "dag1", `cat input/map/0 input/map/7 > output/part`)
	consumer.Vertex, consumer.TaskIndex, consumer.CommitDir = "red", 1, commit
	consumer.Inputs = []*ebbpb.InputFetch{
		{ProducerVertex: "map", ProducerTask: 0, ProducerAttempt: "a-map-0", Address: addr, Consumer: "red", Partition: 1},
		{ProducerVertex: "map", ProducerTask: 7, ProducerAttempt: "a-map-0", Address: addr, Consumer: "red", Partition: 0},
	}
	w2.conn.run(consumer)
	w2.conn.waitUpdate(t, "a-red-1", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
	got, err := os.ReadFile(filepath.Join(commit, "part-00001"))
	if err != nil || string(got) != "yy\nx\n" {
		t.Errorf("committed part-00001 = %q, %v; want the fetched partitions", got, err)
	}
	if _, err := os.Stat(filepath.Join(commit, "_temporary")); !os.IsNotExist(err) {
		t.Errorf("_temporary left behind: %v", err)
	}

	// DAGDone deletes the outputs and the attempt directory.
	w1.conn.send(&ebbpb.AMMessage{Msg: &ebbpb.AMMessage_DagDone{DagDone: &ebbpb.DAGDone{DagId: "dag1"}}})
	waitFor(t, "outputs deleted after DAGDone", func() bool {
		_, err := os.Stat(filepath.Join(w1.opts.WorkDir, "attempts", "a-map-0"))
		return os.IsNotExist(err)
	})
	if code, _ := httpGet(t, url, "s3cret"); code != 404 {
		t.Errorf("GET after DAGDone = %d, want 404", code)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestFetchFailureNamesTheProducerAttempt(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	a := shellAttempt("c1", "d", "exit 0")
	a.Inputs = []*ebbpb.InputFetch{
		// The worker's own server answers 404 for an attempt it never ran.
		{ProducerVertex: "p", ProducerTask: 0, ProducerAttempt: "gone-1", Address: w.conn.register.GetDataAddress(), Consumer: "v"},
	}
	w.conn.run(a)
	u := w.conn.waitUpdate(t, "c1", ebbpb.AttemptState_ATTEMPT_FETCH_FAILED)
	if u.GetFetchFailedAttempt() != "gone-1" {
		t.Errorf("fetch_failed_attempt = %q, want gone-1", u.GetFetchFailedAttempt())
	}

	// Connection refused: a port nobody listens on.
	a = shellAttempt("c2", "d", "exit 0")
	a.Inputs = []*ebbpb.InputFetch{{ProducerVertex: "p", ProducerAttempt: "gone-2", Address: "127.0.0.1:1", Consumer: "v"}}
	w.conn.run(a)
	if u := w.conn.waitUpdate(t, "c2", ebbpb.AttemptState_ATTEMPT_FETCH_FAILED); u.GetFetchFailedAttempt() != "gone-2" {
		t.Errorf("fetch_failed_attempt = %q, want gone-2", u.GetFetchFailedAttempt())
	}
}

func TestFailedAttemptReportsExitCodeAndStderr(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	w.conn.run(shellAttempt("f1", "d", "echo first >&2; echo boom >&2; exit 3"))
	u := w.conn.waitUpdate(t, "f1", ebbpb.AttemptState_ATTEMPT_FAILED)
	if u.GetExitCode() != 3 || !strings.Contains(u.GetDiagnostics(), "boom") {
		t.Errorf("update = exit %d %q, want exit 3 with stderr tail", u.GetExitCode(), u.GetDiagnostics())
	}
}

func TestAttemptOverWorkerMemoryIsRefused(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", func(o *Options) { o.MemoryMB = 100 })
	a := shellAttempt("big", "d", "sleep 30")
	a.MemoryMb = 60
	w.conn.run(a)
	w.conn.waitUpdate(t, "big", ebbpb.AttemptState_ATTEMPT_RUNNING)
	b := shellAttempt("big2", "d", "exit 0")
	b.MemoryMb = 60
	w.conn.run(b)
	u := w.conn.waitUpdate(t, "big2", ebbpb.AttemptState_ATTEMPT_FAILED)
	if !strings.Contains(u.GetDiagnostics(), "not enough memory") {
		t.Errorf("diagnostics %q", u.GetDiagnostics())
	}
	// Two attempts that fit run side by side.
	c := shellAttempt("small", "d", "exit 0")
	c.MemoryMb = 40
	w.conn.run(c)
	w.conn.waitUpdate(t, "small", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
}

func TestKillAttemptKillsTheProcessGroup(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	// The shell starts a child; killing must reach it too.
	w.conn.run(shellAttempt("k1", "d", `sleep 60 & echo $! > "$EBB_WORK_DIR/../child"; wait`))
	w.conn.waitUpdate(t, "k1", ebbpb.AttemptState_ATTEMPT_RUNNING)
	childFile := filepath.Join(w.opts.WorkDir, "attempts", "child")
	waitFor(t, "child pid written", func() bool { b, _ := os.ReadFile(childFile); return strings.HasSuffix(string(b), "\n") })
	b, _ := os.ReadFile(childFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	w.conn.send(&ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Kill{Kill: &ebbpb.KillAttempt{AttemptId: "k1", Reason: "test"}}})
	u := w.conn.waitUpdate(t, "k1", ebbpb.AttemptState_ATTEMPT_KILLED)
	if !strings.Contains(u.GetDiagnostics(), "test") {
		t.Errorf("diagnostics %q should carry the reason", u.GetDiagnostics())
	}
	waitFor(t, "child process gone", func() bool { return !processAlive(pid) })
}

// processAlive reports whether pid exists and is not a zombie.
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || !strings.HasPrefix(string(b[i+1:]), " Z")
}

func TestAttemptOverItsMemoryIsKilled(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a := shellAttempt("hog", "d", "")
	a.Command = []string{exe}
	a.Env = map[string]string{hogEnv: "64"}
	a.MemoryMb = 16
	w.conn.run(a)
	u := w.conn.waitUpdate(t, "hog", ebbpb.AttemptState_ATTEMPT_FAILED)
	if !strings.Contains(u.GetDiagnostics(), "exceeded memory: used ") || !strings.Contains(u.GetDiagnostics(), "of 16 MB") {
		t.Errorf("diagnostics %q", u.GetDiagnostics())
	}
}

func TestGracefulStopFinishesRunningAttempts(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	// The attempt waits for a file the test creates after Stop, so it is
	// surely running when Stop arrives.
	gate := filepath.Join(t.TempDir(), "gate")
	w.conn.run(shellAttempt("g1", "d", `while [ ! -e `+gate+` ]; do sleep 0.02; done; echo ok > output/part`))
	w.conn.waitUpdate(t, "g1", ebbpb.AttemptState_ATTEMPT_RUNNING)
	w.conn.send(&ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Stop{Stop: &ebbpb.Stop{Graceful: true, Reason: "scale-in"}}})
	w.conn.run(shellAttempt("g2", "d", "exit 0"))
	if u := w.conn.waitUpdate(t, "g2", ebbpb.AttemptState_ATTEMPT_KILLED); !strings.Contains(u.GetDiagnostics(), "stopping") {
		t.Errorf("refusal diagnostics %q", u.GetDiagnostics())
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w.conn.waitUpdate(t, "g1", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
	// Outputs are still served while the stream is open.
	url := "http://" + w.conn.register.GetDataAddress() + "/v1/outputs/d/g1/part/0"
	if code, _ := httpGet(t, url, "s"); code != 404 {
		t.Errorf("unexpected %d for a sink's non-partition path", code)
	}
	select {
	case err := <-w.done:
		t.Fatalf("worker exited before the AM closed the stream: %v", err)
	default:
	}
	w.conn.close()
	if err := w.wait(t); err != nil {
		t.Errorf("Run after graceful stop = %v, want nil", err)
	}
}

func TestStopNowKillsAttempts(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	w.conn.run(shellAttempt("s1", "d", "sleep 60"))
	w.conn.waitUpdate(t, "s1", ebbpb.AttemptState_ATTEMPT_RUNNING)
	w.conn.send(&ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Stop{Stop: &ebbpb.Stop{Graceful: false}}})
	if err := w.wait(t); err != nil {
		t.Errorf("Run after Stop = %v, want nil", err)
	}
}

func TestBrokenStreamKillsAttemptsAndFails(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	w.conn.run(shellAttempt("b1", "d", `echo $$ > "$EBB_WORK_DIR/../pid"; exec sleep 60`))
	w.conn.waitUpdate(t, "b1", ebbpb.AttemptState_ATTEMPT_RUNNING)
	pidFile := filepath.Join(w.opts.WorkDir, "attempts", "pid")
	waitFor(t, "pid written", func() bool { b, _ := os.ReadFile(pidFile); return strings.HasSuffix(string(b), "\n") })
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	w.conn.close()
	if err := w.wait(t); !errors.Is(err, ErrStreamBroken) {
		t.Errorf("Run after the AM vanished = %v, want ErrStreamBroken", err)
	}
	waitFor(t, "attempt process gone", func() bool { return !processAlive(pid) })
}

func TestReinitChangesMemory(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", func(o *Options) { o.MemoryMB = 100 })
	w.conn.send(&ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Reinit{Reinit: &ebbpb.Reinit{Group: "g2", MemoryMb: 300, Env: map[string]string{"GROUPVAR": "gv"}}}})
	a := shellAttempt("r1", "d", `test "$GROUPVAR" = gv`)
	a.MemoryMb = 250
	w.conn.run(a)
	w.conn.waitUpdate(t, "r1", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
}

func TestTasksDoNotInheritTheSecret(t *testing.T) {
	t.Setenv("EBB_TEST_SECRET_CARRIER", "top-secret")
	t.Setenv("EBB_TEST_OTHER", "visible")
	am := startFakeAM(t, "top-secret")
	w := startWorker(t, am, "w1", nil)
	w.conn.run(shellAttempt("e1", "d", `test -z "$EBB_TEST_SECRET_CARRIER" && test "$EBB_TEST_OTHER" = visible`))
	w.conn.waitUpdate(t, "e1", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
}

func TestProgressAndRunningAttemptsAreReportedAtHeartbeats(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	gate := filepath.Join(t.TempDir(), "gate")
	w.conn.run(shellAttempt("p1", "d", `echo 0.25 > "$EBB_PROGRESS_FILE.tmp" && mv "$EBB_PROGRESS_FILE.tmp" "$EBB_PROGRESS_FILE"
		while [ ! -e `+gate+` ]; do sleep 0.02; done`))
	var sawProgress, sawInHeartbeat bool
	deadline := time.After(10 * time.Second)
	for !sawProgress || !sawInHeartbeat {
		select {
		case m := <-w.conn.fromW:
			if hb := m.GetHeartbeat(); hb != nil && len(hb.GetRunningAttempts()) == 1 && hb.GetRunningAttempts()[0] == "p1" {
				sawInHeartbeat = true
			}
			if u := m.GetAttempt(); u != nil && u.GetState() == ebbpb.AttemptState_ATTEMPT_RUNNING && u.GetProgress() == 0.25 {
				sawProgress = true
			}
		case <-deadline:
			t.Fatalf("progress reported: %v, attempt in heartbeat: %v", sawProgress, sawInHeartbeat)
		}
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if u := w.conn.waitUpdate(t, "p1", ebbpb.AttemptState_ATTEMPT_SUCCEEDED); u.GetProgress() != 1 {
		t.Errorf("final progress %v, want 1", u.GetProgress())
	}
}

func TestFetchRefusedForTheSecretFailsTheConsumer(t *testing.T) {
	other := startFakeAM(t, "other-app")
	producer := startWorker(t, other, "p", nil)
	producer.conn.run(&ebbpb.RunAttempt{AttemptId: "m2", DagId: "d", MemoryMb: 64,
		Command: []string{"/bin/sh", "-c", "mkdir -p output/c && echo x > output/c/0"}})
	producer.conn.waitUpdate(t, "m2", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)

	am := startFakeAM(t, "this-app")
	w := startWorker(t, am, "w", nil)
	a := shellAttempt("c1", "d", "exit 0")
	a.Inputs = []*ebbpb.InputFetch{{ProducerVertex: "m", ProducerAttempt: "m2", Address: producer.conn.register.GetDataAddress(), Consumer: "c"}}
	w.conn.run(a)
	// Another application's worker will never serve us: re-running the
	// producer would not help, so this is a plain failure.
	if u := w.conn.waitUpdate(t, "c1", ebbpb.AttemptState_ATTEMPT_FAILED); !strings.Contains(u.GetDiagnostics(), "refused our secret") {
		t.Errorf("diagnostics %q", u.GetDiagnostics())
	}
}

// A kill frees the attempt's memory at once: the AM stopped counting it when
// it sent the kill and may place the next attempt here right behind it (on
// the same stream), which must run, not be refused for memory the killed
// process still holds while it exits (the refusal counted as a task failure).
func TestKillFreesMemoryForTheNextAttempt(t *testing.T) {
	am := startFakeAM(t, "s")
	w := startWorker(t, am, "w1", nil)
	big := shellAttempt("big", "d", "sleep 60")
	big.MemoryMb = w.opts.MemoryMB
	w.conn.run(big)
	w.conn.waitUpdate(t, "big", ebbpb.AttemptState_ATTEMPT_RUNNING)
	w.conn.send(&ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Kill{Kill: &ebbpb.KillAttempt{AttemptId: "big", Reason: "test"}}})
	next := shellAttempt("next", "d", "exit 0")
	next.MemoryMb = w.opts.MemoryMB
	w.conn.run(next)
	// Fails on a refusal ("next ended ATTEMPT_FAILED: not enough memory").
	w.conn.waitUpdate(t, "next", ebbpb.AttemptState_ATTEMPT_SUCCEEDED)
}
