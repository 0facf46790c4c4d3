package packing

import (
	"fmt"
	"sort"
	"strings"
)

// schemes is the registry of allocators by ebb.packing.scheme. It is a
// literal, read-only after initialisation: adding a scheme is one line
// here, never an init() side effect elsewhere.
var schemes = map[string]func(Options) Allocator{
	"uniform": func(o Options) Allocator { return uniform{delay: o.LocalityDelay} },
	"packed": func(o Options) Allocator {
		return packed{threshold: int64(o.HighThresholdPercent), minNodes: o.MinNodes, delay: o.LocalityDelay}
	},
}

// Names lists the registered scheme names, sorted.
func Names() []string {
	names := make([]string, 0, len(schemes))
	for name := range schemes {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// New returns the allocator registered under scheme, configured by opts.
func New(scheme string, opts Options) (Allocator, error) {
	mk, ok := schemes[scheme]
	if !ok {
		return nil, &UnknownSchemeError{Scheme: scheme}
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	return mk(opts), nil
}

// UnknownSchemeError is an ebb.packing.scheme value with no allocator.
type UnknownSchemeError struct {
	Scheme string
}

func (e *UnknownSchemeError) Error() string {
	return fmt.Sprintf("ebb.packing.scheme = %q: want one of %s", e.Scheme, strings.Join(Names(), ", "))
}

// OptionError is an option outside what the allocators can work with.
// conf already bounds these keys; this guards callers that build Options
// by hand.
type OptionError struct {
	Key     string
	Value   string
	Allowed string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("%s = %s: want %s", e.Key, e.Value, e.Allowed)
}

func (o Options) validate() error {
	switch {
	case o.HighThresholdPercent < 0 || o.HighThresholdPercent > 100:
		return &OptionError{Key: "ebb.packing.high.threshold.percent", Value: fmt.Sprint(o.HighThresholdPercent), Allowed: "an integer from 0 to 100"}
	case o.MinNodes < 0:
		return &OptionError{Key: "ebb.packing.min.nodes", Value: fmt.Sprint(o.MinNodes), Allowed: "an integer >= 0"}
	case o.LocalityDelay < 0:
		return &OptionError{Key: "ebb.packing.locality.delay.ms", Value: fmt.Sprint(o.LocalityDelay.Milliseconds()), Allowed: "an integer >= 0"}
	}
	return nil
}
