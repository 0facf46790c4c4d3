// Package packing owns the allocators that decide where a request goes: the
// node (or the worker group on a node) that receives a TaskAttempt, and the
// nodes ebb should name when it asks YARN for new workers.
//
// An Allocator sees a snapshot of nodes and one request and returns an
// index into that snapshot, or ok=false when nothing fits now; it never
// keeps state between calls, reads a clock or does IO. The caller updates
// the nodes' usage between calls, so the AM core can call Choose once per
// request, in order, on a slice it maintains incrementally.
//
// Two schemes are registered by name (ebb.packing.scheme):
//
//   - uniform spreads work the way YARN's own placement does: the node
//     with the lowest usage that fits.
//   - packed concentrates work so that whole nodes drain and the
//     autoscaler can give them back: medium-usage nodes first (fullest
//     first, as long as they stay at or below the high threshold), then
//     empty nodes (one at random, seeded from the request so runs
//     replay), then any other node that fits (high-usage nodes, and
//     medium ones the request would push over the threshold), emptiest
//     first.
//
// Both honour locality the same way: while a request with preferences has
// waited less than the locality delay, only its preferred nodes are
// eligible; after that any node is, with preferred nodes still ranked first
// within each step.
//
// It imports no other ebb package: allocators are pure functions of a snapshot.
package packing
