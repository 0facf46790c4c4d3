// Package am owns the running ApplicationMaster around the pure core
// (package am/core): the Loop, the only reader of the clock, which feeds the
// Core events one at a time and carries out its actions (executor.go) in a
// World (am/local, am/yarn) and on worker connections; the gRPC services for
// workers and clients; input listing; committing DAG outputs (output.go:
// the refusal at submission, promotion or abort before clients hear that a
// DAG ended); the status page and /metrics.
//
// It may import am/core, commit, dag, fsys and the protobufs of ebb's own protocol
// (plus gRPC and logrus); never conf, yarnrpc or a world. The simulator does
// not use this package: it drives am/core directly.
package am
