package conf

// Key describes one configuration key ebb understands.
type Key struct {
	Name    string
	Default string
	Type    Type
	Enum    []string // the allowed values of an Enum key, canonical spelling
	Bounds  Bounds   // for Int, Int64 and Float keys
	Doc     string   // one line, shown by Markdown
}

// keys is the one table of every mr3./ebb. key ebb reads. MR3's keys keep
// MR3's names and defaults so an admin's mr3-site.xml means the same thing
// here; ebb's own keys start with "ebb.". Add a key by adding a line.
var keys = []Key{
	// Autoscaling, per ContainerGroup.
	{Name: "mr3.enable.auto.scaling", Type: Bool, Default: "false",
		Doc: "master switch for autoscaling"},
	{Name: "mr3.check.memory.usage.event.interval.secs", Type: Int, Default: "10", Bounds: from(1),
		Doc: "memory usage sampling interval (also the fair-recycling interval)"},
	{Name: "mr3.memory.usage.check.window.length.secs", Type: Int, Default: "600", Bounds: from(1),
		Doc: "window over which usage samples are combined"},
	{Name: "mr3.memory.usage.check.scheme", Type: Enum, Default: "average", Enum: []string{"average", "maximum"},
		Doc: "how samples in the window are combined"},
	{Name: "mr3.auto.scale.out.threshold.percent", Type: Int, Default: "80", Bounds: between(0, 100),
		Doc: "usage at or above which scale-out triggers (with attempts queued)"},
	{Name: "mr3.auto.scale.out.grace.period.secs", Type: Int, Default: "300", Bounds: from(0),
		Doc: "cooldown after a scale-out; pending requests are cancelled when it ends (it ends this long after the boot, when ebb.auto.scale.node.boot.secs gives one: a worker that needs a new node cannot come sooner)"},
	{Name: "mr3.auto.scale.in.delay.after.scale.out.secs", Type: Int, Default: "60", Bounds: from(0),
		Doc: "minimum time after leaving SCALE_OUT before a scale-in"},
	{Name: "mr3.auto.scale.in.threshold.percent", Type: Int, Default: "50", Bounds: between(0, 100),
		Doc: "usage at or below which scale-in triggers"},
	{Name: "mr3.auto.scale.in.min.hosts", Type: Int, Default: "1", Bounds: from(0),
		Doc: "nodes that must remain after a scale-in"},
	{Name: "mr3.auto.scale.in.grace.period.secs", Type: Int, Default: "300", Bounds: from(0),
		Doc: "cooldown after a scale-in"},
	{Name: "mr3.auto.scale.in.wait.dag.finished", Type: Bool, Default: "true",
		Doc: "workers on emptied nodes serve until the DAGs active at scale-in finish"},
	{Name: "mr3.auto.scale.out.num.initial.containers", Type: Int, Default: "0", Bounds: from(0),
		Doc: "workers to request when a group has none (0 = computed)"},
	{Name: "mr3.auto.scale.out.num.increment.containers", Type: Int, Default: "1", Bounds: from(0),
		Doc: "workers per scale-out; 0 = computed from the gap to the threshold"},
	{Name: "mr3.auto.scale.in.num.decrement.hosts", Type: Int, Default: "1", Bounds: from(0),
		Doc: "nodes per scale-in; 0 = computed from the gap to the threshold"},
	{Name: "ebb.auto.scale.predictive.enabled", Type: Bool, Default: "false",
		Doc: "scale out when the estimated time to finish queued work exceeds the target"},
	{Name: "ebb.auto.scale.target.p95.slowdown", Type: Float, Default: "2", Bounds: between(1, 1000),
		Doc: "the latency promised (with predictive scale-out): 95 of 100 DAGs end within this many times their critical path; the time the work in sight may take on top of a boot is derived from it and corrected from the slowdowns measured (docs/autoscaling-target.md)"},
	{Name: "ebb.auto.scale.headroom.window.secs", Type: Int, Default: "0", Bounds: from(0),
		Doc: "a warm headroom: neither a scale-in nor the idle timeout (mr3.container.idle.timeout.ms) leaves fewer workers than the largest demand (running plus queued memory) of this last window needs (0 = off)"},
	{Name: "ebb.auto.scale.node.boot.secs", Type: Int, Default: "0", Bounds: from(0),
		Doc: "how long a new node takes to boot (0 = unknown, off): a scale-in waits for usage to stay low this long and this long after a scale-out; with predictive scale-out, workers are asked only for the work still left when a new node would be up"},

	// Workers, groups, recycling.
	{Name: "mr3.container.scheduler.scheme", Type: Enum, Default: "none", Enum: []string{"none", "fifo", "fair"},
		Doc: "worker recycling between groups of one kind"},
	{Name: "mr3.container.scheduler.remove.empty.kind", Type: Bool, Default: "false",
		Doc: "drop a kind with no groups; reserve workers for recycling only when a kind has several groups"},
	{Name: "mr3.container.max.num.workers", Type: Int, Default: "0", Bounds: from(0),
		Doc: "cap on workers per group (0 = unlimited)"},
	{Name: "ebb.worker.auto.size.max.tasks", Type: Int, Default: "4", Bounds: between(1, 1024),
		Doc: "for a DAG that leaves containerGroup.workerMemoryMB out: a worker holds at most this many of its largest tasks (fewer when its widest vertex has fewer tasks)"},
	{Name: "ebb.task.memory.retry.factor", Type: Float, Default: "2", Bounds: between(1, 100),
		Doc: "a task whose attempt was killed for exceeding its memory is retried with its memory times this (1 = the same memory)"},
	{Name: "ebb.task.memory.retry.max.mb", Type: Int64, Default: "0", Bounds: from(0),
		Doc: "the most memory such a retry asks for (0 = the group's worker size, which caps it in any case)"},
	{Name: "mr3.container.idle.timeout.ms", Type: Int64, Default: "300000", Bounds: millis(0),
		Doc: "an idle worker (no attempts, no output to serve) is released after this (0 = at the first tick it is idle)"},
	{Name: "mr3.heartbeat.container.timeout.ms", Type: Int64, Default: "600000", Bounds: millis(1),
		Doc: "a worker silent this long is lost, even with its stream open (a wedged worker): it is told to stop and its container is given back or its process killed; its attempts are retried elsewhere, not counted as failures, and its outputs recomputed"},
	{Name: "mr3.heartbeat.task.timeout.ms", Type: Int64, Default: "120000", Bounds: millis(1),
		Doc: "an attempt neither listed in its worker's heartbeats nor reporting progress this long is failed, unless its worker is as silent (then mr3.heartbeat.container.timeout.ms decides, and the loss is the worker's)"},
	{Name: "mr3.am.task.max.failed.attempts", Type: Int, Default: "3", Bounds: from(1),
		Doc: "attempts per task before the DAG fails"},
	{Name: "mr3.am.node-blacklisting.enabled", Type: Bool, Default: "false",
		Doc: "stop using a node where attempts keep failing: it drains, gets no new attempts or workers, and joins the RM's blacklist"},
	{Name: "mr3.am.maxtaskfailure.percent", Type: Int, Default: "50", Bounds: between(1, 100),
		Doc: "with blacklisting on, the share of attempts ended on a node that failed (once at least 3 did) at which the node is blacklisted"},
	{Name: "ebb.am.worker.heartbeat.interval.ms", Type: Int64, Default: "1000", Bounds: millis(1),
		Doc: "how often a worker reports to the AM"},

	// The AM.
	{Name: "mr3.am.resource.memory.mb", Type: Int, Default: "4096", Bounds: from(1),
		Doc: "AM container memory"},
	{Name: "mr3.am.resource.cpu.cores", Type: Int, Default: "1", Bounds: from(1),
		Doc: "AM container vcores"},
	{Name: "mr3.am.max.app.attempts", Type: Int, Default: "2", Bounds: from(1),
		Doc: "YARN attempts for the AM"},
	{Name: "ebb.am.attempt.failures.validity.interval.ms", Type: Int64, Default: "-1", Bounds: millis(-1),
		Doc: "only AM attempts that failed within this window count towards mr3.am.max.app.attempts, so a long-lived session survives losses spread over its life (the submission's attempt_failures_validity_interval, as Spark's spark.yarn.am.attemptFailuresValidityInterval); -1 or 0 = every failure counts"},
	{Name: "ebb.am.priority", Type: Int, Default: "-1", Bounds: from(-1),
		Doc: "the application's YARN priority (ebb submit --priority; higher is activated first in a full queue, up to yarn.cluster.max-application-priority); -1 = the queue's default"},
	{Name: "ebb.am.node.label.expression", Type: String, Default: "",
		Doc: "the YARN node label (partition) the AM's container runs in (the submission's AM resource request's node_label_expression, as Spark's spark.yarn.am.nodeLabelExpression); a label the cluster does not have is refused at submit; empty = the queue's default partition. Workers take theirs from their containerGroup's nodeLabel"},
	{Name: "mr3.am.rm.heartbeat.interval.ms", Type: Int64, Default: "1000", Bounds: millis(1),
		Doc: "allocate() heartbeat to the ResourceManager"},
	{Name: "ebb.am.rm.heartbeat.initial.interval.ms", Type: Int64, Default: "200", Bounds: millis(0),
		Doc: "while containers are asked for and not yet allocated, allocate() comes this soon after the last one, then twice as late, doubling up to mr3.am.rm.heartbeat.interval.ms (Spark's spark.yarn.scheduler.initial-allocation.interval); 0 = always mr3.am.rm.heartbeat.interval.ms"},
	{Name: "mr3.am.resourcescheduler.max.requests.per.taskscheduler", Type: Int, Default: "10", Bounds: from(1),
		Doc: "workers a group asks for beyond those it has, at most; more are asked for as they arrive"},
	{Name: "mr3.am.max.num.concurrent.dags", Type: Int, Default: "128", Bounds: from(1),
		Doc: "DAGs running at once; more wait"},
	{Name: "mr3.am.session.mode", Type: Bool, Default: "false",
		Doc: "keep the AM up for many DAGs"},
	{Name: "mr3.dag.recovery.enabled", Type: Bool, Default: "true",
		Doc: "a new AM attempt resumes running DAGs"},
	{Name: "ebb.session.idle.timeout.secs", Type: Int, Default: "300", Bounds: from(0),
		Doc: "a session with no DAG this long finishes and gives every container back (0 = never)"},
	{Name: "ebb.fault.commit.hold.after", Type: Enum, Default: "none", Enum: []string{"none", "prepared", "aside", "switched", "cleaned", "journaled", "withdrawn", "completed", "pruned", "succeeded"},
		Doc: "fault injection for crash tests, on YARN: the first AM attempt stops for good after this step of its first output commit (logging `commit held after STEP`) so that a test can kill -9 it there: prepared, aside, switched, cleaned for a file system's rename commit; journaled, withdrawn, completed, pruned, succeeded, cleaned for an object store's (docs/s3.md); none = off"},
	{Name: "ebb.fault.am.hold.at", Type: Enum, Default: "none", Enum: []string{"none", "amworker-started", "commit-granted", "commit-reported"},
		Doc: "fault injection for crash tests, on YARN: the first AM attempt's loop stops for good at this step (logging `AM held at STEP`) so that a test can kill -9 it there: amworker-started = right after it started the in-AM worker, before that worker registers; commit-granted = right after it sent its first CommitGranted, before that attempt's end reaches the core; commit-reported = when the first attempt granted its commit reports it succeeded (its files are committed), before the core or the recovery log hears of it; none = off"},
	{Name: "ebb.am.dag.retained.count", Type: Int, Default: "1000", Bounds: from(1),
		Doc: "finished DAGs the AM keeps whole (tasks, vertices, attempts) for status and the UI, as Spark's spark.ui.retainedJobs; older ones are compacted to a summary (id, name, state, times, counts, diagnostics, output) and the UI reads their detail from the history"},
	{Name: "ebb.am.dag.retained.secs", Type: Int, Default: "0", Bounds: from(0),
		Doc: "a finished DAG is also compacted to its summary this long after it ended (0 = by ebb.am.dag.retained.count only)"},
	{Name: "ebb.am.dag.summary.retained.count", Type: Int, Default: "10000", Bounds: from(1),
		Doc: "finished DAGs the AM still lists (whole or as a summary); older ones are forgotten: status says there is no such DAG, and the UI serves them from the history"},
	{Name: "ebb.am.uber.enabled", Type: Bool, Default: "false",
		Doc: "a small DAG (within ebb.am.uber.max.tasks, ebb.am.uber.max.input.mb and ebb.am.uber.memory.mb) runs on one worker process inside the AM's own container, with no worker container asked of the ResourceManager (MapReduce's mapreduce.job.ubertask.enable); on YARN the AM's container then holds ebb.am.uber.memory.mb more than mr3.am.resource.memory.mb"},
	{Name: "ebb.am.uber.max.tasks", Type: Int, Default: "10", Bounds: from(1),
		Doc: "a DAG of more tasks (over all its vertices) is not small (MapReduce: mapreduce.job.ubertask.maxmaps 9 plus maxreduces 1)"},
	{Name: "ebb.am.uber.max.input.mb", Type: Int64, Default: "128", Bounds: from(0),
		Doc: "a DAG whose input splits hold more is not small (MapReduce: mapreduce.job.ubertask.maxbytes, an HDFS block)"},
	{Name: "ebb.am.uber.memory.mb", Type: Int64, Default: "1024", Bounds: from(1),
		Doc: "the in-AM worker's memory, added to the AM's container when ebb.am.uber.enabled is true; a DAG with a task larger than this is not small"},
	{Name: "ebb.am.event.log.enabled", Type: Bool, Default: "false",
		Doc: "the AM records every input event of its core, with its time, and the actions the core answered, for `ebb replay`: in <ebb.history.dir>/<application>/events-<attempt>.log on YARN (beside the history, which outlives the staging directory), in events.log under the local root locally"},
	{Name: "ebb.am.event.log.max.mb", Type: Int, Default: "256", Bounds: from(1),
		Doc: "the event log's size cap: once a line would pass it, the log ends with a `# capped` line and records no more (a replay then stops there, the run's beginning intact)"},
	{Name: "ebb.history.dir", Type: String, Default: "",
		Doc: "where the AM writes its history for `ebb history`: on the cluster's file system on YARN, a local path locally, or in both an s3://BUCKET/PREFIX (s3a://) URI (empty = /user/<user>/.ebb/history on YARN, <ebb.local.dir>/history locally); kept after the staging directory is removed. On S3, ebb.am.event.log.enabled is refused (an object cannot be appended to)"},
	{Name: "ebb.history.checkpoint.interval.secs", Type: Int, Default: "60", Bounds: from(1),
		Doc: "how often an AM on YARN writes its history while it runs (besides when it ends), so that `ebb history` shows an AM that died; each write waits out a NameNode that does not answer within dfs.client.retry.policy.spec"},
	{Name: "ebb.lib.uri", Type: String, Default: "",
		Doc: "hdfs:// URL of an ebb binary already installed on the cluster (as tez.lib.uris): `ebb submit` uploads none and the AM and workers run it; or an s3:// (s3a://) URI of one, which `ebb submit` stages once per object to /user/<user>/.ebb/lib/<sha256>/ebb; it must be the client's ebb version (empty = upload the client's binary once to /user/<user>/.ebb/lib/<sha256>/ebb and reuse it)"},

	// Logs: am.log and worker.log in each container's log dir on YARN, under the local root locally.
	// KB, as MapReduce's own yarn.app.mapreduce.am.container.log.limit.kb.
	{Name: "ebb.log.roll.size.kb", Type: Int64, Default: "65536", Bounds: from(1),
		Doc: "the AM's am.log and each worker's worker.log roll when they would grow beyond this (to am.log.0001, .0002, ...); their stderr keeps only warnings and errors"},
	{Name: "ebb.log.roll.count", Type: Int, Default: "4", Bounds: between(1, 10000),
		Doc: "rolled pieces kept beside each log (older ones are deleted): a container's log dir holds at most (count + 1) x ebb.log.roll.size.kb of ebb's own log"},
	{Name: "ebb.log.aggregation.rolled.include.pattern", Type: String, Default: `^(am\.log|worker\.log)\.[0-9]{4,}$`,
		Doc: "with YARN log aggregation on and yarn.nodemanager.log-aggregation.roll-monitoring-interval-seconds set, NodeManagers upload the files of running containers whose names match this Java regex (LogAggregationContext's rolled_logs_include_pattern) and then delete them: it must not match a file still being written (empty = upload only when the application ends)"},

	// Packing and scheduling.
	{Name: "ebb.packing.scheme", Type: Enum, Default: "packed", Enum: []string{"uniform", "packed"},
		Doc: "spread requests over nodes (YARN's own behaviour) or pack them onto few nodes"},
	{Name: "ebb.packing.high.threshold.percent", Type: Int, Default: "60", Bounds: between(0, 100),
		Doc: `node usage above which a node is "high"`},
	{Name: "ebb.packing.min.nodes", Type: Int, Default: "5", Bounds: from(0),
		Doc: "below this many nodes packing is off"},
	{Name: "ebb.packing.locality.delay.ms", Type: Int64, Default: "250", Bounds: millis(0),
		Doc: "how long a request waits for a preferred node before it takes any (delay scheduling); also how long an attempt of a DAG with slow nodes (ebb.speculation.multiplier) waits for room off them before it takes room on one"},
	{Name: "ebb.packing.ask.timeout.ms", Type: Int64, Default: "10000", Bounds: millis(0),
		Doc: "how long a container ask for a named node (packed asks) may go without a worker there; then the node counts as full for as long again (others' containers may have taken the room since the node report) and the worker is asked for elsewhere, or anywhere (0 = asks wait for ever)"},
	{Name: "ebb.scheduler.scheme", Type: Enum, Default: "fifo", Enum: []string{"fifo", "fair", "ras"},
		Doc: "task scheduling across DAGs: fifo (in submission order), fair (the DAG with the fewest running attempts goes next, so a small DAG is not stuck behind a big one), ras (resource-aware, completion-time goals)"},
	{Name: "ebb.scheduler.reserve.percent", Type: Int, Default: "10", Bounds: between(0, 50),
		Doc: "with autoscaling under fifo or fair, the share of a group's worker memory that DAGs already running attempts leave free, so a DAG that arrives starts at once (0 = none)"},
	{Name: "ebb.ras.control.cycle.secs", Type: Int, Default: "30", Bounds: from(1),
		Doc: "the resource-aware scheduler's control cycle"},
	{Name: "ebb.slowstart.completed.producers", Type: Float, Default: "0.05", Bounds: between(0, 1),
		Doc: "fraction of a scatter-gather edge's producer tasks that must have succeeded before its consumers start and fetch the rest as they finish (Hadoop's mapreduce.job.reduce.slowstart.completedmaps); at least one; 1 = after all"},
	{Name: "ebb.slowstart.preemption.percentage", Type: Int, Default: "10", Bounds: between(1, 100),
		Doc: "when a group holds only consumers gathering inputs under slow start, their DAG's producers are queued and fit nowhere, and no worker will come (the group at mr3.container.max.num.workers, or the ResourceManager's headroom below one worker), this share of those consumers, at least one and youngest first, is killed each ebb.slowstart.preemption.interval.ms to make room; they run again once the producers have, and a kill is not a task failure (Tez's tez.am.preemption.percentage)"},
	{Name: "ebb.slowstart.preemption.interval.ms", Type: Int64, Default: "3000", Bounds: millis(1),
		Doc: "how long such a slow-start stall lasts before consumers are killed, and the wait between two kills (Tez's tez.am.preemption.heartbeats-between-preemptions: 3 heartbeats of 1 s)"},
	{Name: "ebb.speculation.enabled", Type: Bool, Default: "false",
		Doc: "speculative execution (as mapreduce.map.speculative, tez.am.speculation.enabled): a straggling task gets a backup attempt on another node, the first to finish wins and the other is killed (not a failure); a vertex's speculative: in the DAG spec overrides this"},
	{Name: "ebb.speculation.cap.percent", Type: Int, Default: "10", Bounds: between(1, 100),
		Doc: "at most the larger of ebb.speculation.min.allowed.tasks and this share of a vertex's tasks (at least one) run a backup attempt at once (LATE's SpeculativeCap)"},
	{Name: "ebb.speculation.min.allowed.tasks", Type: Int, Default: "10", Bounds: from(0),
		Doc: "however few tasks a vertex has, this many may run a backup attempt at once (Hadoop's mapreduce.job.speculative.minimum-allowed-tasks and Tez's tez.am.minimum.allowed.speculative.tasks, both 10); 0 = ebb.speculation.cap.percent alone"},
	{Name: "ebb.speculation.min.runtime.ms", Type: Int64, Default: "10000", Bounds: millis(0),
		Doc: "an attempt is a candidate for a backup only after it has run this long (a consumer started under slow start: since its last input came)"},
	{Name: "ebb.speculation.multiplier", Type: Float, Default: "1.5", Bounds: between(1, 1000),
		Doc: "a candidate's estimated run time (run time at its last progress report / its progress) is more than this many times the median of its vertex's, finished attempts' run times included (Spark's spark.speculation.multiplier, 1.5); replaces ebb.speculation.slow.task.percentile, whose 25th percentile fell among the stragglers' own rates once a third of the tasks straggled. A node where such a candidate runs is slow for its DAG: no backup goes there, nor a worker asked for one, and the DAG's new attempts wait up to ebb.packing.locality.delay.ms for room off it"},
	{Name: "ebb.billing.period.secs", Type: Int, Default: "0", Bounds: from(0),
		Doc: "node billing period (0 = per second); with 3600 nodes are emptied near the end of their paid hour, and only when queued and predicted work does not need them"},
	{Name: "ebb.billing.start.offset.secs", Type: Int, Default: "0", Bounds: from(0),
		Doc: "a node's paid periods start this long before the AM first saw one of its workers (e.g. its boot time, when the cloud bills from the request)"},

	// The Kubernetes world (docs/kubernetes.md): MR3's keys where MR3 has one.
	{Name: "mr3.master.mode", Type: Enum, Default: "yarn", Enum: []string{"local", "yarn", "kubernetes"},
		Doc: "where `ebb submit` runs the AM and its workers: yarn (an application on the ResourceManager), kubernetes (an AM pod and worker pods, mr3.k8s.* keys) or local (the embedded local world on this machine, as `ebb local run`); `ebb submit --master` overrides it"},
	{Name: "mr3.k8s.client.config.file", Type: String, Default: "",
		Doc: "the kubeconfig `ebb submit`, `ebb kill` and `ebb logs` reach the API server with; empty = the pod's service account inside a pod, else $KUBECONFIG or ~/.kube/config, as kubectl. Missing everywhere: refused before anything is created"},
	{Name: "mr3.k8s.namespace", Type: String, Default: "default",
		Doc: "the namespace of the AM pod and its worker pods; one that does not exist is refused before anything is created"},
	{Name: "mr3.k8s.pod.master.image", Type: String, Default: "ebb:latest",
		Doc: "the image of the AM pod (the repository's Dockerfile builds one: the ebb binary alone)"},
	{Name: "mr3.k8s.pod.worker.image", Type: String, Default: "ebb:latest",
		Doc: "the image of the worker pods; it must hold the ebb binary at /ebb and the programs the DAGs' commands run"},
	{Name: "mr3.k8s.pod.image.pull.policy", Type: Enum, Default: "IfNotPresent", Enum: []string{"Always", "IfNotPresent", "Never"},
		Doc: "the imagePullPolicy of the AM and worker pods"},
	{Name: "mr3.k8s.pod.master.serviceaccount", Type: String, Default: "",
		Doc: "the service account the AM pod runs as; empty = `ebb submit` creates <application>-am with a Role and ClusterRole granting only what the AM does (docs/kubernetes.md, RBAC); named: it must already have them (the AM checks each at start and refuses with the missing ones)"},
	{Name: "mr3.k8s.pod.worker.serviceaccount", Type: String, Default: "",
		Doc: "the service account of the worker pods (they never call the API server); empty = the namespace's default"},
	{Name: "mr3.k8s.worker.secret", Type: String, Default: "",
		Doc: "the Secret holding the application secret workers authenticate to the AM with (key \"secret\"); empty = `ebb submit` creates <application>-secret"},
	{Name: "mr3.k8s.pod.creation.timeout.ms", Type: Int64, Default: "300000", Bounds: millis(0),
		Doc: "a group whose worker pods the scheduler has not been able to place for this long fails its DAGs, with the scheduler's message (shown meanwhile on the UI's group); 0 = they wait for ever"},
	{Name: "mr3.k8s.pod.worker.emptydirs", Type: String, Default: "/ebb/work",
		Doc: "where each worker pod's emptyDir, holding its outputs, is mounted; one directory (ebb keeps a worker's outputs in one)"},
	{Name: "ebb.k8s.pod.worker.priority.class.name", Type: String, Default: "",
		Doc: "the PriorityClass of the worker pods (a higher-priority pod may preempt them: their attempts re-run without a failure counted); one that does not exist is refused before anything is created; empty = the cluster's default priority"},
	{Name: "ebb.k8s.pod.worker.preemption.policy", Type: Enum, Default: "PreemptLowerPriority", Enum: []string{"PreemptLowerPriority", "Never"},
		Doc: "whether a worker pod the scheduler cannot place may preempt lower-priority pods (the pod's preemptionPolicy)"},
	{Name: "ebb.k8s.am.port", Type: Int, Default: "7000", Bounds: between(1, 65535),
		Doc: "the port of the AM's Service (<application>-am) workers and `ebb dag` reach the AM on; the status UI is on the next one"},

	// The embedded local world.
	{Name: "ebb.local.nodes", Type: Int, Default: "1", Bounds: from(0),
		Doc: "virtual nodes the local cluster starts with"},
	{Name: "ebb.local.node.memory.mb", Type: Int, Default: "4096", Bounds: from(1),
		Doc: "memory of each local virtual node"},
	{Name: "ebb.local.node.vcores", Type: Int, Default: "4", Bounds: from(1),
		Doc: "vcores of each local virtual node"},
	{Name: "ebb.local.node.resources", Type: String, Default: "",
		Doc: "other resource types each local virtual node has, as name=count pairs joined by commas (yarn.io/gpu=1): workers of a group or vertex asking for them go only where enough are free, and a DAG asking more than a node has is refused at submit; empty = none"},
	{Name: "ebb.local.max.nodes", Type: Int, Default: "4", Bounds: from(1),
		Doc: "most virtual nodes the local cluster grows to"},
	{Name: "ebb.local.provision.delay.ms", Type: Int64, Default: "0", Bounds: millis(0),
		Doc: "delay before a new local virtual node is usable"},
	{Name: "ebb.local.node.idle.timeout.ms", Type: Int64, Default: "5000", Bounds: millis(0),
		Doc: "an empty local virtual node is removed after this"},
	{Name: "ebb.local.dir", Type: String, Default: "",
		Doc: "working directory of the local world (empty = a fresh temporary directory)"},

	// conf itself.
	{Name: "ebb.conf.unknown.keys", Type: Enum, Default: "error", Enum: []string{"error", "warn"},
		Doc: "an unknown mr3./ebb. key is an error, or only a warning (for an mr3-site.xml shared with MR3)"},
}

// KnownKeys returns a copy of the key table, in table order.
func KnownKeys() []Key {
	out := make([]Key, len(keys))
	copy(out, keys)
	return out
}

// keyIndex finds a key of the table by name; built once because the table
// never changes after init.
var keyIndex = func() map[string]*Key {
	m := make(map[string]*Key, len(keys))
	for i := range keys {
		m[keys[i].Name] = &keys[i]
	}
	return m
}()

// Lookup returns the table entry for name.
func Lookup(name string) (Key, bool) {
	k, ok := keyIndex[name]
	if !ok {
		return Key{}, false
	}
	return *k, true
}

// checked reports whether conf owns the name space of key: mr3. and ebb.
// keys must be in the table; any other key (yarn., fs., dfs., hadoop.,
// ipc., ...) belongs to Hadoop and is kept as a raw string.
func checked(key string) bool {
	return len(key) >= 4 && (key[:4] == "mr3." || key[:4] == "ebb.")
}
