// Command ebb is the elastic YARN ApplicationMaster in one binary: it
// submits itself to YARN (submit, kill, clean), runs as the AM (am) and as
// a worker (worker), runs DAGs on an embedded local cluster (local), talks
// to a running AM (dag, autoscale), serves finished applications' pages
// (history, ui), runs built-in tasks (task) and replays traces in virtual
// time (sim).
//
// It holds no work: it owns each subcommand's flags, its output and its
// exit code (2 when a DAG or an application did not succeed), and reads
// the process's environment once, at the edge. The work is in the packages
// it calls: amhost assembles and runs the AM (YARN and local), amclient
// talks to a running one, yarnclient is the gateway side on YARN, worker
// the ContainerWorker, sim the simulator. The command tree is built
// explicitly in main.go.
package main
