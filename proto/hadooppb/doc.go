// Package hadooppb holds the Go code generated from proto/hadoop: ebb's own
// proto2 copies of the Hadoop IPC headers, SASL, token and YARN messages
// (Hadoop's field numbers and types, ebb's package names). Do not edit the
// .pb.go files; change proto/hadoop/*.proto and run scripts/genproto.sh.
//
// Generated code; it imports only the protobuf runtime.
package hadooppb
