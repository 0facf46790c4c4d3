package core

import (
	"fmt"
	"sort"
	"time"

	"github.com/ebb-am/ebb/scheduler"
)

// SetAllocation tells the Core the cluster's container sizes once the
// world knows them (on YARN: the registration's maximum capability and
// yarn.scheduler.minimum-allocation-mb). Groups sized before keep their
// size; groups sized later use these.
func (c *Core) SetAllocation(l AllocationLimits) { c.opts.Allocation = l }

// AllocationLimits are the cluster's container sizes (scheduler's type,
// named here so the worlds need not import scheduler).
type AllocationLimits = scheduler.AllocationLimits

// Core is the AM's deterministic state machine. Its exported methods are
// events; each may append Actions, which the caller hands to its Executor
// with Drain.
// It is not safe for concurrent use: one loop owns it.
type Core struct {
	opts    CoreOptions
	now     time.Time
	seq     int // groups and DAGs in creation order
	dagSeq  int // DAG ids
	dags    map[string]*dagRun
	active  []*dagRun // SUBMITTED and RUNNING, in scheduling order
	groups  map[string]*group
	gorder  []*group
	workers map[string]*workerRun
	nodes   map[string]*nodeRun
	// lost are the workers this AM attempt has lost, with why (fence.go);
	// fenced counts what they sent after and was refused.
	lost   map[string]string
	fenced int
	// unexplained: workers lost without a cause yet, kept for the
	// cluster's word on why (lostcause.go).
	unexplained map[string]*unexplainedLoss
	// waitingDrains are draining nodes whose scale-in still waits for
	// DAGs; their workers take those DAGs' attempts (drain.go).
	waitingDrains map[*nodeRun]struct{}
	// ndraining counts the nodes of c.nodes that drain, so that listing
	// them (drainingNodes, on every WantWorkers) skips the walk over
	// every node when none does.
	ndraining int
	// blacklist: nodes given up on, with the reason (blacklist.go); kept
	// after their last worker is gone so no new worker goes there.
	blacklist map[string]string
	nodeStats map[string]*nodeStats
	// cluster: every node the world reported (YARN's node reports) and its
	// memory, including nodes where this AM has no worker (cluster.go).
	cluster map[string]int64
	// clusterTypes: the other resource types (yarn.io/gpu) of the nodes in
	// cluster that have any, for packing groups that ask for them.
	clusterTypes map[string]map[string]int64
	// clusterLabels: the labels (partitions) of the labelled nodes.
	clusterLabels map[string]string
	// clusterOthers: the memory others hold on the nodes where the last
	// report saw any (ClusterNode.OthersMB).
	clusterOthers map[string]int64
	// fullUntil: nodes that left a packed ask unanswered, and until when
	// no ask names them (asktimeout.go).
	fullUntil map[string]time.Time
	attempt   map[string]*attemptRun
	actions   []Action
	// quietUntil: no running attempt can miss the task timeout before
	// then (checkTimeouts).
	quietUntil time.Time
	ended      []*dagRun // finished DAGs kept whole, oldest first, for status queries
	// summaries: finished DAGs compacted to their status (retain.go).
	summaries summaries

	transitions []Transition
	// paid: when each node's paid billing period ends, as a world that
	// knows reports it (NodesBilled; the sim's cloud); nil when none does.
	paid map[string]time.Time
	// firstSeen: when each node first held a worker of this AM, kept
	// after its last worker leaves (billing.go).
	firstSeen map[string]time.Time
	recycled  int
	lastFair  time.Time
	rasPlan   *scheduler.RASPlan
	journal   journal           // what the status UI shows beyond the live state (journal.go)
	preempt   preemptState      // preemption warnings, give-backs, headroom (preempt.go)
	specCount SpeculationCounts // backup attempts of every DAG (speculate.go)
	// backupAvoid: the slow nodes of the DAGs whose backups asked the
	// world for room in the last speculation pass; no new worker goes
	// there (speculate.go).
	backupAvoid []string

	// Recovery (recover.go): the wait for workers of an earlier attempt,
	// and the tasks that succeeded since TakeJournal.
	rec        *recovery
	journaling bool
	succeeded  []TaskDone

	// nodeConds: nodes the cluster reports not RUNNING (decommissioning,
	// unhealthy, lost...), kept until it reports them RUNNING again
	// (nodestate.go).
	nodeConds map[string]*nodeCond

	// amw is the in-AM worker of small DAGs (uber.go).
	amw amWorker
}

// NewCore returns an empty Core, or the first option it cannot work
// with: it fills in nothing (defaults are the key table's, applied by
// am/amconf).
func NewCore(opts CoreOptions) (*Core, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return &Core{
		opts:          opts,
		firstSeen:     map[string]time.Time{},
		dags:          map[string]*dagRun{},
		groups:        map[string]*group{},
		workers:       map[string]*workerRun{},
		nodes:         map[string]*nodeRun{},
		waitingDrains: map[*nodeRun]struct{}{},
		blacklist:     map[string]string{},
		nodeStats:     map[string]*nodeStats{},
		cluster:       map[string]int64{},
		attempt:       map[string]*attemptRun{},
	}, nil
}

func (c *Core) emit(a Action) { c.actions = append(c.actions, a) }

func (c *Core) logf(format string, args ...any) {
	c.emit(Log{Msg: fmt.Sprintf(format, args...)})
}

func (c *Core) warnf(format string, args ...any) {
	c.emit(Log{Warn: true, Msg: fmt.Sprintf(format, args...)})
}

func (c *Core) advance(now time.Time) {
	if now.After(c.now) {
		c.now = now
	}
}

// Tick advances time and runs the Core's periodic decisions. The order is
// the decisions' dependencies; each stage says why it comes where it does.
func (c *Core) Tick(now time.Time) {
	c.advance(now)
	// First lose what time has expired: silent workers and hung attempts go
	// back to their queues before anything counts workers or queues.
	c.checkTimeouts()
	c.forgetUnexplained()
	// An in-AM worker that never registered is given up the same way, so
	// that its small DAGs ask for worker containers in this tick.
	c.checkAMWorkerStart()
	// A new AM attempt stops waiting for the old attempt's workers once the
	// window has passed, so the tasks it held count as queued from here on.
	c.recoveryTick()
	// Admission before scheduling: a DAG admitted now gets its attempts
	// queued and placed in this tick.
	c.admit()
	// ras re-plans before scheduling, which orders attempts by the plan.
	c.rasCycle()
	// Place what fits on the workers there are, so that the autoscaler
	// below sees as queued only the attempts that really wait for a worker
	// (scale-out needs queued work) and usage that includes the placements.
	c.schedule()
	c.autoscale()
	// Recycling hands free workers to other groups of their kind; the
	// second schedule gives a moved worker its new group's queued attempts
	// at once, so that reapIdle and updateWanted below do not see it idle
	// or those attempts unplaced (it would wait a tick, be reaped under a
	// short idle timeout, or be asked of the cluster again). When nothing
	// moved it finds nothing new: the autoscaler only sets totals and
	// drains, which take room away. It stays unconditional because it is
	// cheap and a pass is bounded (maxSkips), so a second one is never wrong.
	c.recycle()
	c.schedule()
	// After the last regular placement: a group that placed nothing and
	// holds only gathering consumers while producers wait is stalled.
	c.relieveStalls()
	// Backups for stragglers take only room the placements above left:
	// speculation never delays a first attempt.
	c.speculate()
	// Only after the last placement: a draining worker that got nothing
	// and holds nothing needed stops; an idle worker is reaped.
	c.stopDrained()
	c.reapIdle()
	// Groups emptied by the stops above can go, before the totals are told.
	c.removeEmptyGroups()
	// Asks left unanswered are planned anew in the update below.
	c.expireAsks()
	// The totals the world hears reflect every stage above.
	c.updateWanted()
	// The UI's usage chart samples the state this tick settled on.
	c.sampleUsage()
	// Last, compaction of finished DAGs: nothing above reads them.
	c.retain()
}

// Now is the latest time the Core has seen.
func (c *Core) Now() time.Time { return c.now }

// seedOf is the 64-bit FNV-1a hash of s (hash/fnv's New64a), written
// out so that hashing an attempt's id at each placement allocates nothing.
func seedOf(s string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	return h
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
