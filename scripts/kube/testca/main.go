// Command testca is the test cluster's cluster autoscaler, and the few
// controllers of a controller manager the test cluster needs. It makes the
// first nodes (kwok's, --nodes of them), then every --scan-interval:
//
//   - scale-up: a pod Pending with PodScheduled=False, reason
//     Unschedulable, that no node can take now but a new node could, gets
//     new nodes (up to --max-nodes);
//   - scale-down: a node whose pods' requests are under
//     --scale-down-utilization-threshold of its allocatable (cpu and
//     memory) and whose pods can all be moved is unneeded; once unneeded for
//     --scale-down-unneeded-time, and no scale-up for
//     --scale-down-delay-after-add, its pods are evicted (Eviction API) and
//     it is deleted (never below --min-nodes).
//
// Its rules follow the cluster autoscaler's FAQ; each decision is logged
// with the rule that made it. The controllers: every namespace gets a
// "default" ServiceAccount; a pod whose owner pod is gone is deleted (the
// garbage collector, for pods owned by pods only); pods left bound to a
// deleted node are deleted (the pod garbage collector); a namespace being
// deleted is emptied and finalized (the namespace controller).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ebb-am/ebb/scripts/kube/internal/harness"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/informers"
)

type options struct {
	kubeconfig          string
	nodes, minNodes     int
	maxNodes            int
	cpu, memory         string
	kubeletPort         int
	scanInterval        time.Duration
	unneededTime        time.Duration
	delayAfterAdd       time.Duration
	threshold           float64
	maxEmptyBulkDelete  int
	nodeCPU, nodeMemory resource.Quantity
}

func main() {
	var o options
	flag.StringVar(&o.kubeconfig, "kubeconfig", "", "the kubeconfig to use")
	flag.IntVar(&o.nodes, "nodes", 2, "nodes made at start")
	flag.IntVar(&o.minNodes, "min-nodes", -1, "scale-down never leaves fewer nodes (default: --nodes)")
	flag.IntVar(&o.maxNodes, "max-nodes", 6, "scale-up never makes more nodes")
	flag.StringVar(&o.cpu, "node-cpu", "4", "each node's cpu (capacity and allocatable)")
	flag.StringVar(&o.memory, "node-memory", "8Gi", "each node's memory (capacity and allocatable)")
	flag.IntVar(&o.kubeletPort, "kubelet-port", 10250, "testkubelet's API port, each node's kubelet endpoint")
	flag.DurationVar(&o.scanInterval, "scan-interval", 10*time.Second, "how often the autoscaler looks (CA: --scan-interval)")
	flag.DurationVar(&o.unneededTime, "scale-down-unneeded-time", 10*time.Minute, "how long a node must be unneeded before it goes (CA: same flag)")
	flag.DurationVar(&o.delayAfterAdd, "scale-down-delay-after-add", 10*time.Minute, "no scale-down this long after a scale-up (CA: same flag)")
	flag.Float64Var(&o.threshold, "scale-down-utilization-threshold", 0.5, "a node under this share of requested cpu and memory may be unneeded (CA: same flag)")
	flag.IntVar(&o.maxEmptyBulkDelete, "max-empty-bulk-delete", 10, "most empty nodes deleted in one scan (CA: same flag)")
	flag.Parse()
	if err := o.check(); err != nil {
		fmt.Fprintln(os.Stderr, "testca:", err)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "testca:", err)
		os.Exit(1)
	}
}

func (o *options) check() error {
	var err error
	if o.kubeconfig == "" {
		return fmt.Errorf("--kubeconfig is required")
	}
	if o.nodeCPU, err = resource.ParseQuantity(o.cpu); err != nil {
		return fmt.Errorf("--node-cpu=%s: %w", o.cpu, err)
	}
	if o.nodeMemory, err = resource.ParseQuantity(o.memory); err != nil {
		return fmt.Errorf("--node-memory=%s: %w", o.memory, err)
	}
	if o.minNodes < 0 {
		o.minNodes = o.nodes
	}
	if o.nodes < 0 || o.maxNodes < o.nodes || o.minNodes > o.maxNodes {
		return fmt.Errorf("need 0 <= --min-nodes (%d) and --nodes (%d) <= --max-nodes (%d)", o.minNodes, o.nodes, o.maxNodes)
	}
	if o.threshold <= 0 || o.threshold > 1 {
		return fmt.Errorf("--scale-down-utilization-threshold=%v: must be in (0, 1]", o.threshold)
	}
	if o.scanInterval <= 0 {
		return fmt.Errorf("--scan-interval=%v: must be positive", o.scanInterval)
	}
	return nil
}

func run(o options) error {
	cs, _, err := harness.Client(o.kubeconfig)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	f := informers.NewSharedInformerFactory(cs, 0)
	a := &autoscaler{o: o, cs: cs, log: harness.Logger("testca"),
		pods: f.Core().V1().Pods().Lister(), nodes: f.Core().V1().Nodes().Lister(),
		namespaceLister: f.Core().V1().Namespaces().Lister(),
		unneeded:        map[string]time.Time{}}
	if err := a.controllers(ctx, f); err != nil {
		return err
	}
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	if err := a.initialNodes(ctx); err != nil {
		return err
	}
	a.log.Printf("scan every %v; scale-down: threshold %.2f, unneeded time %v, delay after add %v; nodes %d..%d",
		o.scanInterval, o.threshold, o.unneededTime, o.delayAfterAdd, o.minNodes, o.maxNodes)
	t := time.NewTicker(o.scanInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			a.scan(ctx, time.Now())
			a.namespaces(ctx)
		}
	}
}
