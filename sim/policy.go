package sim

import (
	"fmt"
	"github.com/ebb-am/ebb/am/amconf"
	"github.com/ebb-am/ebb/conf"
	"strconv"
	"strings"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/scheduler"
)

// mr3Scaling is the seed's autoscaler: the STABLE / SCALE_OUT / SCALE_IN
// state machine per group.
const mr3Scaling = core.ScaleAutoscaler

// policyBase is what every policy that runs the core starts from: the key
// table's defaults (am/amconf), less what a virtual cloud does not model
// and the policies add themselves: no cap on pending requests, no slow
// start, no reserve; YARN's own spreading placement. The table's
// autoscaler settings (MR3's defaults) wait in Core.Autoscale for the
// policies that scale so.
func policyBase(name string) Policy {
	d := conf.Defaults()
	pk := amconf.PackingOptions(d)
	p := Policy{Name: name, Packing: "uniform", HighThreshold: pk.HighThresholdPercent, MinNodes: pk.MinNodes,
		BillingAware: "false", Core: amconf.Defaults()}
	p.Core.MaxPendingRequests, p.Core.SlowStart, p.Core.ReservePercent = 0, 0, 0
	return p
}

// mapReduceSlowStart is Hadoop's default mapreduce.job.reduce.slowstart.
// completedmaps: ras and fair-slots-K model MapReduce schedulers (the RAS
// paper's), whose reduces start once 5% of their job's maps are done.
const mapReduceSlowStart = 0.05

// rasSlowStart is any fraction small enough that one map's output lets a
// reduce start (am/core producersNeeded: at least one): ras places
// reduces first, as the paper does.
const rasSlowStart = 1e-6

// Policy is a configuration of the one AM core plus how the cloud treats
// nodes. None is a separate engine.
type Policy struct {
	Name          string
	Core          core.CoreOptions
	Packing       string // ebb.packing.scheme
	HighThreshold int
	MinNodes      int
	// Static > 0: a fixed cluster of that many nodes, ready at the start
	// and never given back.
	Static int
	// NodeScaler "" gives empty nodes back after the reclaim delay;
	// "k8s-ca" applies a loose reading of the cluster-autoscaler's
	// scale-down rules instead (k8sca.go), "ca" the exact rules with ebb's
	// pods never evicted (ca.go).
	NodeScaler string
	// FixedCluster: the policy runs on a fixed cluster (a scenario's
	// nodes), like the static-slot experiments of the RAS paper.
	FixedCluster bool
	// NodeWorkers: one worker per node, as big as the node, so what limits
	// concurrency is the scheduler (profiles or slots), not worker sizes.
	NodeWorkers bool
	// SlotsPerNode > 0: K map slots (and hadoopReduceSlots reduce slots)
	// per node (fair-slots-K): every task is reserved 1/(K + reduce slots)
	// of a node's memory, so that memory never limits the slots, and the
	// task order keeps each type to its slots.
	SlotsPerNode int
	// PaperHardware: over-commitment costs as on the RAS paper's nodes
	// (contention_paper.go): paging beyond a node's memory, seeks between
	// concurrent disk streams. Only the RAS experiment's policies.
	PaperHardware bool
	// BillingAware: "true", "false", or "auto" (on for ebb when the cloud
	// bills per period): the autoscaler's scale-in and the return of empty
	// nodes follow the paid periods (billing.go).
	BillingAware string
	// BootFromCloud: the autoscaler's boot time (its hysteresis) is the
	// cloud's provisioning delay.
	BootFromCloud bool
	// Oracle: the clairvoyant reference (oracle.go), not a run of the
	// core.
	Oracle bool
}

// PolicyNames lists the policies ParsePolicy knows.
func PolicyNames() []string {
	return []string{"static-N", "oracle", "mr3", "ebb", "spark-da", "k8s-ca", "ebb-k8s-ca", "ras", "fair-slots-K"}
}

// ParsePolicy builds a named policy.
func ParsePolicy(name string) (Policy, error) {
	base := policyBase(name)
	switch {
	case strings.HasPrefix(name, "static-"):
		n, err := strconv.Atoi(strings.TrimPrefix(name, "static-"))
		if err != nil || n <= 0 {
			return Policy{}, fmt.Errorf("policy %q: want static-N with N a positive number of nodes", name)
		}
		base.Static = n
		base.Core.Scaling = core.ScaleOnDemand
		return base, nil
	case name == "oracle":
		return Policy{Name: name, Oracle: true}, nil
	case name == "mr3":
		// The seed's autoscaler with MR3's defaults, on YARN's own
		// spreading placement.
		base.Core.Scaling = mr3Scaling
		return base, nil
	case name == "ebb":
		// The autoscaler with ebb's extras: increments computed from the
		// gap to the threshold and the queued demand, predictive
		// scale-out, grace periods of one minute; plus packed placement,
		// so scale-in finds empty nodes.
		base.Core.Scaling = mr3Scaling
		base.Core.Autoscale.IncrementWorkers = 0
		base.Core.Autoscale.Predictive = true
		base.Core.Autoscale.OutGracePeriod = time.Minute
		base.Core.Autoscale.InGracePeriod = time.Minute
		base.Packing = "packed"
		base.BillingAware = "auto"
		base.BootFromCloud = true
		// Latency: fair order, a reserve for DAGs that arrive, and a warm
		// headroom from the last quarter hour's bursts (the keys'
		// defaults on YARN too).
		fair, err := scheduler.NewTaskOrder("fair")
		if err != nil {
			return Policy{}, err
		}
		base.Core.Tasks = fair
		base.Core.ReservePercent = 10
		base.Core.Autoscale.HeadroomWindow = 15 * time.Minute
		return base, nil
	case name == "spark-da":
		base.Core.Scaling = core.ScaleSparkDA
		base.Core.BacklogTimeout = time.Second
		base.Core.IdleTimeout = 60 * time.Second
		return base, nil
	case name == "ras":
		// Resource-aware scheduling with completion-time goals on a fixed
		// cluster: the profiles decide how many tasks share a node.
		o, err := scheduler.NewTaskOrder("ras")
		if err != nil {
			return Policy{}, err
		}
		base.Core.Tasks = o
		base.Core.RASCycle = 30 * time.Second
		// The paper places a job's reduces first (stage 1 of the plan):
		// they may start as soon as there is a map output to fetch, the
		// core's floor of slow start (one map).
		base.Core.SlowStart = rasSlowStart
		base.FixedCluster, base.NodeWorkers = true, true
		base.PaperHardware = true
		return base, nil
	case strings.HasPrefix(name, "fair-slots-"):
		k, err := strconv.Atoi(strings.TrimPrefix(name, "fair-slots-"))
		if err != nil || k <= 0 {
			return Policy{}, fmt.Errorf("policy %q: want fair-slots-K with K a positive number of slots per node", name)
		}
		// Hadoop's Fair Scheduler of the RAS paper's era: K map slots and
		// two reduce slots per node, fair shares per task type
		// (fairslots.go), on the paper's hardware.
		base.Core.Tasks = fairSlots{maps: k, reduces: hadoopReduceSlots}
		base.Core.SlowStart = mapReduceSlowStart
		base.FixedCluster, base.NodeWorkers, base.SlotsPerNode = true, true, k
		base.PaperHardware = true
		return base, nil
	case name == "ebb-k8s-ca":
		// ebb under the cluster autoscaler: the ebb policy's AM, which
		// only empties nodes (its scale-in drains them); the nodes go
		// away by the CA's rules (ca.go), not after the cloud's reclaim
		// delay. The CA does not know paid periods, so nothing here is
		// billing-aware (sim.billing.aware=true turns on the AM's half).
		p, err := ParsePolicy("ebb")
		if err != nil {
			return Policy{}, err
		}
		p.Name, p.NodeScaler, p.BillingAware = name, "ca", "false"
		return p, nil
	case name == "k8s-ca":
		// Workers (pods) on demand, leaving when idle; nodes scaled by the
		// cluster-autoscaler's rules.
		base.Core.Scaling = core.ScaleOnDemand
		base.Core.IdleTimeout = 60 * time.Second
		base.NodeScaler = "k8s-ca"
		return base, nil
	}
	return Policy{}, fmt.Errorf("unknown policy %q: want one of %s", name, strings.Join(PolicyNames(), ", "))
}
