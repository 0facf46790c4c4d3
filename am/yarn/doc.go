// Package yarn is the AM's YARN world: the ResourceManager client layer
// (register, the allocate heartbeat, asks kept as absolute totals, matching
// allocated containers to asks, NMTokens, AMRMToken rotation, resync and
// shutdown commands, unregister) and the am.World that turns the Core's
// "group G wants N workers" into containers running `ebb worker`, launched
// through the NodeManagers.
//
// Protobuf types stay in the adapters (rmport.go, nmport.go, client.go,
// proto.go): the bookkeeping (book.go) and the world speak this package's
// own types, so they are tested against a recording fake of the RM port
// without a cluster, and against the real RM in rm_integration_test.go.
//
// Decisions where YARN leaves a choice (as Hadoop's AMRMClient would):
//   - One priority per ContainerGroup, so a priority stands for one
//     container size and an allocated container's priority names its group.
//   - The ask table is recomputed from scratch every heartbeat (pending =
//     wanted - held) and only rows that differ from the RM's are sent. When
//     a container arrives the RM lowers its own rows (ANY, rack, node); the
//     book mirrors that, so a container lost between two heartbeats is
//     asked for again.
//   - With preferred nodes (packing) a group's pending containers are dealt
//     round-robin over them as strict requests: node (relax), rack and ANY
//     (no relax). Draining nodes go on the blacklist.
//   - A worker gets the application secret in its container's token file
//     (secret key SecretAlias, beside the delegation tokens), so its
//     only localized resource is the PUBLIC, cached binary and the
//     NodeManager starts it without a localizer run.
//   - A worker's id is its container id; its node id is the NodeId
//     host:port (the RM's resource name with
//     yarn.scheduler.include-port-in-node-name, else the host).
//   - A stopped worker's container is given back when the worker exits
//     (the container completes); Close stops every container through its
//     NM and releases them all before the AM unregisters.
//   - A group whose workers are larger than the RM's maximum capability is
//     never asked for: its DAGs end at once with a diagnostic naming
//     yarn.scheduler.maximum-allocation-mb.
//   - allocate reports the progress of the running DAGs (1 when idle).
//   - allocate runs every mr3.am.rm.heartbeat.interval.ms, but while
//     containers are outstanding it comes sooner, Spark's way (Poll):
//     ebb.am.rm.heartbeat.initial.interval.ms after the last, doubling up
//     to the interval. A new want wakes it at once.
//
// It may import am, am/core, yarnrpc and proto/hadooppb; policy stays in am/core.
package yarn
