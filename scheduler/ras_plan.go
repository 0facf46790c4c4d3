package scheduler

import (
	"sort"
	"time"
)

// RASPlan is the outcome of one control cycle: per DAG its s_req, utility
// and planned slots; per node which DAGs' tasks it should hold. It is a
// target, not a list of starts: a running attempt fills a planned slot of
// its DAG and kind on its node, and one the plan gives no slot there runs
// on until it ends and its room goes to the DAG the plan names (attrition).
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
	NewProducers int     `json:"newProducers"` // planned slots no running attempt fills, at most the pending tasks
	NewConsumers int     `json:"newConsumers"` // the same for consumers
}

// RASNodePlan is one node's part of the plan.
type RASNodePlan struct {
	ID    string    `json:"id"`
	Slots []RASSlot `json:"slots"` // by DAG, then kind
	Load  Profile   `json:"load"`  // of the planned slots (and of attempts of DAGs the snapshot does not hold), at most 1.0 each unless those attempts exceed it
}

// RASSlot is how many tasks of one (DAG, kind) a node should hold, and how
// many it runs now. Running above Planned is what attrition removes: those
// attempts end and the room goes to the DAGs planned there.
type RASSlot struct {
	DAG     string  `json:"dag"`
	Kind    RASKind `json:"kind"`
	Planned int     `json:"planned"` // the target: running ones count against it
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
// follows from the profiles.
//
// The plan is a target reached by attrition, as in the paper: every
// unfinished task of a DAG, running or pending, is planned afresh on nodes
// as if empty, so a DAG that arrived or fell behind its goal since the last
// cycle gets its share even on a full cluster. Running attempts are not
// pinned: one fills a planned slot of its DAG and kind on its node (each
// stage tries such a node first, so a plan that agrees with what runs
// leaves it alone), and one the plan gives no slot there runs on; when it
// ends, the task scheduler gives the room to the DAGs the plan put there.
// Only attempts of DAGs the snapshot does not hold are fixed load: no DAG
// of the plan could take their slots. Nodes are tried in the snapshot's
// order and ties broken by submission order, so a snapshot always gives
// the same plan.
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
	load      Profile // of the planned slots and the fixed attempts
	tasks     int     // the same, counted
	consumers int     // of any DAG: planned, and fixed running
	slots     map[rasSlotKey]*RASSlot
}

type rasDAGState struct {
	in                       RASDAG
	sReq                     float64
	prodRunning, consRunning int
	prodProfile, consProfile Profile
	prodLeft, consLeft       int // unfinished (running or pending), no slot planned yet
	prodPlanned, consPlanned int
	prodOn, consOn           []int // per node: slots planned
	prodRunOn, consRunOn     []int // per node: attempts running
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
		st := &rasDAGState{in: d}
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
		d.prodOn, d.consOn = make([]int, len(nodes)), make([]int, len(nodes))
		d.prodRunOn, d.consRunOn = make([]int, len(nodes)), make([]int, len(nodes))
	}
	for i, n := range nodes {
		ns := &rasNodeState{id: n.ID, slots: map[rasSlotKey]*RASSlot{}}
		pl.nodes = append(pl.nodes, ns)
		for _, a := range n.Running {
			ns.slot(a.DAG, a.Kind).Running++
			d := byID[a.DAG]
			switch {
			case d == nil: // fixed: the plan has no DAG to give its room to
				ns.load = ns.load.add(a.Profile.sanitized())
				ns.tasks++
				ns.slot(a.DAG, a.Kind).Planned++
				if a.Kind == RASConsumer {
					ns.consumers++
				}
			case a.Kind == RASConsumer:
				d.consRunning++
				d.consRunOn[i]++
			default:
				d.prodRunning++
				d.prodRunOn[i]++
			}
		}
	}
	for _, d := range pl.dags {
		pending := max(d.in.Producers.Pending, 0)
		d.prodLeft = pending + d.prodRunning
		d.consLeft = max(d.in.Consumers.Pending, 0) + d.consRunning
		d.prodProfile = d.in.Producers.Profile.sanitized()
		d.consProfile = d.in.Consumers.profile(d.prodLeft == 0).sanitized()
		in := SReqInput{Pending: pending, Running: d.prodRunning, MeanTaskTime: d.in.Producers.MeanTaskTime, ReduceTime: d.in.Consumers.Time}
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

// utility is d's utility with the slots planned so far: the allocation is
// the plan's, whether running attempts fill the slots yet or not.
func (d *rasDAGState) utility() float64 {
	return Utility(float64(d.prodPlanned), d.sReq, float64(d.prodPlanned+d.prodLeft),
		float64(d.consPlanned), float64(d.consPlanned+d.consLeft))
}

// unfilled is how many of d's planned slots of one kind no running attempt
// fills, at most its pending tasks: what it is planned to start.
func (d *rasDAGState) unfilled(on, runOn []int, pending int) int {
	free := 0
	for i := range on {
		free += max(on[i]-runOn[i], 0)
	}
	return min(free, max(pending, 0))
}

// rasBefore orders DAGs for "lowest first": by utility, then submission order,
// then ID.
func rasBefore(a, b *rasDAGState) bool {
	ua, ub := a.utility(), b.utility()
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
			ID: d.in.ID, Order: d.in.Order, SReq: d.sReq, Utility: d.utility(),
			Producers: d.prodPlanned, Consumers: d.consPlanned,
			NewProducers: d.unfilled(d.prodOn, d.prodRunOn, d.in.Producers.Pending),
			NewConsumers: d.unfilled(d.consOn, d.consRunOn, d.in.Consumers.Pending),
		})
	}
	for _, n := range pl.nodes {
		np := RASNodePlan{ID: n.id, Load: n.load, Slots: []RASSlot{}}
		for _, sl := range n.slots {
			if sl.Planned > 0 || sl.Running > 0 {
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
