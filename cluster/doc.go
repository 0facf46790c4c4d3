// Package cluster owns one model of a cluster that ebb rents nodes from:
// which nodes exist (capacity, when they are ready, whether they drain),
// which workers are placed on them, how many workers each group wants,
// and when an empty node is given back. The local world (real worker
// processes on virtual nodes) and the sim's virtual cloud are both this
// model; the sim adds its virtual clock and billing on top.
//
// The model has no clock and does no IO. Every call takes the caller's
// `now`, and returns Events that say what the caller must do: start a
// worker on a node, a node was requested and is ready at a time, a node is
// empty and may be reclaimed at a time, a node was removed. Nodes come
// from a Provider (the local world names them, the sim's cloud bills
// them). Wake says when the model next has something to do, for callers
// that poll on a tick.
//
// A worker's life:
//
//	Want ──► waiting (queued: no node yet) ──► waiting on a provisioning node
//	            │                                   │ NodeReady
//	            └──► placed on a ready node ─────────┴──► started ──Stop──► stopped ──Gone──► (freed)
//
// Waiting workers beyond a group's wanted total are cancelled newest first;
// started workers are never stopped by the model (the AM does that).
//
// Placement: the allocator chooses among ready nodes with room first, then
// among nodes being provisioned with room (a worker should not wait for a
// new node when one is coming), and only then is a new node requested, up
// to the cap. Draining and avoided nodes get no new worker. A node empty
// for ReclaimDelay is removed unless KeepNodes.
//
// It may import only packing and the standard library: no clock, no IO.
package cluster
