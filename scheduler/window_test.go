package scheduler

import (
	"math"
	"testing"
	"time"
)

// at is a time t seconds after an arbitrary epoch.
func at(t int) time.Time {
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(t) * time.Second)
}

// smp is a sample at t with running/offered MB, workers and attempts.
func smp(t int, running, offered int64, workers, attempts int) Sample {
	return Sample{At: at(t), RunningMB: running, OfferedMB: offered, Workers: workers, RunningAttempts: attempts}
}

func TestWindowUsage(t *testing.T) {
	tests := []struct {
		name    string
		length  int // seconds
		samples []Sample
		now     int
		avg     float64 // percent
		maxi    float64 // percent
		ok      bool
	}{
		{
			name:    "both schemes",
			length:  60,
			samples: []Sample{smp(10, 200, 1000, 2, 1), smp(20, 900, 1000, 2, 5), smp(30, 400, 1000, 2, 2)},
			now:     30,
			avg:     50, // (20 + 90 + 40) / 3
			maxi:    90,
			ok:      true,
		},
		{
			name:   "samples without a worker do not count",
			length: 60,
			// t=10 and t=20: no worker (a 0% there would hold the scale-out back)
			samples: []Sample{smp(10, 0, 0, 0, 0), smp(20, 0, 1000, 0, 0), smp(30, 600, 1000, 1, 3), smp(40, 800, 1000, 1, 4)},
			now:     40,
			avg:     70, // (60 + 80) / 2
			maxi:    80,
			ok:      true,
		},
		{
			name:   "idle samples at the head are dropped",
			length: 600,
			// workers idle for 30 s, then a burst: 90% and 80%
			samples: []Sample{smp(10, 0, 2000, 2, 0), smp(20, 0, 2000, 2, 0), smp(30, 0, 2000, 2, 0),
				smp(40, 1800, 2000, 2, 9), smp(50, 1600, 2000, 2, 8)},
			now:  50,
			avg:  85, // (90 + 80) / 2, not (0+0+0+90+80) / 5 = 34
			maxi: 90,
			ok:   true,
		},
		{
			name:   "idle samples after the first busy one count",
			length: 600,
			samples: []Sample{smp(10, 0, 2000, 2, 0), smp(20, 1800, 2000, 2, 9),
				smp(30, 0, 2000, 2, 0), smp(40, 600, 2000, 2, 3)},
			now:  40,
			avg:  40, // (90 + 0 + 30) / 3
			maxi: 90,
			ok:   true,
		},
		{
			name:    "a wholly idle window is 0%, so the group can scale in",
			length:  600,
			samples: []Sample{smp(10, 0, 2000, 2, 0), smp(20, 0, 2000, 2, 0)},
			now:     20,
			avg:     0,
			maxi:    0,
			ok:      true,
		},
		{
			name:    "no sample with a worker: no usage",
			length:  600,
			samples: []Sample{smp(10, 0, 0, 0, 0)},
			now:     10,
			ok:      false,
		},
		{
			name:   "samples older than the window are forgotten",
			length: 30,
			// t=10 and t=20 are at or before 50-30 = 20
			samples: []Sample{smp(10, 1000, 1000, 1, 5), smp(20, 1000, 1000, 1, 5), smp(30, 200, 1000, 1, 1), smp(50, 400, 1000, 1, 2)},
			now:     50,
			avg:     30, // (20 + 40) / 2
			maxi:    40,
			ok:      true,
		},
		{
			name:   "the window ends at now",
			length: 600,
			// t=60 lies after now=50 and does not count
			samples: []Sample{smp(40, 500, 1000, 1, 2), smp(60, 1000, 1000, 1, 5)},
			now:     50,
			avg:     50,
			maxi:    50,
			ok:      true,
		},
		{
			name:   "an out-of-order sample is ignored",
			length: 600,
			// t=15 arrives after t=20
			samples: []Sample{smp(10, 300, 1000, 1, 1), smp(20, 500, 1000, 1, 2), smp(15, 1000, 1000, 1, 5)},
			now:     20,
			avg:     40, // (30 + 50) / 2
			maxi:    50,
			ok:      true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := window{length: time.Duration(tt.length) * time.Second}
			for _, s := range tt.samples {
				w.add(s)
			}
			for _, c := range []struct {
				scheme UsageScheme
				want   float64
			}{{UsageAverage, tt.avg}, {UsageMaximum, tt.maxi}} {
				got, ok := w.usage(at(tt.now), c.scheme)
				if ok != tt.ok || math.Abs(100*got-c.want) > 1e-9 {
					t.Errorf("%s: usage = %.4g%%, %v; want %.4g%%, %v", c.scheme, 100*got, ok, c.want, tt.ok)
				}
			}
		})
	}
}
