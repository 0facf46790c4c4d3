package scheduler

import (
	"cmp"
	"fmt"
	"strings"
)

// RecycleScheme is the ContainerScheduler's policy for handing workers
// from one group of a ContainerKind to another instead of giving their
// containers back to YARN (mr3.container.scheduler.scheme).
type RecycleScheme int

const (
	// RecycleNone never moves workers: a free worker idles and is
	// released after the idle timeout.
	RecycleNone RecycleScheme = iota
	// RecycleFIFO moves a worker once it has no attempt to run and no
	// output to serve, to the oldest group of its kind that needs one
	// (FIFOTarget).
	RecycleFIFO
	// RecycleFair periodically rebalances workers between the groups of a
	// kind towards their fair shares (FairMoves); givers stop workers
	// gracefully, after the DAGs running on them complete.
	RecycleFair
)

// recycleSchemes is the literal registry, in the order the key's allowed
// values are listed.
var recycleSchemes = [...]string{RecycleNone: "none", RecycleFIFO: "fifo", RecycleFair: "fair"}

func (s RecycleScheme) String() string {
	if s >= 0 && int(s) < len(recycleSchemes) {
		return recycleSchemes[s]
	}
	return fmt.Sprintf("RecycleScheme(%d)", int(s))
}

// Recycles reports whether workers ever change group under s.
func (s RecycleScheme) Recycles() bool { return s == RecycleFIFO || s == RecycleFair }

// ParseRecycleScheme reads a mr3.container.scheduler.scheme value. Names
// are exact (lower case), as conf's enum check has them.
func ParseRecycleScheme(v string) (RecycleScheme, error) {
	for s, name := range recycleSchemes {
		if v == name {
			return RecycleScheme(s), nil
		}
	}
	return RecycleNone, &RecycleSchemeError{Value: v}
}

// RecycleSchemeError is a mr3.container.scheduler.scheme value that names
// no scheme.
type RecycleSchemeError struct {
	Value string
}

func (e *RecycleSchemeError) Error() string {
	return fmt.Sprintf("mr3.container.scheduler.scheme = %q: want one of %s", e.Value, strings.Join(recycleSchemes[:], ", "))
}

// KindGroup is one ContainerGroup of a kind as the ContainerScheduler
// sees it.
type KindGroup struct {
	Name string
	// Seq is the group's creation sequence number: lower is older.
	Seq int
	// Workers counts the group's workers, including ones already on their
	// way to it (recycled or requested from YARN), so that one need is
	// not filled twice.
	Workers int
	// Wanted is how many workers the group would run now (its autoscaling
	// target, already capped at its max workers). It needs workers while
	// Workers < Wanted.
	Wanted int
}

func (g KindGroup) needs() int { return max(g.Wanted, 0) - max(g.Workers, 0) }

// groupAge orders groups oldest first: by creation sequence, then by name so
// that equal sequence numbers still give one answer.
func groupAge(a, b KindGroup) int {
	if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

func olderGroup(a, b KindGroup) bool { return groupAge(a, b) < 0 }
