package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
)

// browser starts a headless Chromium (Debian's package; EBB_CHROMIUM names
// another). Without one the test skips loudly, except under CI=true, where
// a browser that is missing or cannot start is a failure.
func browser(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	bin := os.Getenv("EBB_CHROMIUM")
	if bin == "" {
		bin, _ = exec.LookPath("chromium")
	}
	unavailable := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %s (scripts/test.sh installs Debian's chromium)", msg)
		}
		t.Skipf("SKIPPING THE BROWSER TEST: %s (apt-get install chromium, or set EBB_CHROMIUM)", msg)
	}
	if bin == "" {
		unavailable("no chromium on PATH")
	}
	// The flags keep Chromium off the network it would otherwise probe at
	// start (this machine's network is closed; lookups would hang it).
	// The profile lives outside t.TempDir: Chromium's helper processes may
	// still be writing to it for a moment after the browser is cancelled,
	// which would fail the test's own cleanup.
	profile, err := os.MkdirTemp("", "ebb-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile), chromedp.WindowSize(1400, 1000),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() {
		cancelT()
		cancelB()
		cancelA()
		_ = os.RemoveAll(profile) // best effort, for the reason above
	})
	if err := chromedp.Run(ctx); err != nil {
		unavailable("chromium %s cannot start: %v", bin, err)
	}
	return ctx
}

// screenshotDir is where the browser test leaves its pictures:
// $EBB_UI_SCREENSHOTS, or ebb-ui-screenshots in the temporary directory.
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("EBB_UI_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "ebb-ui-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The operator's UI in a real browser, on a local AM running a DAG with
// autoscaling on: the overview changes without a reload while tasks
// finish; the group's chart marks the scale-out with its reason; the DAG
// page, reached by its link, lists every attempt; an attempt's stdout link
// returns what the task printed.
func TestBrowserUI(t *testing.T) {
	ctx := browser(t, 3*time.Minute)
	shots := screenshotDir(t)
	t.Logf("screenshots go to %s", shots)
	// 6 tasks of 400 MB in 1024 MB workers (2 fit: 78% ≥ 70% with 4
	// queued: scale-out), each printing a line, then burning 3 s.
	spec := fmt.Sprintf(`name: ui-burst
containerGroup: {name: bt, workerMemoryMB: 1024}
vertices:
  - name: burst
    command: [/bin/sh, -c, "echo hello-stdout-$EBB_TASK_INDEX && exec %[1]s task burn --memory-mb 32 --seconds 3"]
    parallelism: 6
    memoryMB: 400
  - {name: sink, command: [/bin/sh, -c, "echo done"], parallelism: 1, memoryMB: 256}
edges: [{from: burst, to: sink, type: scatter-gather}]
`, ebbBin)
	ta := startTestAM(t, 3*time.Minute,
		"mr3.enable.auto.scaling=true", "mr3.check.memory.usage.event.interval.secs=1",
		"mr3.memory.usage.check.window.length.secs=2", "mr3.auto.scale.out.threshold.percent=70",
		"mr3.auto.scale.in.threshold.percent=30", "mr3.auto.scale.out.num.initial.containers=1",
		"mr3.auto.scale.out.num.increment.containers=2", "mr3.auto.scale.out.grace.period.secs=2",
		"mr3.container.idle.timeout.ms=600000",
		"ebb.local.nodes=1", "ebb.local.max.nodes=3", "ebb.local.node.memory.mb=2048", "ebb.packing.scheme=packed",
	)
	base := "http://" + ta.StatusAddr() + "/"
	id, err := ta.Submit(ta.ctx, am.SubmitRequest{Spec: []byte(spec), SpecName: "ui-burst.yaml", Output: filepath.Join(ta.root, "out")})
	if err != nil {
		t.Fatal(err)
	}
	shot := func(name string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			var png []byte
			if err := chromedp.FullScreenshot(&png, 100).Do(ctx); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(shots, name), png, 0o644)
		})
	}
	// 1. The overview, loaded once, follows the DAG to its end by itself:
	// the marker set after loading survives (no reload) while the row's
	// progress moves.
	var first string
	if err := chromedp.Run(ctx, chromedp.Navigate(base), chromedp.WaitVisible(`#dags tr[data-dag]`),
		chromedp.Evaluate(`window.loadMarker = "first-load"`, nil),
		chromedp.Evaluate(`document.querySelector("#dags tr[data-dag] .pct").textContent`, &first)); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{first: true}
	for {
		// One script reads all three at once: the page rewrites its
		// rows between separate reads.
		var got struct{ Row, Pct, Marker string }
		if err := chromedp.Run(ctx, chromedp.Evaluate(`({row: document.querySelector("#dags tr[data-dag]").textContent,
			pct: document.querySelector("#dags tr[data-dag] .pct").textContent, marker: window.loadMarker || "reloaded"})`, &got)); err != nil {
			t.Fatal(err)
		}
		row, pct, marker := got.Row, got.Pct, got.Marker
		if marker != "first-load" {
			t.Fatal("the overview was reloaded; it should update in place")
		}
		if !seen[pct] && len(seen) == 1 { // the first change: the page mid-run
			if err := chromedp.Run(ctx, shot("overview-running.png")); err != nil {
				t.Fatal(err)
			}
		}
		seen[pct] = true
		if strings.Contains(row, "SUCCEEDED") {
			break
		}
		if strings.Contains(row, "FAILED") {
			t.Fatalf("the DAG failed: %s", row)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the overview never showed the DAG succeeded; last row %q", row)
		case <-time.After(200 * time.Millisecond):
		}
	}
	if len(seen) < 3 {
		t.Errorf("the overview showed progress %v: want the bar to move through several values without a reload", seen)
	}
	if err := chromedp.Run(ctx, chromedp.Sleep(1500*time.Millisecond), shot("overview.png")); err != nil { // one more refresh for the chart's tail
		t.Fatal(err)
	}
	// 2. The group's page: the chart marks the scale-out with its reason.
	var reason string
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"group/bt"),
		chromedp.WaitVisible(`svg.chart g.transition[data-to="SCALE_OUT"]`),
		chromedp.Evaluate(`[...document.querySelectorAll('svg.chart g.transition[data-to="SCALE_OUT"] text.reason')].map(e => e.textContent).join("\n")`, &reason),
		shot("group.png")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(reason, "SCALE_OUT") || !strings.Contains(reason, "queued") {
		t.Errorf("scale-out marker reads %q: want the state and its reason (usage ≥ threshold with attempts queued)", reason)
	}
	// 3. The DAG page, reached by the overview's relative link, lists every
	// attempt: 6 burst + 1 sink, all SUCCEEDED.
	var states []string
	if err := chromedp.Run(ctx, chromedp.Navigate(base), chromedp.WaitVisible(`#dags a`), chromedp.Click(`#dags a`),
		chromedp.WaitVisible(`#attempts tr.attempt`),
		chromedp.Evaluate(`[...document.querySelectorAll("#attempts tr.attempt td:nth-child(5)")].map(e => e.textContent)`, &states),
		shot("dag.png")); err != nil {
		t.Fatal(err)
	}
	if len(states) != 7 || strings.Count(strings.Join(states, " "), "SUCCEEDED") != 7 {
		t.Errorf("the DAG page lists attempts %v: want 7 SUCCEEDED", states)
	}
	// The DAG page's own refresh works (the script ran without error), and
	// its vertex link leads to that vertex's attempts.
	var burst []string
	if err := chromedp.Run(ctx, chromedp.Poll(`window.ebbRefreshes >= 1`, nil),
		chromedp.Click(`#vertices a`), chromedp.WaitVisible(`#attempts tr.attempt`), chromedp.Poll(`window.ebbRefreshes >= 1`, nil),
		chromedp.Evaluate(`[...document.querySelectorAll("#attempts tr.attempt td:nth-child(2)")].map(e => e.textContent)`, &burst)); err != nil {
		t.Fatal(err)
	}
	if len(burst) != 6 || strings.Count(strings.Join(burst, " "), "burst") != 6 {
		t.Errorf("the burst vertex's page lists %v: want its 6 attempts", burst)
	}
	// 4. An attempt's stdout link returns what it printed.
	var href string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector("#attempts a.log-stdout").href`, &href)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(href)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "hello-stdout-") {
		t.Errorf("GET %s: %d %q, want the task's stdout", href, resp.StatusCode, body)
	}
	// The worker's own log (its container's stderr) answers too.
	var workerLog string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector("#attempts a.log-worker").href`, &workerLog)); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(workerLog); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s (the worker's log): %v %v", workerLog, resp, err)
	} else {
		resp.Body.Close()
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"workers"), chromedp.WaitVisible(`#nodes tr`), shot("workers.png")); err != nil {
		t.Fatal(err)
	}
	ans, err := am.Query(ta.ctx, ta.Loop(), core.DAGQuery{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	st := ans.Status
	if st.State != core.DAGSucceeded {
		t.Errorf("DAG %s: %s", st.State, st.Diagnostics)
	}
}
