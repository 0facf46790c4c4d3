package scheduler

import (
	"errors"
	"strings"
	"testing"
)

func TestSizeWorker(t *testing.T) {
	local := AllocationLimits{MaxMB: 4096}             // a local virtual node
	yarn := AllocationLimits{MinMB: 1024, MaxMB: 8192} // YARN's defaults
	mini := AllocationLimits{MinMB: 64, MaxMB: 2048}   // the test minicluster
	tests := []struct {
		name     string
		tasks    []TaskShape
		maxTasks int
		lim      AllocationLimits
		want     int64
	}{
		// The case: one 256 MB map (and a reduce of 1) held a
		// 1024 MB worker. Widest vertex 1: one task per worker.
		{"one small task", []TaskShape{{256, 1}, {256, 1}}, 4, local, 256},
		// Widest vertex 2: two 256 MB tasks share a worker = 512.
		{"small word count", []TaskShape{{256, 1}, {256, 2}}, 4, local, 512},
		// Widest 8 > cap 4: 4 × 512 = 2048.
		{"wide, capped by tasks", []TaskShape{{512, 8}, {256, 2}}, 4, local, 2048},
		// The largest task sets the size: 4 × 1024 = 4096 fits the node.
		{"largest task sets it", []TaskShape{{256, 10}, {1024, 1}}, 4, local, 4096},
		// 4 × 1500 = 6000 > 4096: 2 × 1500 = 3000 is the most that fits.
		{"bounded by the node", []TaskShape{{1500, 6}}, 4, local, 3000},
		// Round up to YARN's minimum: 1 × 256 → 1024 (YARN grants that anyway).
		{"rounded to min allocation", []TaskShape{{256, 1}}, 4, yarn, 1024},
		// 3 × 700 = 2100 → 3072 on YARN's 1024 steps.
		{"rounded up", []TaskShape{{700, 3}}, 4, yarn, 3072},
		// Minicluster: 2 × 300 = 600 → 640 (64 MB steps).
		{"minicluster steps", []TaskShape{{300, 2}}, 4, mini, 640},
		// 4 × 600 = 2400 → 2432 > 2048; 3 × 600 = 1800 → 1856 fits.
		{"rounding pushes past max", []TaskShape{{600, 4}}, 4, mini, 1856},
		// Max not a multiple of min: 1 × 1500 → 2048 > 2000; the max it is.
		{"max not a step", []TaskShape{{1500, 1}}, 4, AllocationLimits{MinMB: 1024, MaxMB: 2000}, 2000},
		// No limits known (the simulator): no bound, no rounding.
		{"no limits", []TaskShape{{300, 16}}, 4, AllocationLimits{}, 1200},
		// maxTasks 1: one task per worker, as MapReduce.
		{"one per worker", []TaskShape{{300, 16}}, 1, local, 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SizeWorker(tt.tasks, tt.maxTasks, tt.lim)
			if err != nil || got != tt.want {
				t.Fatalf("SizeWorker = %d, %v; want %d", got, err, tt.want)
			}
			// Never 4× what the DAG can run at once: the worker holds at
			// most (widest vertex) of its largest tasks, beyond rounding.
			var need int64
			widest := 0
			for _, s := range tt.tasks {
				need, widest = max(need, s.MemoryMB), max(widest, s.Parallelism)
			}
			if bound := roundUp(need*int64(widest), tt.lim.MinMB); got > bound {
				t.Errorf("worker %d MB > %d MB, what %d tasks of %d MB need", got, bound, widest, need)
			}
		})
	}
}

func TestSizeWorkerTaskTooBig(t *testing.T) {
	_, err := SizeWorker([]TaskShape{{256, 4}, {5000, 1}}, 4, AllocationLimits{MaxMB: 4096})
	var se *SizeError
	if !errors.As(err, &se) || se.TaskMB != 5000 || se.MaxMB != 4096 ||
		!strings.Contains(err.Error(), "a task asks 5000 MB, more than the cluster's largest container (4096 MB)") {
		t.Fatalf("err = %v, want a *SizeError for 5000 MB over 4096 MB", err)
	}
}

func TestMemoryRetryNext(t *testing.T) {
	tests := []struct {
		name      string
		r         MemoryRetry
		asked     int64
		workerMB  int64
		want      int64
		wantAtCap bool
	}{
		// The default doubles: 256 → 512 → 1024 in a 1024 MB group.
		{"double", MemoryRetry{Factor: 2}, 256, 1024, 512, false},
		{"double again", MemoryRetry{Factor: 2}, 512, 1024, 1024, false},
		// 1024 × 2 = 2048 > the 1024 MB worker: capped, and no growth.
		{"at the worker's size", MemoryRetry{Factor: 2}, 1024, 1024, 1024, true},
		// 700 × 2 = 1400 capped to 1024: grows, but not by the factor.
		{"capped by the worker", MemoryRetry{Factor: 2}, 700, 1024, 1024, false},
		// The key caps below the worker: 256 × 2 = 512 > 384.
		{"capped by the key", MemoryRetry{Factor: 2, MaxMB: 384}, 256, 1024, 384, false},
		{"at the key's cap", MemoryRetry{Factor: 2, MaxMB: 384}, 384, 1024, 384, true},
		// A key above the worker size: the worker still caps it.
		{"key above worker", MemoryRetry{Factor: 2, MaxMB: 4096}, 768, 1024, 1024, false},
		// A cap below the ask never shrinks it: 512 stays 512, at the cap.
		{"cap below ask", MemoryRetry{Factor: 2, MaxMB: 300}, 512, 1024, 512, true},
		// 1.5: 256 → 384 → 576 → 864; 333 × 1.5 = 499.5 → 500 (rounded up).
		{"1.5 of 256", MemoryRetry{Factor: 1.5}, 256, 1024, 384, false},
		{"1.5 of 384", MemoryRetry{Factor: 1.5}, 384, 1024, 576, false},
		{"1.5 of 333", MemoryRetry{Factor: 1.5}, 333, 1024, 500, false},
		// 1.1 of 100 is 110.00000000000001 in floating point: 110, not 111.
		{"float noise", MemoryRetry{Factor: 1.1}, 100, 1024, 110, false},
		// Factor 1: the same memory again, which is "at the cap".
		{"factor 1", MemoryRetry{Factor: 1}, 256, 1024, 256, true},
		// Factor 0 means the default 2.
		{"default factor", MemoryRetry{}, 256, 1024, 512, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, atCap := tt.r.Next(tt.asked, tt.workerMB)
			if got != tt.want || atCap != tt.wantAtCap {
				t.Fatalf("Next(%d, %d) = %d, %v; want %d, %v", tt.asked, tt.workerMB, got, atCap, tt.want, tt.wantAtCap)
			}
		})
	}
}
