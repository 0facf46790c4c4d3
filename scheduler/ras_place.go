package scheduler

import "sort"

// placeConsumers is stage 1 of Plan. Consumers go first because they hold
// their node for the DAG's whole shuffle and reduce; spreading them keeps
// one node's disk and network from serving several shuffles at once. DAGs
// take turns, one consumer each, in submission order, so that an early DAG
// with many consumers does not take every free node.
func (pl *rasPlanner) placeConsumers() {
	order := append([]*rasDAGState(nil), pl.dags...)
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].in.Order != order[j].in.Order {
			return order[i].in.Order < order[j].in.Order
		}
		return order[i].in.ID < order[j].in.ID
	})
	for progress := true; progress; {
		progress = false
		for _, d := range order {
			if d.consLeft == 0 {
				continue
			}
			if i := pl.consumerNode(d); i >= 0 {
				pl.place(d, RASConsumer, i)
				progress = true
			}
		}
	}
}

// consumerNode is where d's next consumer goes, or -1: a node where one of
// d's consumers runs that no planned slot fills yet, if any fits (a
// consumer holds its node to the end of its DAG, so the plan keeps it
// where it is); else a node with no consumer at all, else one with the
// fewest of d's, then the fewest consumers, then the least loaded after
// placing, then the first.
func (pl *rasPlanner) consumerNode(d *rasDAGState) int {
	best := -1
	var bestKey [5]float64
	for i, n := range pl.nodes {
		if !pl.fits(n, n.load, d.consProfile) {
			continue
		}
		shared := 0.0
		if n.consumers > 0 {
			shared = 1
		}
		key := [5]float64{notRunning(d.consOn[i], d.consRunOn[i]), shared, float64(d.consOn[i]), float64(n.consumers), n.load.add(d.consProfile).max()}
		if best < 0 || rasLessKey(key[:], bestKey[:]) {
			best, bestKey = i, key
		}
	}
	return best
}

// raiseLowest is stage 2 of Plan: max-min rounds over producer tasks. Each
// round gives the lowest-utility DAG one more task, where it fits or else by
// moving another planned task out of its way; the rounds stop when neither
// works (the lowest cannot be raised) or at maxRounds. It returns the rounds
// used.
func (pl *rasPlanner) raiseLowest(maxRounds int) int {
	if maxRounds <= 0 {
		maxRounds = defaultRASMaxRounds
	}
	rounds := 0
	for rounds < maxRounds {
		l := pl.lowestWanting()
		if l == nil {
			break
		}
		if i := pl.producerNode(l); i >= 0 {
			pl.place(l, RASProducer, i)
		} else if !pl.moveTo(l) {
			break
		}
		rounds++
	}
	return rounds
}

// moveTo makes room for the lowest DAG l, whose producer fits on no node
// as loads stand, by moving one planned producer slot (of any DAG) to
// another node where it also fits; l's task takes its place. The moved DAG
// keeps its allocation, so the lowest utility rises and nothing else
// falls. A slot a running attempt fills may move too: the attempt runs on
// and its room goes to l when it ends.
//
// The paper's other kind of move, taking a task from a higher DAG, is not
// needed here: the rounds give every planned task to its DAG while that DAG
// was the lowest, so the DAG would fall back to or below the lowest's
// utility and the minimum could not rise.
func (pl *rasPlanner) moveTo(l *rasDAGState) bool {
	owners := append([]*rasDAGState(nil), pl.dags...)
	sort.SliceStable(owners, func(i, j int) bool { return rasBefore(owners[j], owners[i]) })
	for i, n := range pl.nodes {
		for _, h := range owners {
			if h.prodOn[i] == 0 {
				continue
			}
			freed := n.load.sub(h.prodProfile)
			// Node i keeps its task count: h's task out, l's in.
			if !l.prodProfile.fitsOn(freed) {
				continue
			}
			j := pl.producerNodeExcept(h, i)
			if j < 0 {
				continue
			}
			pl.unplaceProducer(h, i)
			pl.place(h, RASProducer, j)
			pl.place(l, RASProducer, i)
			return true
		}
	}
	return false
}

// fill is stage 3 of Plan: give what capacity remains to whichever DAG can
// use it, lowest utility first, one task at a time.
func (pl *rasPlanner) fill() {
	for {
		placed := false
		for _, d := range pl.wantingLowestFirst() {
			if i := pl.producerNode(d); i >= 0 {
				pl.place(d, RASProducer, i)
				placed = true
				break
			}
		}
		if !placed {
			return
		}
	}
}

// producerNode is where d's next producer slot goes, or -1: a node where
// one of d's producers runs that no planned slot fills yet, if any fits
// (so a plan that agrees with what runs leaves it alone); else, and among
// those, the node whose most loaded resource stays lowest, which pairs
// tasks that use different resources (an I/O-bound task beside a CPU-bound
// one) and leaves room on every node; ties go to the first node.
func (pl *rasPlanner) producerNode(d *rasDAGState) int {
	return pl.producerNodeExcept(d, -1)
}

// producerNodeExcept is producerNode skipping node skip.
func (pl *rasPlanner) producerNodeExcept(d *rasDAGState, skip int) int {
	p := d.prodProfile
	best := -1
	var bestKey [2]float64
	for i, n := range pl.nodes {
		if i == skip || !pl.fits(n, n.load, p) {
			continue
		}
		key := [2]float64{notRunning(d.prodOn[i], d.prodRunOn[i]), n.load.add(p).max()}
		if best < 0 || rasLessKey(key[:], bestKey[:]) {
			best, bestKey = i, key
		}
	}
	return best
}

// notRunning is 0 where a running attempt waits for a planned slot (more
// run than are planned) and 1 elsewhere: the first key of a node choice.
func notRunning(planned, running int) float64 {
	if running > planned {
		return 0
	}
	return 1
}

func (pl *rasPlanner) fits(n *rasNodeState, load, p Profile) bool {
	return n.tasks < pl.maxPerNode && p.fitsOn(load)
}

func (pl *rasPlanner) place(d *rasDAGState, kind RASKind, i int) {
	n := pl.nodes[i]
	n.tasks++
	n.slot(d.in.ID, kind).Planned++
	if kind == RASConsumer {
		n.load = n.load.add(d.consProfile)
		n.consumers++
		d.consOn[i]++
		d.consLeft--
		d.consPlanned++
		return
	}
	n.load = n.load.add(d.prodProfile)
	d.prodOn[i]++
	d.prodLeft--
	d.prodPlanned++
}

func (pl *rasPlanner) unplaceProducer(d *rasDAGState, i int) {
	n := pl.nodes[i]
	n.tasks--
	n.slot(d.in.ID, RASProducer).Planned--
	n.load = n.load.sub(d.prodProfile)
	d.prodOn[i]--
	d.prodLeft++
	d.prodPlanned--
}

// lowestWanting is the lowest-utility DAG with producers left to place.
func (pl *rasPlanner) lowestWanting() *rasDAGState {
	var low *rasDAGState
	for _, d := range pl.dags {
		if d.prodLeft > 0 && (low == nil || rasBefore(d, low)) {
			low = d
		}
	}
	return low
}

func (pl *rasPlanner) wantingLowestFirst() []*rasDAGState {
	var ds []*rasDAGState
	for _, d := range pl.dags {
		if d.prodLeft > 0 {
			ds = append(ds, d)
		}
	}
	sort.SliceStable(ds, func(i, j int) bool { return rasBefore(ds[i], ds[j]) })
	return ds
}

// rasLessKey compares keys lexicographically.
func rasLessKey(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
