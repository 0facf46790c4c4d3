package scheduler

import (
	"fmt"
	"time"
)

// RASSnapshot is what the resource-aware planner sees of the cluster at one
// control cycle: every node with the attempts running on it, and every DAG
// with tasks left.
type RASSnapshot struct {
	Nodes []RASNode
	DAGs  []RASDAG
	// MaxRounds caps the placement's improvement rounds (0: 1000). A round
	// places or moves one task, and placements are bounded by capacity, so
	// the cap only matters if moves keep finding improvements.
	MaxRounds int
	// MaxTasksPerNode caps the tasks on one node (0: 32). Profiles decide
	// how many fit; the cap only guards against profiles near zero, which
	// would otherwise fit without limit.
	MaxTasksPerNode int
}

// RASNode is one node (worker). Its capacity is 1.0 of CPU, memory and I/O.
type RASNode struct {
	ID      string
	Running []RASAttempt
}

// RASAttempt is an attempt running on a node, with the profile it uses now
// (a consumer in its shuffle or reduce phase). Attempts of DAGs not in the
// snapshot still take room.
type RASAttempt struct {
	DAG     string
	Kind    RASKind
	Profile Profile
}

// RASDAG is one DAG's demand. The AM maps its DAG onto the paper's two
// kinds of task: producers are the runnable tasks of the vertices now
// running (map-like); consumers are the runnable tasks on the far side of a
// scatter-gather edge from them (reduce-like). Running counts come from the
// nodes' attempts.
type RASDAG struct {
	ID string
	// Order is the submission order (lower: earlier); it breaks ties
	// between equal utilities, so that the older DAG goes first.
	Order int
	// Goal is the completion-time goal; zero for none.
	Goal      time.Time
	Producers RASProducers
	Consumers RASConsumers
}

// RASProducers is the producer side of a DAG.
type RASProducers struct {
	Pending int // runnable, not yet started
	Profile Profile
	// MeanTaskTime is the observed mean run time of finished producer
	// attempts; 0 while none has finished.
	MeanTaskTime time.Duration
}

// RASConsumers is the consumer side of a DAG. A consumer uses the Shuffle
// profile while the DAG's producers still run (pending or running), and the
// Reduce profile after; when only one is given it serves for both.
type RASConsumers struct {
	Pending int // runnable, not yet started
	// Time is how long the consumers run after the last producer ends
	// (their reduce phase); 0 when unknown. s_req leaves it to them.
	Time    time.Duration
	Shuffle Profile
	Reduce  Profile
}

// RASInputError says what in a snapshot cannot be planned as given. Plan
// still plans (it clamps profiles and ignores duplicates' later copies);
// Validate lets the AM report the problem once.
type RASInputError struct {
	What  string // "node" or "dag"
	ID    string
	Field string
	Msg   string
}

func (e *RASInputError) Error() string {
	return fmt.Sprintf("ras: %s %q: %s: %s", e.What, e.ID, e.Field, e.Msg)
}

// Validate reports the first problem: a duplicate or empty ID, a negative
// count, or a profile component outside [0, 1].
func (s RASSnapshot) Validate() error {
	nodes := map[string]bool{}
	for _, n := range s.Nodes {
		if n.ID == "" || nodes[n.ID] {
			return &RASInputError{"node", n.ID, "id", "empty or duplicate"}
		}
		nodes[n.ID] = true
		for i, a := range n.Running {
			if err := a.Profile.check(); err != nil {
				return &RASInputError{"node", n.ID, fmt.Sprintf("running[%d].profile", i), err.Error()}
			}
		}
	}
	dags := map[string]bool{}
	for _, d := range s.DAGs {
		if d.ID == "" || dags[d.ID] {
			return &RASInputError{"dag", d.ID, "id", "empty or duplicate"}
		}
		dags[d.ID] = true
		if d.Producers.Pending < 0 || d.Consumers.Pending < 0 {
			return &RASInputError{"dag", d.ID, "pending", "negative"}
		}
		for _, p := range []struct {
			field string
			p     Profile
		}{{"producers.profile", d.Producers.Profile}, {"consumers.shuffle", d.Consumers.Shuffle}, {"consumers.reduce", d.Consumers.Reduce}} {
			if err := p.p.check(); err != nil {
				return &RASInputError{"dag", d.ID, p.field, err.Error()}
			}
		}
	}
	return nil
}

// profile is the profile a consumer starting now would use.
func (c RASConsumers) profile(producersDone bool) Profile {
	shuffle, reduce := c.Shuffle, c.Reduce
	if shuffle == (Profile{}) {
		shuffle = reduce
	}
	if reduce == (Profile{}) {
		reduce = shuffle
	}
	if producersDone {
		return reduce
	}
	return shuffle
}
