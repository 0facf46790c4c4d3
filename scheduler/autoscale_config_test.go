package scheduler

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestDefaultAutoscaleConfigIsValid(t *testing.T) {
	if err := DefaultAutoscaleConfig().Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
}

func TestAutoscaleConfigValidateNamesTheKey(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*AutoscaleConfig)
		key     string
		value   string
		allowed string // a part of Allowed
	}{
		{"in equal to out", func(c *AutoscaleConfig) { c.InThresholdPercent = 80 },
			KeyInThreshold, "80", "below " + KeyOutThreshold + " (80)"},
		{"in above out", func(c *AutoscaleConfig) { c.InThresholdPercent, c.OutThresholdPercent = 90, 85 },
			KeyInThreshold, "90", "below " + KeyOutThreshold + " (85)"},
		{"out above 100", func(c *AutoscaleConfig) { c.OutThresholdPercent = 120 },
			KeyOutThreshold, "120", "between 0 and 100"},
		{"negative in", func(c *AutoscaleConfig) { c.InThresholdPercent = -1 },
			KeyInThreshold, "-1", "between 0 and 100"},
		{"negative out grace", func(c *AutoscaleConfig) { c.OutGracePeriod = -5 * time.Second },
			KeyOutGracePeriod, "-5", "≥ 0"},
		{"negative in grace", func(c *AutoscaleConfig) { c.InGracePeriod = -time.Second },
			KeyInGracePeriod, "-1", "≥ 0"},
		{"negative delay", func(c *AutoscaleConfig) { c.InDelayAfterScaleOut = -1500 * time.Millisecond },
			KeyInDelay, "-1.5", "≥ 0"},
		{"negative billing", func(c *AutoscaleConfig) { c.BillingPeriod = -time.Hour },
			KeyBillingPeriod, "-3600", "≥ 0"},
		{"zero interval", func(c *AutoscaleConfig) { c.Interval = 0 },
			KeyInterval, "0", "> 0"},
		{"zero window", func(c *AutoscaleConfig) { c.Window = 0 },
			KeyWindow, "0", "> 0"},
		{"unknown scheme", func(c *AutoscaleConfig) { c.Scheme = UsageScheme(7) },
			KeyScheme, "UsageScheme(7)", "average, maximum"},
		{"negative min hosts", func(c *AutoscaleConfig) { c.MinHosts = -1 },
			KeyMinHosts, "-1", "≥ 0"},
		{"negative initial", func(c *AutoscaleConfig) { c.InitialWorkers = -2 },
			KeyInitialWorkers, "-2", "≥ 0"},
		{"negative increment", func(c *AutoscaleConfig) { c.IncrementWorkers = -1 },
			KeyIncrementWorkers, "-1", "≥ 0"},
		{"negative decrement", func(c *AutoscaleConfig) { c.DecrementHosts = -1 },
			KeyDecrementHosts, "-1", "≥ 0"},
		{"a target faster than the critical path", func(c *AutoscaleConfig) { c.TargetSlowdown = 0.5 },
			KeyTargetSlowdown, "0.5", "from 1 to 1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultAutoscaleConfig()
			tt.edit(&c)
			err := c.Validate()
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("Validate() = %v, want a *ConfigError", err)
			}
			if ce.Key != tt.key || ce.Value != tt.value || !strings.Contains(ce.Allowed, tt.allowed) {
				t.Errorf("got %+v, want key %s value %s allowed ~%q", *ce, tt.key, tt.value, tt.allowed)
			}
			if !strings.Contains(err.Error(), tt.key) {
				t.Errorf("message %q does not name %s", err, tt.key)
			}
			// The constructor refuses the same config, and says so.
			if _, err := NewAutoscaler("etl", c); !errors.As(err, &ce) || !strings.Contains(err.Error(), "group etl") {
				t.Errorf("NewAutoscaler: %v, want a *ConfigError naming the group", err)
			}
		})
	}
}

func TestAutoscaleConfigValidateReportsEveryProblem(t *testing.T) {
	c := DefaultAutoscaleConfig()
	c.InThresholdPercent = 90      // ≥ out (80)
	c.InGracePeriod = -time.Second // negative
	err := c.Validate()
	for _, key := range []string{KeyInThreshold, KeyInGracePeriod} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("%q does not name %s", err, key)
		}
	}
}

func TestParseUsageScheme(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want UsageScheme
		ok   bool
	}{
		{"average", UsageAverage, true},
		{"maximum", UsageMaximum, true},
		{"Maximum", 0, false}, // conf's enum check is exact
		{"mean", 0, false},
	} {
		got, err := ParseUsageScheme(tt.in)
		if tt.ok && (err != nil || got != tt.want) {
			t.Errorf("ParseUsageScheme(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		var ce *ConfigError
		if !tt.ok && (!errors.As(err, &ce) || ce.Key != KeyScheme) {
			t.Errorf("ParseUsageScheme(%q) error = %v, want a *ConfigError for %s", tt.in, err, KeyScheme)
		}
	}
}

func TestSetThresholdsValidates(t *testing.T) {
	a, err := NewAutoscaler("etl", DefaultAutoscaleConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetThresholds(85, 40, 2); err != nil {
		t.Fatalf("SetThresholds(85, 40, 2): %v", err)
	}
	var ce *ConfigError
	if err := a.SetThresholds(60, 70, 2); !errors.As(err, &ce) || ce.Key != KeyInThreshold {
		t.Fatalf("SetThresholds(60, 70, 2) = %v, want a *ConfigError for %s", err, KeyInThreshold)
	}
	if err := a.SetThresholds(85, 40, -1); !errors.As(err, &ce) || ce.Key != KeyMinHosts {
		t.Fatalf("SetThresholds(85, 40, -1) = %v, want a *ConfigError for %s", err, KeyMinHosts)
	}
	// A refused retune leaves the last good values in force.
	c := a.Config()
	if c.OutThresholdPercent != 85 || c.InThresholdPercent != 40 || c.MinHosts != 2 {
		t.Errorf("config after refused retunes: out %d in %d min %d, want 85 40 2",
			c.OutThresholdPercent, c.InThresholdPercent, c.MinHosts)
	}
}
