package scheduler

import (
	"fmt"
	"math"
)

// Profile is the fraction of one node's CPU, memory and I/O that one running
// task uses (resource-aware scheduling, RAS). A node has 1.0 of each. It has
// the same fields as dag.Profile, so the AM converts with scheduler.Profile(p).
type Profile struct {
	CPU    float64 `json:"cpu"`
	Memory float64 `json:"memory"`
	IO     float64 `json:"io"`
}

// profileSlack absorbs float rounding, so that ten tasks of 0.1 fit in 1.0.
const profileSlack = 1e-9

func (p Profile) add(q Profile) Profile {
	return Profile{p.CPU + q.CPU, p.Memory + q.Memory, p.IO + q.IO}
}

func (p Profile) sub(q Profile) Profile {
	return Profile{p.CPU - q.CPU, p.Memory - q.Memory, p.IO - q.IO}
}

// max is the most loaded of the three resources.
func (p Profile) max() float64 { return math.Max(p.CPU, math.Max(p.Memory, p.IO)) }

// fitsOn says whether a task of profile p fits on a node already carrying
// load, without any resource passing the node's capacity of 1.0.
func (p Profile) fitsOn(load Profile) bool {
	sum := load.add(p)
	return sum.CPU <= 1+profileSlack && sum.Memory <= 1+profileSlack && sum.IO <= 1+profileSlack
}

// FitsIn says whether a task of profile p fits in the free room of a node.
func (p Profile) FitsIn(room Profile) bool {
	return p.CPU <= room.CPU+profileSlack && p.Memory <= room.Memory+profileSlack && p.IO <= room.IO+profileSlack
}

// sanitized makes a profile safe to plan with. NaN counts as a whole node
// (the most careful reading of "unknown"); components are clamped to [0, 1]
// so that one bad profile can neither make a task fit nowhere (it would never
// run) nor give back capacity (negative demand would overload the node).
func (p Profile) sanitized() Profile {
	c := func(x float64) float64 {
		switch {
		case math.IsNaN(x) || x > 1:
			return 1
		case x < 0:
			return 0
		}
		return x
	}
	return Profile{c(p.CPU), c(p.Memory), c(p.IO)}
}

// check reports a component outside [0, 1].
func (p Profile) check() error {
	for _, r := range []struct {
		name string
		x    float64
	}{{"cpu", p.CPU}, {"memory", p.Memory}, {"io", p.IO}} {
		if math.IsNaN(r.x) || r.x < 0 || r.x > 1 {
			return fmt.Errorf("%s = %g: want a fraction of a node from 0 to 1", r.name, r.x)
		}
	}
	return nil
}

// RASKind tells a producer task (map-like, on the DAG's running vertex) from
// a consumer task (reduce-like, the far side of a scatter-gather edge).
type RASKind int

const (
	RASProducer RASKind = iota
	RASConsumer
)

func (k RASKind) String() string {
	switch k {
	case RASProducer:
		return "producer"
	case RASConsumer:
		return "consumer"
	}
	return fmt.Sprintf("RASKind(%d)", int(k))
}

func (k RASKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }
