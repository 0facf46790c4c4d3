package task

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
)

// ErrUsage is wrapped by Main's error when the task name or flags are
// wrong; the command line maps it to exit code 2.
var ErrUsage = errors.New("usage")

// program is one built-in task: it parses its flags from args and runs
// with the contract in c.
type program struct {
	summary string
	run     func(c *Context, args []string) error
}

// programs is the registry of built-in tasks, by the name `ebb task NAME`
// takes.
var programs = map[string]program{
	"wc-map":    {"count words of the input (a map with a combiner)", wcMap},
	"wc-reduce": {"sum word\\tcount lines and write them sorted", wcReduce},
	"sort":      {"sort input lines; range-partition them by first byte", sortLines},
	"cat":       {"copy input lines to the outputs, hash-partitioned", catLines},
	"burn":      {"hold --memory-mb for --seconds, then pass input through", burn},
	// The total-order sort of TeraGen's records (terasample.go).
	"tera-sample": {"sample the first keys of 100-byte records for tera-map's cut points", teraSample},
	"tera-map":    {"range-partition 100-byte records by cut points from sampled keys", teraMap},
	"tera-reduce": {"sort 100-byte records (spilling under the budget) into the sink", teraReduce},
	// Streaming's -reducer aggregate (aggregate.go): a stream program.
	"aggregate": {"aggregate Type:id<TAB>value lines on stdin as Hadoop's ValueAggregatorReducer (--combine: its combiner)", aggregate},
}

// Names lists the built-in tasks, sorted.
func Names() []string {
	names := make([]string, 0, len(programs))
	for n := range programs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Summary describes a built-in task in one line, for help texts.
func Summary(name string) string { return programs[name].summary }

// Main runs the built-in task args[0] with flags args[1:], reading the
// contract from the environment.
func Main(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: ebb task NAME [flags]; NAME is one of %v", ErrUsage, Names())
	}
	p, ok := programs[args[0]]
	if !ok {
		return fmt.Errorf("%w: unknown task %q; known: %v", ErrUsage, args[0], Names())
	}
	c, err := FromEnv()
	if err != nil {
		return err
	}
	defer limitMemory(c.MemoryMB)()
	if err := p.run(c, args[1:]); err != nil {
		return fmt.Errorf("task %s: %w", args[0], err)
	}
	c.SetProgress(1)
	return nil
}

// noFlags rejects arguments for tasks that take none.
func noFlags(name string, args []string) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: %s takes no arguments, got %v", ErrUsage, name, fs.Args())
	}
	return nil
}
