package conf

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// Config is a loaded configuration: every table key (with its default when
// nothing set it) and every other key some layer set. It is safe for
// concurrent use; Set may change it while others read.
type Config struct {
	mu      sync.RWMutex
	entries map[string]*entry
	getenv  func(string) string
	seq     int
}

type entry struct {
	raw    string // as written, before ${var} expansion
	value  string // expanded
	parsed any    // int, int64, bool, float64 or string for table keys
	origin origin
	final  bool
	seq    int // arrival order, so the first problem reported is the first in the files
}

func newConfig(getenv func(string) string) *Config {
	c := &Config{entries: make(map[string]*entry, len(keys)), getenv: getenv}
	for _, k := range keys {
		c.entries[k.Name] = &entry{raw: k.Default, origin: origin{kind: fromDefault}}
	}
	return c
}

// Defaults returns the configuration of the key table alone: no files, no
// EBB_ variables (${env.X} still reads the process environment, but no
// default uses it). For tests and the simulator.
func Defaults() *Config {
	c := newConfig(os.Getenv)
	if err := c.resolve(); err != nil {
		panic("conf: the key table has a bad default: " + err.Error())
	}
	return c
}

// apply records one value from a layer. A key already final keeps its
// value and the attempt becomes a warning: Hadoop's rule, so an admin's
// final setting cannot be undone by a user's file, environment or flag.
func (c *Config) apply(key, value string, o origin, final bool) *Warning {
	if old, ok := c.entries[key]; ok && old.final {
		return &Warning{Where: o.String(), Key: key,
			Msg: fmt.Sprintf("%s is final in %s; value %q ignored", key, old.origin, value)}
	}
	c.seq++
	c.entries[key] = &entry{raw: value, origin: o, final: final, seq: c.seq}
	return nil
}

// resolve expands every value and checks every table key against the
// table. It changes nothing unless everything is valid, so a failed Set
// leaves the Config as it was. The error is the first problem in arrival
// order.
func (c *Config) resolve() error {
	x := expander{getenv: c.getenv, raw: func(k string) (string, bool) {
		e, ok := c.entries[k]
		if !ok {
			return "", false
		}
		return e.raw, true
	}}
	type result struct {
		e      *entry
		value  string
		parsed any
	}
	results := make([]result, 0, len(c.entries))
	for _, name := range c.bySeq() {
		e := c.entries[name]
		value, err := x.expand(name, e.raw)
		if err != nil {
			err.File, err.Line = e.origin.fileLine()
			return err
		}
		var parsed any
		if k, ok := keyIndex[name]; ok {
			var valid bool
			if parsed, valid = k.parse(value); !valid {
				file, line := e.origin.fileLine()
				return &ValueError{File: file, Line: line, Key: name, Value: value, Allowed: k.Allowed()}
			}
		}
		results = append(results, result{e, value, parsed})
	}
	for _, r := range results {
		r.e.value, r.e.parsed = r.value, r.parsed
	}
	return nil
}

// bySeq lists the keys in arrival order (defaults first, by name).
func (c *Config) bySeq() []string {
	names := make([]string, 0, len(c.entries))
	for n := range c.entries {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := c.entries[names[i]], c.entries[names[j]]
		if a.seq != b.seq {
			return a.seq < b.seq
		}
		return names[i] < names[j]
	})
	return names
}

// Set changes one key at run time (ebb autoscale retuning, tests). The
// value is expanded and validated like a loaded one; an unknown mr3./ebb.
// key, a bad value or a final key is an error and changes nothing.
func (c *Config) Set(key, value string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := origin{kind: fromSet}
	if u := unknownKey(key, o); u != nil {
		return u
	}
	old, had := c.entries[key]
	if had && old.final {
		return &FinalError{Key: key, Final: old.origin.String()}
	}
	c.apply(key, value, o, false)
	if err := c.resolve(); err != nil {
		if had {
			c.entries[key] = old
		} else {
			delete(c.entries, key)
		}
		return err
	}
	return nil
}

// tableKey returns the parsed and expanded value of a table key whose
// Type is one of want, and panics otherwise: asking for a key that is not
// in the table, or with the wrong accessor, is a bug in the caller, not a
// configuration problem. It copies under the lock because Set may be
// rewriting the entry.
func (c *Config) tableKey(key string, want ...Type) (parsed any, value string) {
	k, ok := keyIndex[key]
	if !ok {
		panic("conf: " + key + " is not in the key table")
	}
	typeOK := false
	for _, t := range want {
		typeOK = typeOK || k.Type == t
	}
	if !typeOK {
		panic(fmt.Sprintf("conf: %s is a %s key", key, k.Type))
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.entries[key]
	return e.parsed, e.value
}

// String returns a table key's value as a string: the canonical spelling
// of an Enum, the trimmed text of any other type.
func (c *Config) String(key string) string {
	parsed, value := c.tableKey(key, String, Enum, Int, Int64, Bool, Float)
	if s, ok := parsed.(string); ok {
		return s
	}
	return strings.TrimSpace(value)
}

// Int returns an Int key.
func (c *Config) Int(key string) int {
	parsed, _ := c.tableKey(key, Int)
	return parsed.(int)
}

// Int64 returns an Int or Int64 key.
func (c *Config) Int64(key string) int64 {
	parsed, _ := c.tableKey(key, Int, Int64)
	if v, ok := parsed.(int); ok {
		return int64(v)
	}
	return parsed.(int64)
}

// Bool returns a Bool key.
func (c *Config) Bool(key string) bool {
	parsed, _ := c.tableKey(key, Bool)
	return parsed.(bool)
}

// Float returns a Float, Int or Int64 key.
func (c *Config) Float(key string) float64 {
	parsed, _ := c.tableKey(key, Float, Int, Int64)
	switch v := parsed.(type) {
	case int:
		return float64(v)
	case int64:
		return float64(v)
	default:
		return v.(float64)
	}
}

// Raw returns any key's value as a string, after ${var} expansion (what
// Hadoop's Configuration.get returns), and whether any layer or the table
// gives it one. This is how the Hadoop client code reads yarn., fs., dfs.
// and other keys conf does not own.
func (c *Config) Raw(key string) (string, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.entries[key]
	if !ok {
		return "", false
	}
	return e.value, true
}

// Origin says where key's value came from: "default", "file:line",
// "env EBB_...", "--set", "set" (Config.Set), or "unset".
func (c *Config) Origin(key string) string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.entries[key]
	if !ok {
		return "unset"
	}
	return e.origin.String()
}

// Keys lists every key with a value (all table keys and every other key a
// layer set), sorted.
func (c *Config) Keys() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	names := make([]string, 0, len(c.entries))
	for n := range c.entries {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Effective returns every key's expanded value: what this process runs
// with, for shipping to the AM and workers.
func (c *Config) Effective() map[string]string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make(map[string]string, len(c.entries))
	for n, e := range c.entries {
		out[n] = e.value
	}
	return out
}

// ErrorFor builds the one-line *ValueError for key's current value and
// origin, for rules that span keys and live in the subsystem that owns
// them ("want a value below mr3.auto.scale.out.threshold.percent (80)").
func (c *Config) ErrorFor(key, allowed string) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.entries[key]
	if !ok {
		return &ValueError{File: "unset", Key: key, Allowed: allowed}
	}
	file, line := e.origin.fileLine()
	return &ValueError{File: file, Line: line, Key: key, Value: e.value, Allowed: allowed}
}

// Duration returns a duration key: its name ends in .ms (milliseconds) or
// .secs (seconds). The key table bounds every such key so the product
// cannot overflow (types.go).
func (c *Config) Duration(key string) time.Duration {
	return durationOf(key, c.Int64(key))
}

// durationOf converts a duration key's value by the unit its name gives.
func durationOf(key string, v int64) time.Duration {
	if strings.HasSuffix(key, ".ms") {
		return time.Duration(v) * time.Millisecond
	}
	if strings.HasSuffix(key, ".secs") {
		return time.Duration(v) * time.Second
	}
	panic("conf: " + key + " is not a duration key (its name ends in neither .ms nor .secs)")
}
