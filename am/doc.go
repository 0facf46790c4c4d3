// Package am owns the ApplicationMaster: the live state of DAGs, tasks,
// attempts, ContainerGroups, workers and nodes (the Core), the event loop
// that feeds it and carries out its actions in a world (local, yarn, sim),
// the gRPC services for workers and clients, and the status page.
//
// The Core is deterministic: its methods are the events (a DAG submitted, a
// worker registered or lost, an attempt finished, a tick at time now) and it
// answers with Actions (group G wants N workers, run attempt A on worker W,
// stop worker W, DAG D is done). It never reads a clock, sleeps or does IO,
// so the same Core runs against real processes (local, yarn) and in
// virtual time (sim). Only Loop reads the clock.
package am
