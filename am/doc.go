// Package am owns the running ApplicationMaster around the pure core
// (package am/core), everything that needs IO or a clock:
//
//   - the Loop (loop.go), the only reader of the clock, which feeds the Core
//     events one at a time, and its executor (executor.go), which carries
//     the Core's actions out in a World (world.go: am/local, am/yarn) and on
//     worker connections;
//   - the gRPC services: workers' streams (workerservice.go, workerconn.go)
//     and clients' submit, status, kill and autoscale (clientservice.go,
//     dagpage.go), authenticated by the application secret (auth.go), and
//     the workers' delegation tokens (credentials.go);
//   - listing a DAG's inputs (splits.go) and committing its outputs
//     (output.go: the refusal at submission, promotion or abort before
//     clients hear that a DAG ended);
//   - the recovery log a new AM attempt resumes from (recovery.go) and the
//     history it leaves for `ebb history` (history.go: when and where it is
//     written; its format is am/ui's);
//   - serving the status UI (statuspage.go: am/ui reads the Core on the
//     loop).
//
// It may import am/core, am/ui, am/recovery, commit, dag, fsys, recoverylog
// and the protobufs of ebb's own protocol (plus gRPC and logrus); never
// conf, yarnrpc or a world: the configuration reaches it as typed options
// (am/amconf). The simulator does not use this package: it drives am/core
// directly.
package am
