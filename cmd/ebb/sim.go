package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/sim"
	"github.com/ebb-am/ebb/sim/report"
	"github.com/ebb-am/ebb/sim/trace"
)

// simFlags are `ebb sim`'s flags: the trace and its models, the cloud,
// the policies and the report.
type simFlags struct {
	trace, format, scenario string
	policies                string
	reference               string
	jsonOut                 bool
	perJob                  bool
	plots                   string
	opts                    trace.Options
	windowStart, window     time.Duration
	cfg                     sim.Config
	nodeMB                  int64
	nodeVCores              int
	price                   float64
	sets                    []string // [POLICY:]KEY=VALUE
	policyFile              string
	billingAware            bool
	sweep                   string // KEY=v1,v2,...
	parallel                int
}

func newSimCmd() *cobra.Command {
	var f simFlags
	f.cfg = sim.DefaultConfig()
	m := trace.DefaultModel()
	f.opts.Model = m
	cmd := &cobra.Command{
		Use:   "sim (--trace FILE | --scenario FILE) [--policies P1,P2,...] [--json] [--plots DIR]",
		Short: "Replay a trace in virtual time under several policies and compare them",
		Long: `ebb sim runs the real AM core (scheduler, autoscaler, packing) against a virtual cloud in
virtual time, once per policy, over the same jobs, and reports node-hours, cost, job completion
times, slowdown against the static reference, goal attainment, utilisation and the lower bound
(sum of task memory x duration / node memory). Policies: static-N, mr3, ebb, spark-da, k8s-ca,
ebb-k8s-ca, ras and fair-slots-K. See docs/simulation.md for the models and how to read a report
(docs/kubernetes.md for ebb-k8s-ca).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSim(cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.trace, "trace", "", "the trace file (SWIM .tsv, Alibaba 2017 .csv, Decima .json.gz/.csv, ebb .json/.csv)")
	fl.StringVar(&f.format, "format", "", "the trace's format ("+strings.Join(trace.Formats, ", ")+"); default: from the file name")
	fl.StringVar(&f.scenario, "scenario", "", "an ebb JSON scenario (jobs plus the cluster: nodes, node memory)")
	fl.StringVar(&f.policies, "policies", "static-40,oracle,mr3,spark-da,k8s-ca,ebb", "policies to compare, comma-separated")
	fl.StringVar(&f.reference, "reference", "static", "the policy slowdowns are measured against (a name, or a prefix like static)")
	fl.BoolVar(&f.jsonOut, "json", false, "print one JSON object instead of a table")
	fl.BoolVar(&f.perJob, "per-job", false, "after the table, each job's completion time (and goal) under each policy; a miss is marked *")
	fl.StringVar(&f.plots, "plots", "", "write plots (nodes in use, utilisation over time) into this directory; none unless given")
	fl.Int64Var(&f.opts.Seed, "seed", 1, "seed for every random choice (same inputs and seed: identical output)")
	fl.Float64Var(&f.opts.Scale, "scale", 1, "stretch (>1) or shrink (<1) the trace's inter-arrival times")
	fl.DurationVar(&f.windowStart, "window-start", 0, "replay from this offset of the trace")
	fl.DurationVar(&f.window, "window", 0, "replay only this long a part of the trace (0: all)")
	// The models for what traces do not record (sim/trace/options.go).
	fl.Float64Var(&f.opts.Model.SplitMB, "split-mb", m.SplitMB, "SWIM: input MB per map task")
	fl.Float64Var(&f.opts.Model.ReduceInputMB, "reduce-input-mb", m.ReduceInputMB, "SWIM: shuffle MB per reduce task")
	fl.Float64Var(&f.opts.Model.MapMBPerSec, "map-mb-per-sec", m.MapMBPerSec, "SWIM: map processing rate")
	fl.Float64Var(&f.opts.Model.ReduceMBPerSec, "reduce-mb-per-sec", m.ReduceMBPerSec, "SWIM: reduce processing rate")
	fl.DurationVar(&f.opts.Model.MapBase, "map-base", m.MapBase, "SWIM: fixed cost of a map task")
	fl.DurationVar(&f.opts.Model.ReduceBase, "reduce-base", m.ReduceBase, "SWIM: fixed cost of a reduce task")
	fl.Int64Var(&f.opts.Model.MapMemoryMB, "map-memory-mb", m.MapMemoryMB, "SWIM: memory of a map task")
	fl.Int64Var(&f.opts.Model.ReduceMemoryMB, "reduce-memory-mb", m.ReduceMemoryMB, "SWIM: memory of a reduce task")
	fl.IntVar(&f.opts.Model.MaxTasksPerJob, "max-tasks-per-job", m.MaxTasksPerJob, "cap on a trace job's tasks (fewer, longer tasks keep its task time)")
	fl.Int64Var(&f.opts.Model.WorkerMemoryMB, "worker-memory-mb", m.WorkerMemoryMB, "the worker size of trace jobs' ContainerGroup")
	fl.Int64Var(&f.opts.Model.AlibabaNodeMemoryMB, "alibaba-node-memory-mb", m.AlibabaNodeMemoryMB, "Alibaba 2017: the machine memory its normalised memory is a fraction of")
	fl.DurationVar(&f.opts.Model.DecimaMeanInterarrival, "decima-interarrival", m.DecimaMeanInterarrival, "Decima: mean gap of the Poisson arrivals")
	fl.IntVar(&f.opts.Model.DecimaJobs, "decima-jobs", m.DecimaJobs, "Decima: jobs to draw (0: each DAG once)")
	fl.Int64Var(&f.opts.Model.AlibabaDAGMachines, "alibaba-dag-machines", m.AlibabaDAGMachines, "Alibaba 2018 DAGs: generate the arrivals this many of the trace's 4,034 machines saw")
	fl.DurationVar(&f.opts.Model.AlibabaDAGSpan, "alibaba-dag-span", m.AlibabaDAGSpan, "Alibaba 2018 DAGs: how long the generated arrivals last")
	// The virtual cloud.
	t := f.cfg.Cloud.Types[0]
	fl.Int64Var(&f.nodeMB, "node-memory-mb", t.MemoryMB, "memory of a cloud node")
	fl.IntVar(&f.nodeVCores, "node-vcores", t.VCores, "vcores of a cloud node")
	fl.Float64Var(&f.price, "price-per-hour", t.PricePerHour, "price of a node-hour")
	fl.DurationVar(&f.cfg.Cloud.ProvisionDelay, "provision-delay", f.cfg.Cloud.ProvisionDelay, "how long a new node takes")
	fl.DurationVar(&f.cfg.Cloud.ReclaimDelay, "reclaim-delay", f.cfg.Cloud.ReclaimDelay, "an empty node is given back after this")
	fl.DurationVar(&f.cfg.Cloud.BillingPeriod, "billing-period", f.cfg.Cloud.BillingPeriod, "0: per-second billing; e.g. 1h: a started hour is paid in full")
	fl.IntVar(&f.cfg.Cloud.MaxNodes, "max-nodes", f.cfg.Cloud.MaxNodes, "cap on nodes (0: none)")
	fl.IntVar(&f.cfg.Stragglers.Every, "slow-node-every", 0, "make every Nth node the run meets slow (0: none), for speculation (--set ebb.speculation.enabled=true)")
	fl.Float64Var(&f.cfg.Stragglers.Factor, "slow-node-factor", 5, "a slow node runs attempts this many times slower")
	// The policies' knobs (sim/knobs.go).
	fl.StringArrayVar(&f.sets, "set", nil, "[POLICY:]KEY=VALUE: change a policy knob (every policy it applies to, or POLICY only); repeatable. Keys: "+strings.Join(sim.KnobKeys(), "; "))
	fl.StringVar(&f.policyFile, "policy-file", "", "a file of [POLICY:]KEY=VALUE lines, applied before --set ('#' starts a comment)")
	fl.BoolVar(&f.billingAware, "billing-aware", false, "billing-aware scale-in for every elastic policy (--set "+sim.KeyBillingAware+"=true); ebb has it on by default under --billing-period")
	fl.IntVar(&f.parallel, "parallel", 0, "replay this many policies at once (0: one per core); each holds its own cluster and core state, so memory grows with it")
	fl.StringVar(&f.sweep, "sweep", "", "KEY=v1,v2,...: run every policy at each value of KEY and plot cost against p95 slowdown (sweep.png/svg in --plots)")
	return cmd
}

func runSim(out, errOut io.Writer, f simFlags) error {
	progress := &printer{w: errOut}
	if (f.trace == "") == (f.scenario == "") {
		return fmt.Errorf("sim: give exactly one of --trace FILE and --scenario FILE")
	}
	if f.parallel < 0 {
		return fmt.Errorf("sim: --parallel %d: want 0 (one per core) or more", f.parallel)
	}
	if f.perJob && f.jsonOut {
		return fmt.Errorf("sim: --per-job goes with the table, not --json (the JSON has each job under job_results)")
	}
	f.opts.WindowStart, f.opts.WindowLength = f.windowStart, f.window
	f.cfg.Cloud.Types[0].MemoryMB = f.nodeMB
	f.cfg.Cloud.Types[0].VCores = f.nodeVCores
	f.cfg.Cloud.Types[0].PricePerHour = f.price
	var jobs []trace.Job
	staticNodes := 0
	if f.scenario != "" {
		sc, err := trace.ReadScenario(f.scenario)
		if err != nil {
			return err
		}
		jobs = trace.Replay(sc.Jobs, f.opts)
		if sc.NodeMemoryMB > 0 {
			f.cfg.Cloud.Types[0].MemoryMB = sc.NodeMemoryMB
		}
		if sc.NodeVCores > 0 {
			f.cfg.Cloud.Types[0].VCores = sc.NodeVCores
		}
		staticNodes = sc.Nodes
	} else {
		var err error
		if jobs, err = trace.Read(f.trace, f.format, f.opts); err != nil {
			return err
		}
	}
	if len(jobs) == 0 {
		return fmt.Errorf("sim: no job to replay (check --window-start and --window)")
	}
	policies, err := f.buildPolicies(staticNodes)
	if err != nil {
		return err
	}
	if f.sweep != "" {
		return runSweep(out, progress, f, jobs, policies)
	}
	runs, err := runPolicies(progress, jobs, f.cfg, policies, f.parallel)
	if err != nil {
		return err
	}
	rep := report.Summarize(runs, f.reference)
	if f.jsonOut {
		err = rep.WriteJSON(out)
	} else {
		err = rep.WriteTable(out)
		if err == nil && f.perJob {
			err = writePerJob(out, runs)
		}
	}
	if err != nil {
		return err
	}
	if f.plots != "" {
		if err := os.MkdirAll(f.plots, 0o755); err != nil {
			return err
		}
		files, err := rep.WritePlots(f.plots)
		if err != nil {
			return err
		}
		progress.printf("sim: plots: %s\n", strings.Join(files, ", "))
	}
	return progress.done(nil)
}

// writePerJob writes one row per policy and one column per job: its
// completion time after submission, "/ goal" when it has one, and a * when
// it missed the goal or did not complete. It is how the RAS experiment's
// goals are judged job by job.
func writePerJob(w io.Writer, runs []report.Run) error {
	if len(runs) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	p := &printer{w: tw}
	p.print("\npolicy\t")
	for _, j := range runs[0].Jobs {
		p.printf("%s\t", j.ID)
	}
	p.println()
	for _, r := range runs {
		p.printf("%s\t", r.Policy)
		for _, j := range r.Jobs {
			cell := "-*" // did not complete
			if j.Completed {
				cell = strconv.FormatFloat(j.JCT().Seconds(), 'f', 0, 64)
			}
			if j.Goal > 0 {
				cell += " / " + strconv.FormatFloat(j.Goal.Seconds(), 'f', 0, 64)
				if j.Completed && j.JCT() > j.Goal {
					cell += "*"
				}
			}
			p.printf("%s\t", cell)
		}
		p.println()
	}
	if err := p.done(tw.Flush()); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "per job: completion time after submission / goal, in seconds; * = goal missed or job not completed")
	return err
}
