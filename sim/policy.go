package sim

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"ebb/am"
	"ebb/scheduler"
)

// mr3Scaling is the seed's autoscaler: the STABLE / SCALE_OUT / SCALE_IN
// state machine per group.
const mr3Scaling = am.ScaleAutoscaler

// defaultAutoscale is the autoscaler with MR3's documented defaults.
func defaultAutoscale() scheduler.AutoscaleConfig { return scheduler.DefaultAutoscaleConfig() }

// Policy is a configuration of the one AM core plus how the cloud treats
// nodes. None is a separate engine.
type Policy struct {
	Name          string
	Core          am.CoreOptions
	Packing       string // ebb.packing.scheme
	HighThreshold int
	MinNodes      int
	// Static > 0: a fixed cluster of that many nodes, ready at the start
	// and never given back.
	Static int
	// NodeScaler "" gives empty nodes back after the reclaim delay;
	// "k8s-ca" applies the cluster-autoscaler's scale-down rules instead.
	NodeScaler string
}

// PolicyNames lists the policies ParsePolicy knows.
func PolicyNames() []string {
	return []string{"static-N", "mr3", "ebb", "spark-da", "k8s-ca"}
}

// ParsePolicy builds a named policy.
func ParsePolicy(name string) (Policy, error) {
	base := Policy{Name: name, Packing: "uniform", HighThreshold: 60, MinNodes: 5}
	base.Core.IdleTimeout = 5 * time.Minute
	switch {
	case strings.HasPrefix(name, "static-"):
		n, err := strconv.Atoi(strings.TrimPrefix(name, "static-"))
		if err != nil || n <= 0 {
			return Policy{}, fmt.Errorf("policy %q: want static-N with N a positive number of nodes", name)
		}
		base.Static = n
		base.Core.Scaling = am.ScaleOnDemand
		return base, nil
	case name == "mr3":
		// The seed's autoscaler with MR3's defaults, on YARN's own
		// spreading placement.
		base.Core.Scaling = mr3Scaling
		base.Core.Autoscale = defaultAutoscale()
		return base, nil
	case name == "ebb":
		// The autoscaler plus packed placement, so scale-in finds empty nodes.
		base.Core.Scaling = mr3Scaling
		base.Core.Autoscale = defaultAutoscale()
		base.Packing = "packed"
		return base, nil
	case name == "spark-da":
		base.Core.Scaling = am.ScaleSparkDA
		base.Core.BacklogTimeout = time.Second
		base.Core.IdleTimeout = 60 * time.Second
		return base, nil
	case name == "k8s-ca":
		// Workers (pods) on demand, leaving when idle; nodes scaled by the
		// cluster-autoscaler's rules.
		base.Core.Scaling = am.ScaleOnDemand
		base.Core.IdleTimeout = 60 * time.Second
		base.NodeScaler = "k8s-ca"
		return base, nil
	}
	return Policy{}, fmt.Errorf("unknown policy %q: want one of %s", name, strings.Join(PolicyNames(), ", "))
}
