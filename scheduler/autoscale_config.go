package scheduler

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The mr3-site.xml keys the autoscaler reads. Errors name them so that an
// admin can find the line to fix; the AM maps each key to one field of
// AutoscaleConfig and nothing else.
const (
	KeyInterval         = "mr3.check.memory.usage.event.interval.secs"
	KeyWindow           = "mr3.memory.usage.check.window.length.secs"
	KeyScheme           = "mr3.memory.usage.check.scheme"
	KeyOutThreshold     = "mr3.auto.scale.out.threshold.percent"
	KeyOutGracePeriod   = "mr3.auto.scale.out.grace.period.secs"
	KeyInDelay          = "mr3.auto.scale.in.delay.after.scale.out.secs"
	KeyInThreshold      = "mr3.auto.scale.in.threshold.percent"
	KeyMinHosts         = "mr3.auto.scale.in.min.hosts"
	KeyInGracePeriod    = "mr3.auto.scale.in.grace.period.secs"
	KeyWaitDAGFinished  = "mr3.auto.scale.in.wait.dag.finished"
	KeyInitialWorkers   = "mr3.auto.scale.out.num.initial.containers"
	KeyIncrementWorkers = "mr3.auto.scale.out.num.increment.containers"
	KeyDecrementHosts   = "mr3.auto.scale.in.num.decrement.hosts"
	KeyPredictive       = "ebb.auto.scale.predictive.enabled"
	KeyTargetSlowdown   = "ebb.auto.scale.target.p95.slowdown"
	KeyBillingPeriod    = "ebb.billing.period.secs"
	KeyBootTime         = "ebb.auto.scale.node.boot.secs"
	KeyHeadroomWindow   = "ebb.auto.scale.headroom.window.secs"
)

// UsageScheme is how the samples of a window combine into one usage
// figure (mr3.memory.usage.check.scheme).
type UsageScheme int

const (
	// UsageAverage is the mean usage over the window: it reacts to a
	// sustained load, not to a spike.
	UsageAverage UsageScheme = iota
	// UsageMaximum is the highest usage in the window: it scales out on
	// the first busy sample and scales in only after a whole quiet window.
	UsageMaximum
)

// usageSchemes is the literal registry, in the order the key lists them.
var usageSchemes = [...]string{UsageAverage: "average", UsageMaximum: "maximum"}

func (s UsageScheme) String() string {
	if s >= 0 && int(s) < len(usageSchemes) {
		return usageSchemes[s]
	}
	return fmt.Sprintf("UsageScheme(%d)", int(s))
}

func (s UsageScheme) known() bool { return s >= 0 && int(s) < len(usageSchemes) }

// ParseUsageScheme reads a mr3.memory.usage.check.scheme value; names are
// exact (lower case), as conf's enum check has them.
func ParseUsageScheme(v string) (UsageScheme, error) {
	for s, name := range usageSchemes {
		if v == name {
			return UsageScheme(s), nil
		}
	}
	return UsageAverage, &ConfigError{Key: KeyScheme, Value: strconv.Quote(v), Allowed: schemeAllowed()}
}

func schemeAllowed() string { return "one of " + strings.Join(usageSchemes[:], ", ") }

// AutoscaleConfig is everything one group's autoscaler is told, as plain
// values: the AM reads mr3-site.xml and fills it in, so this package never
// sees the config library. Percentages are whole percent (80 = 80%).
type AutoscaleConfig struct {
	Interval time.Duration // KeyInterval: how often the AM samples and steps
	Window   time.Duration // KeyWindow: samples older than this are forgotten
	Scheme   UsageScheme   // KeyScheme

	OutThresholdPercent int           // KeyOutThreshold
	OutGracePeriod      time.Duration // KeyOutGracePeriod
	InitialWorkers      int           // KeyInitialWorkers; 0 = from queued demand
	IncrementWorkers    int           // KeyIncrementWorkers; 0 = computed

	InThresholdPercent   int           // KeyInThreshold; below OutThresholdPercent
	InDelayAfterScaleOut time.Duration // KeyInDelay
	InGracePeriod        time.Duration // KeyInGracePeriod
	MinHosts             int           // KeyMinHosts
	DecrementHosts       int           // KeyDecrementHosts; 0 = computed
	WaitDAGFinished      bool          // KeyWaitDAGFinished

	Predictive bool // KeyPredictive
	// TargetSlowdown (KeyTargetSlowdown) is the p95 slowdown promised: a
	// DAG's completion time over its critical path. Predictive scale-out
	// derives its horizon from it (autoscale_target.go).
	TargetSlowdown float64

	BillingPeriod time.Duration // KeyBillingPeriod; 0 = per-second billing

	// BootTime (KeyBootTime) is how long a new node takes to come up; 0 =
	// unknown. It is the hysteresis against churn: a scale-in needs usage
	// at or below the threshold for this long, and waits at least this
	// long after a scale-out (autoscale_hysteresis.go).
	BootTime time.Duration

	// HeadroomWindow (KeyHeadroomWindow): a scale-in keeps the workers the
	// largest demand of this last window needs; 0 = off
	// (autoscale_headroom.go).
	HeadroomWindow time.Duration

	// FixedHorizon is not a key: the sim's control (sim.ebb.fixed.horizon)
	// replays the policy as it was before the target, a fixed 120 s
	// horizon with no feedback and no asking again during a scale-out.
	FixedHorizon bool
}

// DefaultAutoscaleConfig is CONFIG.md's defaults (MR3's, and ebb's for its
// own keys).
func DefaultAutoscaleConfig() AutoscaleConfig {
	return AutoscaleConfig{
		Interval:             10 * time.Second,
		Window:               600 * time.Second,
		Scheme:               UsageAverage,
		OutThresholdPercent:  80,
		OutGracePeriod:       300 * time.Second,
		InitialWorkers:       0,
		IncrementWorkers:     1,
		InThresholdPercent:   50,
		InDelayAfterScaleOut: 60 * time.Second,
		InGracePeriod:        300 * time.Second,
		MinHosts:             1,
		DecrementHosts:       1,
		WaitDAGFinished:      true,
		Predictive:           false,
		TargetSlowdown:       2,
		BillingPeriod:        0,
		BootTime:             0,
	}
}

// ConfigError is one autoscaling setting that cannot work: the key as
// mr3-site.xml spells it, the value given and what would be accepted.
type ConfigError struct {
	Key     string
	Value   string
	Allowed string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s = %s: must be %s", e.Key, e.Value, e.Allowed)
}

// Validate reports every setting that cannot work, each as a *ConfigError
// (joined, so errors.As finds the first). The thresholds must leave a band
// between them: with in ≥ out one usage figure could ask for both a
// scale-out and a scale-in, and the group would flap.
func (c AutoscaleConfig) Validate() error {
	var errs []error
	bad := func(key, value, allowed string) {
		errs = append(errs, &ConfigError{Key: key, Value: value, Allowed: allowed})
	}
	positive := func(key string, d time.Duration) {
		if d <= 0 {
			bad(key, secs(d), "> 0")
		}
	}
	nonNegative := func(key string, d time.Duration) {
		if d < 0 {
			bad(key, secs(d), "≥ 0")
		}
	}
	count := func(key string, n int) {
		if n < 0 {
			bad(key, strconv.Itoa(n), "≥ 0")
		}
	}
	percent := func(key string, p int) bool {
		if p < 0 || p > 100 {
			bad(key, strconv.Itoa(p), "between 0 and 100")
			return false
		}
		return true
	}

	positive(KeyInterval, c.Interval)
	positive(KeyWindow, c.Window)
	if !c.Scheme.known() {
		bad(KeyScheme, c.Scheme.String(), schemeAllowed())
	}
	okOut := percent(KeyOutThreshold, c.OutThresholdPercent)
	okIn := percent(KeyInThreshold, c.InThresholdPercent)
	if okOut && okIn && c.InThresholdPercent >= c.OutThresholdPercent {
		bad(KeyInThreshold, strconv.Itoa(c.InThresholdPercent),
			fmt.Sprintf("below %s (%d)", KeyOutThreshold, c.OutThresholdPercent))
	}
	nonNegative(KeyOutGracePeriod, c.OutGracePeriod)
	nonNegative(KeyInDelay, c.InDelayAfterScaleOut)
	nonNegative(KeyInGracePeriod, c.InGracePeriod)
	nonNegative(KeyBillingPeriod, c.BillingPeriod)
	nonNegative(KeyBootTime, c.BootTime)
	nonNegative(KeyHeadroomWindow, c.HeadroomWindow)
	count(KeyMinHosts, c.MinHosts)
	count(KeyInitialWorkers, c.InitialWorkers)
	count(KeyIncrementWorkers, c.IncrementWorkers)
	count(KeyDecrementHosts, c.DecrementHosts)
	// A slowdown below 1 is a DAG faster than its own critical path.
	if !(c.TargetSlowdown >= 1 && c.TargetSlowdown <= maxTargetSlowdown) {
		bad(KeyTargetSlowdown, strconv.FormatFloat(c.TargetSlowdown, 'g', -1, 64), "from 1 to 1000")
	}
	return errors.Join(errs...)
}

// secs writes a duration the way the *.secs keys take it.
func secs(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}
