package cloud

import (
	"errors"
	"fmt"
	"time"
)

// NodeType is a shape of node the cloud rents out.
type NodeType struct {
	Name         string
	MemoryMB     int64
	VCores       int
	PricePerHour float64
}

// Config is the virtual cloud's rules.
type Config struct {
	// Types are the node types offered; the first is the default.
	Types []NodeType
	// ProvisionDelay is how long a requested node takes to be ready.
	ProvisionDelay time.Duration
	// ReclaimDelay is how long a node may sit idle before the sim gives it
	// back (see ReclaimAt).
	ReclaimDelay time.Duration
	// BillingPeriod 0 bills per second; otherwise a started period is
	// paid in full.
	BillingPeriod time.Duration
	// MinBilled is the least a node is charged for under per-second
	// billing (e.g. 60 s on some clouds); 0 for none.
	MinBilled time.Duration
	// MaxNodes caps the nodes that exist at once (provisioning or ready);
	// 0 means no cap.
	MaxNodes int
}

// DefaultConfig is one 64 GB / 16 vcore node type at a typical on-demand
// price, nodes that take 180 s to come up (what cloud VMs take), given
// back after 30 s idle, billed per second, no cap.
func DefaultConfig() Config {
	return Config{
		Types:          []NodeType{{Name: "m-16x64", MemoryMB: 65536, VCores: 16, PricePerHour: 0.768}},
		ProvisionDelay: 180 * time.Second,
		ReclaimDelay:   30 * time.Second,
	}
}

// ErrConfig is wrapped by every error about a bad Config.
var ErrConfig = errors.New("bad cloud config")

// ConfigError names the field, the bad value and what is allowed.
type ConfigError struct {
	Field string
	Value string
	Want  string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("cloud config: %s = %s: want %s", e.Field, e.Value, e.Want)
}

func (e *ConfigError) Unwrap() error { return ErrConfig }

func (c Config) validate() error {
	if len(c.Types) == 0 {
		return &ConfigError{Field: "Types", Value: "[]", Want: "at least one node type"}
	}
	seen := map[string]int{}
	for i, t := range c.Types {
		f := fmt.Sprintf("Types[%d]", i)
		switch {
		case t.Name == "":
			return &ConfigError{Field: f + ".Name", Value: `""`, Want: "a name"}
		case t.MemoryMB <= 0:
			return &ConfigError{Field: f + ".MemoryMB", Value: fmt.Sprint(t.MemoryMB), Want: "a positive number of MB"}
		case t.VCores <= 0:
			return &ConfigError{Field: f + ".VCores", Value: fmt.Sprint(t.VCores), Want: "at least 1"}
		case t.PricePerHour < 0:
			return &ConfigError{Field: f + ".PricePerHour", Value: fmt.Sprint(t.PricePerHour), Want: "0 or more"}
		}
		if j, dup := seen[t.Name]; dup {
			return &ConfigError{Field: f + ".Name", Value: fmt.Sprintf("%q", t.Name), Want: fmt.Sprintf("a name not already used by Types[%d]", j)}
		}
		seen[t.Name] = i
	}
	for _, d := range []struct {
		field string
		v     time.Duration
	}{{"ProvisionDelay", c.ProvisionDelay}, {"ReclaimDelay", c.ReclaimDelay}, {"BillingPeriod", c.BillingPeriod}, {"MinBilled", c.MinBilled}} {
		if d.v < 0 {
			return &ConfigError{Field: d.field, Value: d.v.String(), Want: "0 or a positive duration"}
		}
	}
	if c.BillingPeriod > 0 && c.BillingPeriod%time.Second != 0 {
		return &ConfigError{Field: "BillingPeriod", Value: c.BillingPeriod.String(), Want: "whole seconds"}
	}
	if c.MaxNodes < 0 {
		return &ConfigError{Field: "MaxNodes", Value: fmt.Sprint(c.MaxNodes), Want: "0 (no cap) or more"}
	}
	return nil
}
