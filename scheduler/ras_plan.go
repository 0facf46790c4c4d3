package scheduler

import (
	"sort"
	"time"
)

// RASPlan is the outcome of one control cycle: per DAG its s_req, utility
// and planned slots; per node which DAGs' tasks it should hold. Counts
// include attempts already running, which the plan never moves.
type RASPlan struct {
	At              time.Time     `json:"at"`
	DAGs            []RASDAGPlan  `json:"dags"`
	Nodes           []RASNodePlan `json:"nodes"`
	Rounds          int           `json:"rounds"` // improvement rounds used
	MaxTasksPerNode int           `json:"maxTasksPerNode"`
}

// RASDAGPlan is one DAG's part of the plan, in the snapshot's order.
type RASDAGPlan struct {
	ID           string  `json:"id"`
	Order        int     `json:"order"`
	SReq         float64 `json:"sReq"`
	Utility      float64 `json:"utility"`
	Producers    int     `json:"producers"`    // planned concurrent producer tasks
	Consumers    int     `json:"consumers"`    // planned concurrent consumer tasks
	NewProducers int     `json:"newProducers"` // of Producers, to start
	NewConsumers int     `json:"newConsumers"` // of Consumers, to start
}

// RASNodePlan is one node's part of the plan.
type RASNodePlan struct {
	ID    string    `json:"id"`
	Slots []RASSlot `json:"slots"` // by DAG, then kind
	Load  Profile   `json:"load"`  // under the plan, at most 1.0 each unless running attempts already exceed it
}

// RASSlot is how many tasks of one (DAG, kind) a node should hold.
type RASSlot struct {
	DAG     string  `json:"dag"`
	Kind    RASKind `json:"kind"`
	Planned int     `json:"planned"` // running + to start
	Running int     `json:"running"`
}

// DAG returns the plan of the DAG with the given ID.
func (p RASPlan) DAG(id string) (RASDAGPlan, bool) {
	for _, d := range p.DAGs {
		if d.ID == id {
			return d, true
		}
	}
	return RASDAGPlan{}, false
}

// node returns the plan of the node with the given ID.
func (p RASPlan) node(id string) (RASNodePlan, bool) {
	for _, n := range p.Nodes {
		if n.ID == id {
			return n, true
		}
	}
	return RASNodePlan{}, false
}

const (
	defaultRASMaxRounds       = 1000
	defaultRASMaxTasksPerNode = 32
)

// Plan places the snapshot's pending tasks on its nodes (Polo et al.,
// Middleware 2011, section 3.3), in three stages:
//  1. consumers first, spread so that no two share a node where possible,
//     else so that no two of one DAG do;
//  2. producers in rounds that raise the lowest utility: the lowest DAG gets
//     a task where one fits, or else where one fits once a task planned this
//     cycle moves to another node. Rounds stop when the lowest cannot be
//     raised or at MaxRounds;
//  3. whatever capacity remains is filled greedily, lowest utility first.
//
// No stage plans a task on a node where it would take the CPU, memory or I/O
// load past 1.0, so the number of tasks per node (the paper's job slots)
// follows from the profiles. Running attempts stay where they are: the plan
// only says what should start next. Nodes are tried in the snapshot's order
// and ties broken by submission order, so a snapshot always gives the same
// plan.
func Plan(now time.Time, s RASSnapshot) RASPlan {
	pl := newRASPlanner(now, s)
	pl.placeConsumers()
	rounds := pl.raiseLowest(s.MaxRounds)
	pl.fill()
	out := pl.result(now)
	out.Rounds = rounds
	return out
}

type rasSlotKey struct {
	dag  string
	kind RASKind
}

type rasNodeState struct {
	id        string
	load      Profile
	tasks     int
	consumers int // of any DAG, running + planned
	slots     map[rasSlotKey]*RASSlot
}

type rasDAGState struct {
	in                       RASDAG
	sReq                     float64
	prodRunning, consRunning int
	prodProfile, consProfile Profile
	prodLeft, consLeft       int // pending, not yet placed
	newProd, newCons         int
	newProdOn                []int // per node: producers planned to start there
	consOn                   []int // per node: this DAG's consumers, running + planned
}

type rasPlanner struct {
	maxPerNode int
	nodes      []*rasNodeState
	dags       []*rasDAGState
}

func newRASPlanner(now time.Time, s RASSnapshot) *rasPlanner {
	pl := &rasPlanner{maxPerNode: s.MaxTasksPerNode}
	if pl.maxPerNode <= 0 {
		pl.maxPerNode = defaultRASMaxTasksPerNode
	}
	byID := map[string]*rasDAGState{}
	for _, d := range s.DAGs {
		if byID[d.ID] != nil {
			continue // duplicate: Validate reports it
		}
		st := &rasDAGState{in: d, prodLeft: max(d.Producers.Pending, 0), consLeft: max(d.Consumers.Pending, 0)}
		byID[d.ID] = st
		pl.dags = append(pl.dags, st)
	}
	var nodes []RASNode
	seen := map[string]bool{}
	for _, n := range s.Nodes {
		if !seen[n.ID] {
			seen[n.ID] = true
			nodes = append(nodes, n)
		}
	}
	for _, d := range pl.dags {
		d.newProdOn = make([]int, len(nodes))
		d.consOn = make([]int, len(nodes))
	}
	for i, n := range nodes {
		ns := &rasNodeState{id: n.ID, slots: map[rasSlotKey]*RASSlot{}}
		pl.nodes = append(pl.nodes, ns)
		for _, a := range n.Running {
			ns.load = ns.load.add(a.Profile.sanitized())
			ns.tasks++
			if a.Kind == RASConsumer {
				ns.consumers++
			}
			sl := ns.slot(a.DAG, a.Kind)
			sl.Planned++
			sl.Running++
			d := byID[a.DAG]
			switch {
			case d == nil:
			case a.Kind == RASConsumer:
				d.consRunning++
				d.consOn[i]++
			default:
				d.prodRunning++
			}
		}
	}
	for _, d := range pl.dags {
		left := d.prodLeft + d.prodRunning
		d.prodProfile = d.in.Producers.Profile.sanitized()
		d.consProfile = d.in.Consumers.profile(left == 0).sanitized()
		in := SReqInput{Pending: d.prodLeft, Running: d.prodRunning, MeanTaskTime: d.in.Producers.MeanTaskTime, ReduceTime: d.in.Consumers.Time}
		if !d.in.Goal.IsZero() {
			in.HasGoal, in.TimeLeft = true, d.in.Goal.Sub(now)
		}
		d.sReq = EstimateSReq(in)
	}
	return pl
}

func (n *rasNodeState) slot(dag string, kind RASKind) *RASSlot {
	k := rasSlotKey{dag, kind}
	sl := n.slots[k]
	if sl == nil {
		sl = &RASSlot{DAG: dag, Kind: kind}
		n.slots[k] = sl
	}
	return sl
}

// utility is d's utility with dp more producers and dc more consumers than
// planned so far.
func (d *rasDAGState) utility(dp, dc int) float64 {
	sPend := float64(d.prodRunning + d.newProd + d.prodLeft)
	rPend := float64(d.consRunning + d.newCons + d.consLeft)
	return Utility(float64(d.prodRunning+d.newProd+dp), d.sReq, sPend,
		float64(d.consRunning+d.newCons+dc), rPend)
}

// rasBefore orders DAGs for "lowest first": by utility, then submission order,
// then ID.
func rasBefore(a, b *rasDAGState) bool {
	ua, ub := a.utility(0, 0), b.utility(0, 0)
	if ua != ub {
		return ua < ub
	}
	if a.in.Order != b.in.Order {
		return a.in.Order < b.in.Order
	}
	return a.in.ID < b.in.ID
}

func (pl *rasPlanner) result(now time.Time) RASPlan {
	out := RASPlan{At: now, MaxTasksPerNode: pl.maxPerNode}
	for _, d := range pl.dags {
		out.DAGs = append(out.DAGs, RASDAGPlan{
			ID: d.in.ID, Order: d.in.Order, SReq: d.sReq, Utility: d.utility(0, 0),
			Producers: d.prodRunning + d.newProd, Consumers: d.consRunning + d.newCons,
			NewProducers: d.newProd, NewConsumers: d.newCons,
		})
	}
	for _, n := range pl.nodes {
		np := RASNodePlan{ID: n.id, Load: n.load, Slots: []RASSlot{}}
		for _, sl := range n.slots {
			if sl.Planned > 0 {
				np.Slots = append(np.Slots, *sl)
			}
		}
		sort.Slice(np.Slots, func(i, j int) bool {
			if np.Slots[i].DAG != np.Slots[j].DAG {
				return np.Slots[i].DAG < np.Slots[j].DAG
			}
			return np.Slots[i].Kind < np.Slots[j].Kind
		})
		out.Nodes = append(out.Nodes, np)
	}
	return out
}
