// Package ebbpb is the Go generated from proto/ebb/ebb.proto: ebb's own
// AM<->worker stream and client<->AM services. Only the am, worker and
// cmd/ebb edges use it; the core speaks its own types.
//
// Generated code; it imports only the protobuf and gRPC runtimes.
package ebbpb
