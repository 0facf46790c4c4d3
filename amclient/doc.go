// Package amclient is the one typed client of a running AM's client API
// (`ebb dag`, `ebb autoscale`, `ebb submit`'s follower, the load tests): it
// dials an AM with the application's secret, submits, reads, lists (a page
// at a time), kills and retunes the autoscaler, and follows the
// application to the next AM attempt when the one it talks to goes away.
//
// Its API speaks ebb's own types (DAG, Page, Cluster, ...): the protobuf
// messages of proto/ebbpb stay inside this package, at the edge, as they
// stay inside package am on the server side. It imports no part of the AM
// (the client half of the bearer-token check is here; the server half is
// am's), so gateway packages such as yarnclient depend on it alone.
package amclient
