// Package streaming translates a Hadoop Streaming command line — the
// arguments that follow `hadoop jar hadoop-streaming.jar` — into an ebb DAG
// of stream vertices joined by a keyed shuffle (dag.StreamSpec,
// dag.ShuffleSpec), the way Hadoop Streaming 3.4 would run the job:
// generic options first (-D, -files, -conf, ...), then streaming options;
// the -D keys users set, each read by code that does what Hadoop does with
// it or refused by name; Hadoop's input listing and FileInputFormat splits;
// and Streaming's messages and exit codes for what it refuses.
//
// Parse reads the arguments into a Job, Resolve its -D keys into Settings;
// MakePlan lists the inputs and checks the output as Hadoop's job
// submission does; Build makes the DAG. The command `ebb streaming`
// (cmd/ebb) runs it locally or on YARN.
//
// It imports dag, fsys and shuffle only; it neither runs nor submits
// anything.
package streaming
