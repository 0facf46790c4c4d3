// Package task owns the task contract between a worker and the programs it
// runs, and the built-in task programs that `ebb task NAME [flags]` runs
// (Main, Names). Any program that follows the contract can be a vertex's
// command; the built-ins follow it through FromEnv and Writers.
//
// # Running
//
// A vertex's command is an argv; an argv[0] of "ebb" means the worker's
// own executable, so "ebb task wc-map" runs a built-in. The worker runs each
// TaskAttempt as a child process in its own process group, in a fresh
// working directory, with the worker's environment, then the
// ContainerGroup's env, then the vertex's env, then these variables:
//
//	EBB_DAG_ID         the DAG's id
//	EBB_DAG_NAME       the DAG's name from its spec
//	EBB_VERTEX         this vertex's name
//	EBB_TASK_INDEX     this task's index, 0..EBB_PARALLELISM-1
//	EBB_ATTEMPT        the attempt number, 0 for the first try
//	EBB_ATTEMPT_ID     the attempt's unique id
//	EBB_PARALLELISM    the number of tasks of this vertex
//	EBB_MEMORY_MB      the memory the attempt asked for; using more than
//	                   10% above it gets the attempt killed
//	EBB_WORK_DIR       the working directory (also the process's cwd)
//	EBB_INPUT_DIR      EBB_WORK_DIR/input
//	EBB_OUTPUT_DIR     EBB_WORK_DIR/output
//	EBB_OUTPUTS        the outgoing edges as "consumer:partitions" joined by
//	                   commas, e.g. "reduce:4,stats:1"; empty for a sink
//	EBB_PROGRESS_FILE  a file where the task may write its progress, a
//	                   number from 0 to 1; the worker reports it to the AM
//	                   at every heartbeat (write a temporary file and rename
//	                   it over this one); a task that writes none while it
//	                   reads streamed splits is reported at the share of
//	                   the splits' bytes the worker has handed it
//
// The worker never sets EBB_TASK_SPILL_BYTES; a vertex's env may, to bound
// the bytes of records the sorting built-ins buffer before they spill (see
// Memory below).
//
// # Directory layout
//
//	EBB_WORK_DIR/
//	  input/<producer vertex>/<producer task>   one file per upstream task,
//	                                            the partition meant for this
//	                                            task, fetched before start
//	  input/_splits/<i>                         the i-th split of the vertex's
//	                                            input files, cut to whole lines:
//	                                            a named pipe, or a regular file
//	                                            with inputMode: file (below)
//	  output/<consumer>/<partition>             what this task writes for each
//	                                            outgoing edge, partitions
//	                                            0..n-1 (write every one, even
//	                                            empty: consumers fetch them all;
//	                                            an attempt that exits 0 with one
//	                                            missing fails, naming it)
//	  output/<any file>                         a sink vertex's results
//	  progress                                  EBB_PROGRESS_FILE
//
// A vertex with recordLength: N in its spec gets splits cut on N-byte
// record boundaries and copied exactly (records may hold newline bytes);
// the tera-* built-ins need that. Otherwise input splits follow Hadoop's
// line reader: a split that does not start at
// offset 0 skips its first partial line, and every split reads past its end
// to finish its last line, so each line of a file is in exactly one task.
//
// # Input splits are streamed
//
// By default input/_splits/<i> is a named pipe (FIFO), and the command
// starts before any of its split has been read: once the task opens the
// pipe, the worker reads the split (from the local disk or from HDFS, with
// its own client and credentials, so the task needs neither) and writes its
// lines into the pipe as the task reads them. A task opens it like a file,
// reads it once from start to end, in any order among the splits, and sees
// end of file after the split's last line. What a pipe cannot do:
//
//   - seek, or tell its size (stat says 0);
//   - be read a second time: a second open waits for a writer that never
//     comes, until the attempt is killed;
//   - be read by a program that skips anything that is not a regular file.
//
// A task may stop reading early (head does) and exit 0: that is its
// success. If reading the split fails midway (a datanode lost), the task
// sees a truncated input it cannot tell from the real end, so the worker
// kills it and fails the attempt with the read error, whatever its exit
// code. A task that never opens its pipe ends normally.
//
// A vertex whose program needs regular files sets inputMode: file in the
// DAG spec: the worker then copies each split to input/_splits/<i> before
// the command starts, as a regular file (the time to copy is spent before
// the task runs, and the bytes go through the local disk).
//
// When the vertex is a sink with an output directory, the worker commits
// every file F of output/ as <commit dir>/F-<task index as %05d> (through
// <commit dir>/_temporary/<attempt id>/ and a rename) before it reports
// success; the built-ins write output/part, so a sink yields part-00000,
// part-00001, .... The commit dir is the DAG's staging directory,
// <output dir>/_temporary/<staging id>/ (a subdirectory per sink when there
// are several): the AM renames the staged files into the output dir and
// writes _SUCCESS only when the whole DAG has succeeded, and removes them
// when it fails or is killed (package commit).
//
// Stdout and stderr go to <worker log dir>/<attempt id>.stdout and .stderr
// (YARN's container log directory), and the tail of stderr is the failure
// diagnostic the AM shows.
//
// # Exit codes
//
// Exit 0 is success: the output directory is kept and served. Any other
// exit is a failure that counts against the task's retries; the AM may run
// another attempt (with EBB_ATTEMPT one higher) on any worker. `ebb task`
// exits 2 for a usage error (unknown task, bad flags; see ErrUsage) and 1
// for any other error. Attempts killed by the AM or for memory end with
// SIGKILL.
//
// # Where outputs are served
//
// A finished attempt's outputs stay on its worker until the DAG ends and
// are served over HTTP to other workers at
//
//	GET http://<worker data address>/v1/outputs/<dag id>/<attempt id>/<consumer>/<partition>
//	Authorization: Bearer <application secret>
//
// Without the right secret the answer is 401; an unknown attempt or
// partition is 404, which makes the consumer attempt report a fetch failure
// naming the producer attempt, so the AM re-runs the producer.
//
// # Built-in tasks
//
//	wc-map     words (maximal runs of Unicode letters or digits, lower-cased)
//	           counted per task; writes "word\tcount" lines sorted by word,
//	           to partition fnv32a(word) % partitions of every edge, or to
//	           output/part
//	wc-reduce  sums "word\tcount" lines; writes them sorted by word,
//	           partitioned like wc-map. Inputs sorted by word (as wc-map
//	           writes them) are merged as they are read; an input out of
//	           order makes it log that and count again with spills
//	sort       sorts all input lines bytewise; for edges, partition =
//	           firstByte * partitions / 256, so partitions in order are
//	           totally ordered
//	cat        copies input lines; partition = fnv32a(line) % partitions
//	tera-sample  [--sample-size N]: reads TeraGen's 100-byte records (10-byte
//	           keys) from its splits and writes the first N/parallelism keys
//	           to every edge, then stops reading (TeraSort samples so)
//	tera-map   range-partitions the 100-byte records of its splits by the
//	           n-1 cut points it takes from every sampled key it receives
//	           (the inputs that are not splits): partition i starts at the
//	           sorted sample's key of rank round(i*keys/n)
//	tera-reduce  sorts the 100-byte records it receives bytewise, with
//	           spills under the budget, into its sink output; sinks in task
//	           order are totally ordered, as Hadoop's TeraValidate checks
//	aggregate  [--combine]: a stream program (docs/streaming.md), Streaming's
//	           -reducer aggregate: reads "Type:id<TAB>value" lines sorted by
//	           key on stdin and writes "id<TAB>report" per key, as Hadoop's
//	           ValueAggregatorReducer (LongValueSum, LongValueMax,
//	           LongValueMin, DoubleValueSum, StringValueMax, StringValueMin,
//	           UniqValueCount); --combine writes "Type:id<TAB>partial" lines
//	           as its combiner does
//	burn       --memory-mb N --seconds S [--fail-first-attempt]: touches N MB,
//	           holds it S seconds, then copies input lines like cat; a sink
//	           also gets the line "burned N MB for S s" first; with
//	           --fail-first-attempt it fails at once when EBB_ATTEMPT is 0
//
// The line built-ins read every regular file and named pipe under EBB_INPUT_DIR
// recursively, once, line by line ("\n" or "\r\n" ends a line); wc-reduce,
// which may read sorted inputs twice, counts with spills at once when an
// input is a pipe.
//
// # Memory
//
// wc-map, wc-reduce, sort and tera-reduce succeed on any input size at any ask of a few
// tens of MB or more: they buffer records up to a budget, 40% of
// EBB_MEMORY_MB (or EBB_TASK_SPILL_BYTES), then write them sorted as a run
// to a spill-* directory in EBB_WORK_DIR, and at the end merge the runs (64
// at a time) into their outputs, summing the counts of equal words. They
// set the Go runtime's memory limit to 70% of the ask (unless GOMEMLIMIT is
// set), so garbage does not push the resident set over it. Spilled runs
// take at most about the size of the task's input in its working
// directory, and are removed when it ends. budget.go explains the shares.
//
// It imports no other ebb package: task programs know only the contract.
package task
