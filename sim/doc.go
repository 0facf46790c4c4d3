// Package sim runs ebb's real AM core, scheduler, autoscaler and packing
// code against a virtual cloud in virtual time. A policy is a
// configuration of that same core (scaling mode, allocator, timeouts) plus
// how the cloud treats nodes; nothing here re-implements scheduling. The
// engine is a discrete-event loop: job arrivals from a trace, workers that
// come up after a node's provisioning delay, attempts that end after their
// traced duration (slowed by contention when a node's CPU or I/O is
// oversubscribed), and samples of nodes in use and memory utilisation.
// Placement, provisioning and reclaim are package cluster's model, the same
// one the local world uses; this package schedules its events on the
// virtual clock. Sub-packages read traces (trace), rent and bill the
// cloud's nodes (cloud) and summarise runs (report).
//
// It may import am/core, cluster, dag, packing, scheduler and its own subpackages; never the AM's gRPC side, yarnrpc or proto.
package sim
