package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/scheduler"
)

// Knobs: every setting of a policy that `ebb sim --set KEY=VALUE` (or a
// policy file, or --sweep) may change, by the key mr3-site.xml gives it
// where there is one. One literal table; an unknown key is an error that
// lists them.

// knob is one setting: which policies it means something for, and how to
// set it from a string.
type knob struct {
	key     string
	doc     string
	applies func(p *Policy) bool
	set     func(p *Policy, v string) error
}

func autoscaled(p *Policy) bool { return p.Core.Scaling == mr3Scaling }

// predictive: the latency target means something only to an autoscaler
// that sizes from the work in sight; mr3 ignores it, so a sweep of the
// target runs mr3 once.
func predictive(p *Policy) bool { return autoscaled(p) && p.Core.Autoscale.Predictive }
func elastic(p *Policy) bool    { return !p.Oracle && !p.FixedCluster && p.Static == 0 }
func anyCore(p *Policy) bool    { return !p.Oracle }

// secsKnob sets a duration given in whole (or fractional) seconds.
func secsKnob(key, doc string, applies func(*Policy) bool, field func(*Policy) *time.Duration) knob {
	return knob{key, doc, applies, func(p *Policy, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			return fmt.Errorf("want seconds ≥ 0")
		}
		*field(p) = time.Duration(f * float64(time.Second))
		return nil
	}}
}

func intKnob(key, doc string, applies func(*Policy) bool, field func(*Policy) *int) knob {
	return knob{key, doc, applies, func(p *Policy, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("want a whole number ≥ 0")
		}
		*field(p) = n
		return nil
	}}
}

func boolKnob(key, doc string, applies func(*Policy) bool, field func(*Policy) *bool) knob {
	return knob{key, doc, applies, func(p *Policy, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
		*field(p) = b
		return nil
	}}
}

func as(p *Policy) *scheduler.AutoscaleConfig { return &p.Core.Autoscale }

var knobs = []knob{
	secsKnob(scheduler.KeyInterval, "autoscaler sampling interval", autoscaled, func(p *Policy) *time.Duration { return &as(p).Interval }),
	secsKnob(scheduler.KeyWindow, "usage window", autoscaled, func(p *Policy) *time.Duration { return &as(p).Window }),
	{scheduler.KeyScheme, "average | maximum", autoscaled, func(p *Policy, v string) error {
		s, err := scheduler.ParseUsageScheme(v)
		as(p).Scheme = s
		return err
	}},
	intKnob(scheduler.KeyOutThreshold, "scale-out threshold, %", autoscaled, func(p *Policy) *int { return &as(p).OutThresholdPercent }),
	secsKnob(scheduler.KeyOutGracePeriod, "scale-out grace period", autoscaled, func(p *Policy) *time.Duration { return &as(p).OutGracePeriod }),
	intKnob(scheduler.KeyInitialWorkers, "initial workers (0: from the queue)", autoscaled, func(p *Policy) *int { return &as(p).InitialWorkers }),
	intKnob(scheduler.KeyIncrementWorkers, "workers per scale-out (0: computed)", autoscaled, func(p *Policy) *int { return &as(p).IncrementWorkers }),
	intKnob(scheduler.KeyInThreshold, "scale-in threshold, %", autoscaled, func(p *Policy) *int { return &as(p).InThresholdPercent }),
	secsKnob(scheduler.KeyInDelay, "no scale-in this long after a scale-out", autoscaled, func(p *Policy) *time.Duration { return &as(p).InDelayAfterScaleOut }),
	secsKnob(scheduler.KeyInGracePeriod, "scale-in grace period", autoscaled, func(p *Policy) *time.Duration { return &as(p).InGracePeriod }),
	intKnob(scheduler.KeyMinHosts, "scale-in keeps this many nodes", autoscaled, func(p *Policy) *int { return &as(p).MinHosts }),
	intKnob(scheduler.KeyDecrementHosts, "nodes per scale-in (0: computed)", autoscaled, func(p *Policy) *int { return &as(p).DecrementHosts }),
	boolKnob(scheduler.KeyWaitDAGFinished, "drained workers serve the DAGs active at the scale-in", autoscaled, func(p *Policy) *bool { return &as(p).WaitDAGFinished }),
	boolKnob(scheduler.KeyPredictive, "predictive scale-out", autoscaled, func(p *Policy) *bool { return &as(p).Predictive }),
	{scheduler.KeyTargetSlowdown, "the p95 slowdown promised (predictive scale-out derives its horizon from it)", predictive, func(p *Policy, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 1 || f > 1000 {
			return fmt.Errorf("want a number from 1 to 1000")
		}
		as(p).TargetSlowdown = f
		return nil
	}},
	secsKnob(scheduler.KeyHeadroomWindow, "a scale-in keeps the workers this window's peak demand needs (0: off)", autoscaled, func(p *Policy) *time.Duration { return &as(p).HeadroomWindow }),
	{scheduler.KeyBootTime, "hysteresis: a scale-in waits for usage low this long (0: off; ebb: the provisioning delay)", autoscaled, func(p *Policy, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			return fmt.Errorf("want seconds ≥ 0")
		}
		p.Core.Autoscale.BootTime = time.Duration(f * float64(time.Second))
		p.BootFromCloud = false
		return nil
	}},
	boolKnob("sim.ebb.fixed.horizon", "the control: the policy before the target (a fixed 120 s horizon, no feedback)", predictive, func(p *Policy) *bool { return &as(p).FixedHorizon }),
	{KeyBillingAware, "billing-aware scale-in: true, false, or auto (on when the cloud bills per period; ebb only)", elastic, func(p *Policy, v string) error {
		switch v {
		case "auto", "true", "false":
			p.BillingAware = v
			return nil
		}
		return fmt.Errorf("want auto, true or false")
	}},
	{"mr3.container.idle.timeout.ms", "an idle worker leaves after this (0 = at the first tick it is idle)", anyCore, func(p *Policy, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("want milliseconds >= 0")
		}
		p.Core.IdleTimeout = time.Duration(n) * time.Millisecond
		return nil
	}},
	{"ebb.packing.scheme", "packed | uniform", anyCore, func(p *Policy, v string) error {
		if v != "packed" && v != "uniform" {
			return fmt.Errorf("want packed or uniform")
		}
		p.Packing = v
		return nil
	}},
	{"ebb.scheduler.scheme", "which DAG's attempt runs next: fifo | fair (ras is its own policy)", elastic, func(p *Policy, v string) error {
		if v != "fifo" && v != "fair" {
			return fmt.Errorf("want fifo or fair")
		}
		o, err := scheduler.NewTaskOrder(v)
		p.Core.Tasks = o
		return err
	}},
	intKnob("ebb.scheduler.reserve.percent", "memory DAGs running attempts leave free for DAGs that arrive, % (fifo and fair, autoscaled)", autoscaled, func(p *Policy) *int { return &p.Core.ReservePercent }),
	intKnob("ebb.packing.high.threshold.percent", "packing's high-usage threshold, %", anyCore, func(p *Policy) *int { return &p.HighThreshold }),
	intKnob("ebb.packing.min.nodes", "packing is off below this many nodes", anyCore, func(p *Policy) *int { return &p.MinNodes }),
	boolKnob("ebb.speculation.enabled", "backup attempts for stragglers (see --slow-node-every)", anyCore, func(p *Policy) *bool { return &p.Core.Speculation.Enabled }),
	intKnob("ebb.speculation.cap.percent", "share of a vertex's tasks that may run a backup at once, %", anyCore, func(p *Policy) *int { return &p.Core.Speculation.CapPercent }),
	{"ebb.speculation.min.runtime.ms", "an attempt is a backup candidate after running this long", anyCore, func(p *Policy, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("want milliseconds >= 0")
		}
		p.Core.Speculation.MinRuntime = time.Duration(n) * time.Millisecond
		return nil
	}},
	intKnob("ebb.speculation.min.allowed.tasks", "backups a vertex may run at once however few its tasks", anyCore, func(p *Policy) *int { return &p.Core.Speculation.MinAllowed }),
	{"ebb.speculation.multiplier", "a candidate's estimated run time is more than this times its vertex's median", anyCore, func(p *Policy, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 1 {
			return fmt.Errorf("want a number >= 1")
		}
		p.Core.Speculation.Multiplier = f
		return nil
	}},
	secsKnob("sim.spark-da.backlog.timeout.secs", "spark-da: backlog before the first ask and between asks", func(p *Policy) bool { return p.Core.Scaling == core.ScaleSparkDA },
		func(p *Policy) *time.Duration { return &p.Core.BacklogTimeout }),
}

// KeyBillingAware switches billing-aware scale-in in the sim: the
// autoscaler's ebb.billing.period.secs is the cloud's period, and an empty
// node is kept until near the end of its paid period (billing.go).
const KeyBillingAware = "sim.billing.aware"

// KnobKeys lists the keys Set knows, in table order, with what they do.
func KnobKeys() []string {
	out := make([]string, len(knobs))
	for i, k := range knobs {
		out[i] = k.key + " (" + k.doc + ")"
	}
	return out
}

// Set changes one setting of p. applied is false when the key means
// nothing for p (an autoscaler key for spark-da, say): p is unchanged.
func (p *Policy) Set(key, value string) (applied bool, err error) {
	i := slices.IndexFunc(knobs, func(k knob) bool { return k.key == key })
	if i < 0 {
		names := make([]string, len(knobs))
		for j, k := range knobs {
			names[j] = k.key
		}
		return false, fmt.Errorf("unknown policy key %q: want one of %s", key, strings.Join(names, ", "))
	}
	k := knobs[i]
	if !k.applies(p) {
		return false, nil
	}
	if err := k.set(p, value); err != nil {
		return false, fmt.Errorf("%s = %q: %w", key, value, err)
	}
	return true, nil
}
