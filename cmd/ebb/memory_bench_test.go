package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/internal/rolllog"
)

// BenchmarkSessionMemory is issue 24's memory check, not a timed test: a
// local session (the AM in this process, workers real `ebb worker`
// processes) runs EBB_BENCH_DAGS tiny DAGs (default 100,000: one task
// running /bin/true, each into an output of its own) from
// EBB_BENCH_CLIENTS concurrent clients (default 200), and prints the
// process's RSS and live heap every EBB_BENCH_EVERY DAGs (default 10,000).
// The AM's memory must plateau: what it keeps of a finished DAG is bounded
// by ebb.am.dag.retained.count and ebb.am.dag.summary.retained.count.
//
//	scripts/bench/am-memory.sh    (or: go test ./cmd/ebb -run '^$' -bench SessionMemory -benchtime 1x)
func BenchmarkSessionMemory(b *testing.B) {
	total, clients, every := envInt("EBB_BENCH_DAGS", 100000), envInt("EBB_BENCH_CLIENTS", 200), envInt("EBB_BENCH_EVERY", 10000)
	sets := []string{"ebb.local.nodes=2", "ebb.local.max.nodes=2", "ebb.local.node.memory.mb=8192", "mr3.am.max.num.concurrent.dags=256",
		"mr3.container.idle.timeout.ms=600000", "ebb.session.idle.timeout.secs=0"}
	sets = append(sets, strings.Fields(os.Getenv("EBB_BENCH_SET"))...)
	for range b.N {
		a, root := startBenchAM(b, sets)
		spec := []byte(`
name: tiny
containerGroup: {name: g, workerMemoryMB: 2048}
vertices: [{name: v, command: [true], parallelism: 1, memoryMB: 128}]
`)
		var next, done, failed atomic.Int64
		var mu sync.Mutex
		start := time.Now()
		report := func(n int64) {
			mu.Lock()
			defer mu.Unlock()
			rss := rssKB()
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			fmt.Printf("dags=%d failed=%d elapsed=%s rss_mb=%.1f heap_live_mb=%.1f goroutines=%d\n", n, failed.Load(),
				time.Since(start).Round(time.Second), float64(rss)/1024, float64(ms.HeapAlloc)/(1<<20), runtime.NumGoroutine())
		}
		report(0)
		var wg sync.WaitGroup
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := next.Add(1)
					if i > int64(total) {
						return
					}
					out := filepath.Join(root, "bench-out", strconv.FormatInt(i/1000, 10), strconv.FormatInt(i, 10))
					if err := runOne(a, spec, out); err != nil {
						failed.Add(1)
						b.Logf("DAG %d: %v", i, err)
					}
					if n := done.Add(1); n%int64(every) == 0 {
						report(n)
					}
				}
			}()
		}
		wg.Wait()
		if failed.Load() > 0 {
			b.Fatalf("%d of %d DAGs did not succeed", failed.Load(), total)
		}
	}
}

func runOne(a *am.AM, spec []byte, out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	id, err := a.Submit(ctx, am.SubmitRequest{Spec: spec, SpecName: "tiny.yaml", Output: out, Client: "bench"})
	if err != nil {
		return err
	}
	st, err := a.WaitDAG(ctx, id)
	if err != nil {
		return err
	}
	if st.State != core.DAGSucceeded {
		return fmt.Errorf("%s %s: %s", id, st.State, st.Diagnostics)
	}
	return nil
}

// startBenchAM starts a local AM as startTestAM does, for a benchmark.
func startBenchAM(b *testing.B, sets []string) (*am.AM, string) {
	b.Helper()
	b.Setenv("EBB_EXECUTABLE", ebbBin)
	b.Setenv("HADOOP_CONF_DIR", "")
	b.Setenv("EBB_CONF_DIR", "")
	c, err := (&confFlags{sets: sets}).load(newLogger("warn", "", ""))
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	log := newQuietLogger(filepath.Join(root, "logs"), "am.log", rolllog.Roll{}, false)
	a, _, err := startLocal(context.Background(), c, log, root)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Logf("the AM after the benchmark: %v", err)
		}
	})
	return a, root
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// rssKB is this process's resident set (VmRSS) in KiB.
func rssKB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
