// Package trace owns turning workload traces into the jobs `ebb sim`
// replays: a submit offset and a validated dag.Spec with SimDurations per
// vertex. Every spec goes through dag.Parse, so a sim job obeys the same
// rules as one a client submits.
//
// What each format gives and what is modelled (every parameter is a field
// of ModelOptions, zero meaning the default shown there):
//
//   - SWIM Facebook 2009 (.tsv: job id, submit s, gap s, map input bytes,
//     shuffle bytes, output bytes). Traced: submit times and bytes.
//     Modelled: a map vertex of ceil(input / 128 MB) tasks (at least one),
//     each lasting 2 s + its input share at 50 MB/s with 1024 MB; when
//     shuffle > 0, a reduce vertex fed by a scatter-gather edge of
//     ceil(shuffle / 1 GB) tasks, each lasting 4 s + its shuffle share at
//     20 MB/s with 2048 MB. A 128 MB map runs ~4.6 s, a 1 GB reduce ~55 s.
//     Output bytes are not modelled.
//   - Alibaba 2017 batch, CloudSimPy's derived file (cloudsimpy*.csv) or
//     the raw batch_task table (batch_task*.csv). Traced: per task its
//     creation time, instances (the vertex's tasks), cores and normalised
//     memory per instance, and (derived file) mean instance duration; the
//     raw table only has creation and end, so an instance is taken to run
//     that whole span, and only Terminated tasks are read. Modelled:
//     memory = fraction x AlibabaNodeMemoryMB (64 GB) rounded up to 128 MB;
//     the trace has no edges, so a job's tasks form a chain in the order
//     the file lists them (each fed by the previous one, scatter-gather).
//     A job arrives when its first task was created, counted from the
//     file's earliest creation time.
//   - Decima TPC-H on Spark (tpch*.json.gz: full DAGs; tpch*.csv: stage
//     summary). Traced (a benchmark, not production): the stage DAG, tasks
//     per stage, measured task times; the full file's tasks draw their
//     times (seeded) from the stage's pooled measurements, the summary's
//     all last the stage mean. Modelled: 2048 MB per task; arrivals from a
//     seeded Poisson process of mean gap 25 s, each DAG once in a seeded
//     order (or DecimaJobs draws with replacement).
//   - ebb's scenario JSON and ebb's CSV (job, submit_secs, vertex, tasks,
//     memory_mb, duration_secs, depends_on), for hand-made workloads:
//     nothing modelled.
//
// Trace jobs (not hand-made ones) are capped at MaxTasksPerJob tasks
// (2000) so one giant job cannot dominate a run: a capped vertex gets
// proportionally fewer, longer tasks, keeping its total task time. Jobs
// run in one ContainerGroup ("sim", 16 GB workers). Options.WindowStart/WindowLength cut a part of the trace in
// its own time and Options.Scale stretches or shrinks the gaps.
//
// A job whose biggest task needs more than WorkerMemoryMB runs in a group
// of its own size, named e.g. "sim-20480mb", because the AM refuses two
// worker sizes under one group name.
//
// It may import dag only.
package trace
