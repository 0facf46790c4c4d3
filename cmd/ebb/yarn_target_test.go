package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
)

// The latency target on YARN: the same stream (TestYarnAutoscaleBurstThenTail's
// DAG, twice, one after the other, in a session with that test's autoscaler
// settings and predictive scale-out on) run at two targets. Both sessions
// read ebb.auto.scale.target.p95.slowdown = 1 from an mr3-site.xml; the second
// is retuned to 2 (the default) by `ebb autoscale --target 2` before its
// first DAG. The lower target must hold more workers at its peak: with
// a target of 1 the autoscaler sizes for the work in sight to drain within
// one sampling interval, with 2 within (2 − 1) × 120 s, which this stream's
// work never needs. `ebb dag status` must show each session's target and
// the p95 slowdown measured (the second DAG's: the first waited for the
// cold start and is not counted). The key read from the file and the
// command are both needed: were either ignored, the two sessions would
// run at the same target. It holds the cluster: another package's
// application beside the target-1 session could take the containers its
// larger peak needs.
func TestYarnLatencyTargetHoldsMoreWorkers(t *testing.T) {
	y := newYarnTest(t)
	y.waitIdle()
	y.putBurstTailInput()
	confDir := t.TempDir()
	site := `<configuration>
<property><name>ebb.auto.scale.predictive.enabled</name><value>true</value></property>
<property><name>ebb.auto.scale.node.boot.secs</name><value>5</value></property>
<property><name>ebb.auto.scale.target.p95.slowdown</name><value>1</value></property>
</configuration>
`
	if err := os.WriteFile(filepath.Join(confDir, "mr3-site.xml"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	y.env = append(y.env, "EBB_CONF_DIR="+confDir)
	low := y.runTargetStream("dial-low", "")
	high := y.runTargetStream("dial-high", "2")
	t.Logf("target 1: peak %d workers, %.0f worker-seconds; %s", low.peak, low.workerSecs, low.group)
	t.Logf("target 2: peak %d workers, %.0f worker-seconds; %s", high.peak, high.workerSecs, high.group)
	if !strings.Contains(low.group, "target p95 1,") || !strings.Contains(high.group, "target p95 2,") {
		t.Errorf("the groups do not show targets 1 and 2:\n%s\n%s", low.group, high.group)
	}
	for _, r := range []targetRun{low, high} {
		if !measuredRe.MatchString(r.group) {
			t.Errorf("no p95 measured over the warm DAG: %s", r.group)
		}
	}
	// Each scale-out sized by the work in sight says so in the target's
	// terms.
	if !slices.ContainsFunc(low.scaleOuts, func(l string) bool { return strings.Contains(l, "target p95 1,") }) {
		t.Errorf("no scale-out of the target-1 session quotes its target:\n%s", strings.Join(low.scaleOuts, "\n"))
	}
	if low.peak <= high.peak {
		t.Errorf("target 1 held at most %d workers, target 2 %d: the lower target should hold more", low.peak, high.peak)
	}
}

var measuredRe = regexp.MustCompile(`p95 [0-9.]+ over the last [1-9][0-9]* DAGs?`)

// targetRun is what one session of the stream showed.
type targetRun struct {
	peak       int      // the most worker containers the RM saw running at once
	workerSecs float64  // worker containers × seconds, sampled
	group      string   // `ebb dag status`'s line for the group
	scaleOuts  []string // the AM log's scale-out decisions, with their reasons
}

// runTargetStream starts a session named name, retunes its target to
// retune when that is not empty, runs the burst-tail DAG twice one after
// the other, and reports the workers the RM saw and the group's status.
func (y *yarnTest) runTargetStream(name, retune string) targetRun {
	t := y.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	id := y.startSession(ctx, name, append(append([]string{}, burstTailSets...), amSets...)...)
	// Cleanup: the test has its verdict, and an ended application cannot be killed.
	defer func() { _, _ = y.ebb(context.Background(), "kill", id.String()) }()
	if retune != "" {
		out, err := y.ebb(ctx, "autoscale", "--app", id.String(), "--target", retune)
		t.Logf("ebb autoscale --target %s:\n%s", retune, out)
		if err != nil {
			t.Fatalf("ebb autoscale --target %s: %v", retune, err)
		}
	}
	// The DAGs run one after the other off the test's goroutine; the
	// test's own samples the RM meanwhile.
	done := make(chan error, 1)
	go func() {
		for i := range 2 {
			spec := y.writeDAG(burstTailSpec(fmt.Sprintf("%s-%d", name, i), y.fs.URL(fmt.Sprintf("%s/%s/out-%d", y.dir, name, i)), y.fs.URL(y.dir+"/input")))
			if out, err := y.ebb(ctx, "dag", "submit", "--app", id.String(), "--wait", spec); err != nil {
				done <- fmt.Errorf("%s DAG %d: %w\n%s", name, i, err, out)
				return
			}
		}
		done <- nil
	}()
	var r targetRun
	var dagErr error
	r.peak, r.workerSecs, dagErr = y.sampleWorkers(id, done)
	if dagErr != nil {
		t.Fatal(dagErr)
	}
	out, err := y.ebb(ctx, "dag", "status", "--app", id.String())
	if err != nil {
		t.Fatalf("dag status: %v\n%s", err, out)
	}
	t.Logf("%s: ebb dag status:\n%s", name, out)
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "group bt:") {
			r.group = l
		}
	}
	for _, l := range strings.Split(y.amLog(id), "\n") {
		if strings.Contains(l, "→ SCALE_OUT:") {
			r.scaleOuts = append(r.scaleOuts, l)
		}
	}
	t.Logf("%s: scale-out decisions:\n%s", name, strings.Join(r.scaleOuts, "\n"))
	return r
}

// sampleWorkers follows the RM's count of the application's running
// containers, less the AM's, until done gives the DAGs' verdict: the peak
// and the worker-seconds.
func (y *yarnTest) sampleWorkers(id yarn.AppID, done <-chan error) (peak int, workerSecs float64, err error) {
	last, n := time.Now(), 0
	for {
		select {
		case err := <-done:
			return peak, workerSecs, err
		case <-time.After(250 * time.Millisecond):
		}
		// n held from the last sample to this one.
		now := time.Now()
		workerSecs += float64(n) * now.Sub(last).Seconds()
		last, n = now, max(y.runningContainers(id)-1, 0)
		peak = max(peak, n)
	}
}
