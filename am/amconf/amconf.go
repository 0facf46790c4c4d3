// Package amconf owns the mapping from configuration keys to the AM core's
// typed options: the one place an mr3./ebb. key becomes a core.CoreOptions
// field, and so the one source of the core's defaults (the key table's, via
// conf). The core never sees the configuration and fills nothing: it
// validates what it is given (core.CoreOptions.Validate).
package amconf

import (
	"errors"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/packing"
	"github.com/ebb-am/ebb/scheduler"
)

// SlowStart is ebb.slowstart.completed.producers for the Core, whose 0
// means off: the key's 0 means "after the first producer", which any
// fraction small enough gives too.
func SlowStart(c *conf.Config) float64 {
	if f := c.Float("ebb.slowstart.completed.producers"); f > 0 {
		return f
	}
	return 1e-9
}

// PackingOptions builds the allocator options from the ebb.packing.* keys.
func PackingOptions(c *conf.Config) packing.Options {
	return packing.Options{
		HighThresholdPercent: c.Int("ebb.packing.high.threshold.percent"),
		MinNodes:             c.Int("ebb.packing.min.nodes"),
		LocalityDelay:        c.Duration("ebb.packing.locality.delay.ms"),
	}
}

// AutoscaleConfig builds the autoscaler's options from the mr3.auto.scale.*
// keys. Rules across keys (scale-in below scale-out, ...) are the
// autoscaler's; their errors come back naming the key and where it was set.
func AutoscaleConfig(c *conf.Config) (scheduler.AutoscaleConfig, error) {
	scheme, err := scheduler.ParseUsageScheme(c.String(scheduler.KeyScheme))
	if err != nil {
		return scheduler.AutoscaleConfig{}, c.ErrorFor(scheduler.KeyScheme, "average or maximum")
	}
	a := scheduler.AutoscaleConfig{
		Interval:             c.Duration(scheduler.KeyInterval),
		Window:               c.Duration(scheduler.KeyWindow),
		Scheme:               scheme,
		OutThresholdPercent:  c.Int(scheduler.KeyOutThreshold),
		OutGracePeriod:       c.Duration(scheduler.KeyOutGracePeriod),
		InitialWorkers:       c.Int(scheduler.KeyInitialWorkers),
		IncrementWorkers:     c.Int(scheduler.KeyIncrementWorkers),
		InThresholdPercent:   c.Int(scheduler.KeyInThreshold),
		InDelayAfterScaleOut: c.Duration(scheduler.KeyInDelay),
		InGracePeriod:        c.Duration(scheduler.KeyInGracePeriod),
		MinHosts:             c.Int(scheduler.KeyMinHosts),
		DecrementHosts:       c.Int(scheduler.KeyDecrementHosts),
		WaitDAGFinished:      c.Bool(scheduler.KeyWaitDAGFinished),
		Predictive:           c.Bool(scheduler.KeyPredictive),
		TargetSlowdown:       c.Float(scheduler.KeyTargetSlowdown),
		BillingPeriod:        c.Duration(scheduler.KeyBillingPeriod),
		BootTime:             c.Duration(scheduler.KeyBootTime),
		HeadroomWindow:       c.Duration(scheduler.KeyHeadroomWindow),
	}
	if err := a.Validate(); err != nil {
		var ce *scheduler.ConfigError
		if errors.As(err, &ce) {
			return a, c.ErrorFor(ce.Key, ce.Allowed)
		}
		return a, err
	}
	return a, nil
}

// CoreOptions maps configuration keys to the Core's typed options; the
// Core itself never sees the configuration.
func CoreOptions(c *conf.Config, idPrefix string) (core.CoreOptions, error) {
	alloc, err := packing.New(c.String("ebb.packing.scheme"), PackingOptions(c))
	if err != nil {
		return core.CoreOptions{}, err
	}
	as, err := AutoscaleConfig(c)
	if err != nil {
		return core.CoreOptions{}, err
	}
	recycle, err := scheduler.ParseRecycleScheme(c.String("mr3.container.scheduler.scheme"))
	if err != nil {
		return core.CoreOptions{}, c.ErrorFor("mr3.container.scheduler.scheme", "none, fifo or fair")
	}
	tasks, err := scheduler.NewTaskOrder(c.String("ebb.scheduler.scheme"))
	if err != nil {
		return core.CoreOptions{}, c.ErrorFor("ebb.scheduler.scheme", "fifo, fair or ras")
	}
	scaling := core.ScaleOnDemand
	if c.Bool("mr3.enable.auto.scaling") {
		scaling = core.ScaleAutoscaler
	}
	o := core.CoreOptions{
		IDPrefix:                idPrefix,
		MaxConcurrentDAGs:       c.Int("mr3.am.max.num.concurrent.dags"),
		MaxFailedAttempts:       c.Int("mr3.am.task.max.failed.attempts"),
		WorkerTimeout:           c.Duration("mr3.heartbeat.container.timeout.ms"),
		TaskTimeout:             c.Duration("mr3.heartbeat.task.timeout.ms"),
		IdleTimeout:             c.Duration("mr3.container.idle.timeout.ms"),
		MaxWorkers:              c.Int("mr3.container.max.num.workers"),
		MaxPendingRequests:      c.Int("mr3.am.resourcescheduler.max.requests.per.taskscheduler"),
		AskTimeout:              c.Duration("ebb.packing.ask.timeout.ms"),
		Blacklisting:            c.Bool("mr3.am.node-blacklisting.enabled"),
		BlacklistFailurePercent: c.Int("mr3.am.maxtaskfailure.percent"),
		Allocator:               alloc,
		Scaling:                 scaling,
		Autoscale:               as,
		BillingStartOffset:      c.Duration("ebb.billing.start.offset.secs"),
		Recycle:                 recycle,
		Tasks:                   tasks,
		ReservePercent:          c.Int("ebb.scheduler.reserve.percent"),
		RASCycle:                c.Duration("ebb.ras.control.cycle.secs"),
		SlowStart:               SlowStart(c),
		StallKillPercent:        c.Int("ebb.slowstart.preemption.percentage"),
		StallKillInterval:       c.Duration("ebb.slowstart.preemption.interval.ms"),
		RecycleInterval:         c.Duration(scheduler.KeyInterval),
		RemoveEmptyKind:         c.Bool("mr3.container.scheduler.remove.empty.kind"),
		WorkerTasks:             c.Int("ebb.worker.auto.size.max.tasks"),
		MemoryRetry: scheduler.MemoryRetry{Factor: c.Float("ebb.task.memory.retry.factor"),
			MaxMB: c.Int64("ebb.task.memory.retry.max.mb")},
		RetainDAGs:      c.Int("ebb.am.dag.retained.count"),
		RetainDAGsFor:   c.Duration("ebb.am.dag.retained.secs"),
		RetainSummaries: c.Int("ebb.am.dag.summary.retained.count"),
		Uber: core.UberOptions{Enabled: c.Bool("ebb.am.uber.enabled"), MaxTasks: c.Int("ebb.am.uber.max.tasks"),
			MaxInputBytes: c.Int64("ebb.am.uber.max.input.mb") << 20, MemoryMB: c.Int64("ebb.am.uber.memory.mb")},
		Speculation: core.SpeculationOptions{Enabled: c.Bool("ebb.speculation.enabled"),
			CapPercent: c.Int("ebb.speculation.cap.percent"), MinRuntime: c.Duration("ebb.speculation.min.runtime.ms"),
			MinAllowed: c.Int("ebb.speculation.min.allowed.tasks"), Multiplier: c.Float("ebb.speculation.multiplier"),
			SlowNodeWait: c.Duration("ebb.packing.locality.delay.ms")},
	}
	// The table's bounds make every value above one the Core accepts; a
	// failure here is a table and Core that disagree, named by the Core.
	if err := o.Validate(); err != nil {
		return core.CoreOptions{}, err
	}
	return o, nil
}

// Defaults are the Core's options from the key table's defaults alone (no
// files, no environment): for tests and the simulator, which then change
// what they mean to change.
func Defaults() core.CoreOptions {
	o, err := CoreOptions(conf.Defaults(), "")
	if err != nil {
		panic("amconf: the key table's defaults do not make valid core options: " + err.Error())
	}
	return o
}
