// Package yarnrpc is ebb's client for Hadoop RPC (IPC version 9, protobuf
// engine) and the three YARN protocols an application needs:
// ApplicationClientProtocol (client -> ResourceManager),
// ApplicationMasterProtocol (AM -> ResourceManager) and
// ContainerManagementProtocol (AM -> NodeManager).
//
// It owns the wire: the connection preamble and packet framing (framing.go),
// SIMPLE, SASL TOKEN/DIGEST-MD5 (sasl.go, digest.go) and SASL
// KERBEROS/GSSAPI authentication (sasl_kerberos.go, with package kerberos), a
// connection with many calls in flight matched by call id (conn.go),
// reconnecting with backoff and retrying only where it is safe (client.go),
// Hadoop's Credentials token file (credentials.go) and Java exceptions turned
// into typed Go errors (errors.go). Protobuf types of proto/hadooppb appear in
// the stubs' signatures; callers (package am) translate them into ebb's own
// types, so nothing beyond yarnrpc and am sees them.
//
// It may import proto/hadooppb only.
package yarnrpc
