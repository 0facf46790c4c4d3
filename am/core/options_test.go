package core

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/packing"
	"github.com/ebb-am/ebb/scheduler"
)

// withDefaults gives the options a test leaves zero the key table's
// defaults (read through conf: the core's tests cannot import am/amconf,
// which imports the core), and the uniform allocator and fifo order the
// tests were written against. A test that means a zero says so with
// NewCore directly.
func withDefaults(o CoreOptions) CoreOptions {
	d := conf.Defaults()
	setInt := func(v *int, key string) {
		if *v == 0 {
			*v = d.Int(key)
		}
	}
	setDur := func(v *time.Duration, key string) {
		if *v == 0 {
			*v = d.Duration(key)
		}
	}
	setInt(&o.MaxConcurrentDAGs, "mr3.am.max.num.concurrent.dags")
	setInt(&o.MaxFailedAttempts, "mr3.am.task.max.failed.attempts")
	setInt(&o.BlacklistFailurePercent, "mr3.am.maxtaskfailure.percent")
	setInt(&o.WorkerTasks, "ebb.worker.auto.size.max.tasks")
	setInt(&o.RetainDAGs, "ebb.am.dag.retained.count")
	setInt(&o.RetainSummaries, "ebb.am.dag.summary.retained.count")
	setDur(&o.WorkerTimeout, "mr3.heartbeat.container.timeout.ms")
	setDur(&o.TaskTimeout, "mr3.heartbeat.task.timeout.ms")
	setDur(&o.IdleTimeout, "mr3.container.idle.timeout.ms")
	setDur(&o.RecycleInterval, "mr3.check.memory.usage.event.interval.secs")
	setDur(&o.RASCycle, "ebb.ras.control.cycle.secs")
	setInt(&o.StallKillPercent, "ebb.slowstart.preemption.percentage")
	setDur(&o.StallKillInterval, "ebb.slowstart.preemption.interval.ms")
	setInt(&o.Speculation.CapPercent, "ebb.speculation.cap.percent")
	setInt(&o.Speculation.MinAllowed, "ebb.speculation.min.allowed.tasks")
	if o.Speculation.Multiplier == 0 {
		o.Speculation.Multiplier = d.Float("ebb.speculation.multiplier")
	}
	if o.MemoryRetry.Factor == 0 {
		o.MemoryRetry.Factor = d.Float("ebb.task.memory.retry.factor")
	}
	if o.BacklogTimeout == 0 {
		o.BacklogTimeout = time.Second // Spark's; no key
	}
	if o.Tasks == nil {
		o.Tasks, _ = scheduler.NewTaskOrder("fifo")
	}
	if o.Allocator == nil {
		o.Allocator, _ = packing.New("uniform", packing.Options{})
	}
	return o
}

// The Core fills nothing in: an option it cannot use is an error naming
// the field and its key, not a silent default.
func TestNewCoreRefusesBadOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(o *CoreOptions)
		want string
	}{
		{"negative idle timeout", func(o *CoreOptions) { o.IdleTimeout = -time.Second },
			"core option IdleTimeout (mr3.container.idle.timeout.ms) = -1s: want >= 0 (0: at once)"},
		{"no concurrent DAGs", func(o *CoreOptions) { o.MaxConcurrentDAGs = 0 },
			"core option MaxConcurrentDAGs (mr3.am.max.num.concurrent.dags) = 0: want >= 1"},
		{"no allocator", func(o *CoreOptions) { o.Allocator = nil },
			"core option Allocator (ebb.packing.scheme) = <nil>: want an allocator"},
		{"slow start with no stall kills", func(o *CoreOptions) { o.SlowStart, o.StallKillPercent = 0.05, 0 },
			"core option StallKillPercent (ebb.slowstart.preemption.percentage) = 0: want 1 to 100 under slow start"},
		{"slow start with no stall interval", func(o *CoreOptions) { o.SlowStart, o.StallKillInterval = 0.05, 0 },
			"core option StallKillInterval (ebb.slowstart.preemption.interval.ms) = 0s: want > 0 under slow start"},
		{"a speculation multiplier below 1", func(o *CoreOptions) { o.Speculation.Multiplier = 0.5 },
			"core option Speculation.Multiplier (ebb.speculation.multiplier) = 0.5: want >= 1"},
		{"a negative minimum of backups", func(o *CoreOptions) { o.Speculation.MinAllowed = -1 },
			"core option Speculation.MinAllowed (ebb.speculation.min.allowed.tasks) = -1: want >= 0"},
		{"spark-da without a backlog timeout", func(o *CoreOptions) { o.Scaling, o.BacklogTimeout = ScaleSparkDA, 0 },
			"core option BacklogTimeout = 0s: want > 0 when scaling as Spark's dynamic allocation"},
	} {
		o := withDefaults(CoreOptions{})
		tc.edit(&o)
		_, err := NewCore(o)
		var oe *OptionError
		if !errors.As(err, &oe) || err.Error() != tc.want {
			t.Errorf("%s: NewCore = %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := NewCore(withDefaults(CoreOptions{})); err != nil {
		t.Fatalf("the table's defaults: %v", err)
	}
}

// mr3.container.idle.timeout.ms=0 behaves as its doc says: an idle worker
// is released after the timeout, and after 0 that is at the first tick it
// is idle (it used to become five minutes).
func TestIdleTimeoutZeroReleasesAtOnce(t *testing.T) {
	k, _ := conf.Lookup("mr3.container.idle.timeout.ms")
	if !strings.Contains(k.Doc, "0 = at the first tick") {
		t.Fatalf("the key's doc no longer says what 0 means: %q", k.Doc)
	}
	o := withDefaults(CoreOptions{})
	o.IdleTimeout = 0
	f := newFakeExact(t, o)
	f.submit(oneTask("d1", "g"))
	f.addWorker("w1", "g", "n1", 1024)
	f.finishAll()
	f.tick(time.Millisecond)
	if len(f.stopped) != 1 || f.stopped[0] != "w1" {
		t.Fatalf("idle timeout 0: stopped %v a millisecond after the worker went idle, want [w1]", f.stopped)
	}
}
