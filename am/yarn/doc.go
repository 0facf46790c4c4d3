// Package yarn is the AM's YARN world: the ResourceManager client layer
// (register, the allocate heartbeat, asks kept as absolute totals, matching
// allocated containers to asks, NMTokens, AMRMToken rotation, resync and
// shutdown commands, unregister) and the am.World that turns the Core's
// "group G wants N workers" into containers running `ebb worker`, launched
// through the NodeManagers.
//
// Protobuf types stay in the adapters (rmport.go, nmport.go, client.go):
// the bookkeeping (book.go) and the world speak this package's own types,
// so they can be tested against a recording fake of the RM port without a
// cluster.
package yarn
