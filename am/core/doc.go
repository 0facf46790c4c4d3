// Package core owns the AM's state machine: the live state of DAGs, tasks,
// attempts, ContainerGroups and kinds, workers and nodes, and the decisions
// taken on it (which attempt runs where, how many workers a group wants,
// which nodes drain, which workers are recycled, which stragglers get a
// backup attempt and which of two racing attempts wins).
//
// The Core is deterministic: its methods are the events (a DAG submitted, a
// worker registered or lost, an attempt finished, a tick at time now) and it
// answers with Actions (group G wants N workers, run attempt A on worker W,
// stop worker W, move W to group H, DAG D ended). Drain hands the actions to
// an Executor, the one interface every world implements (the AM's Loop for
// the local and yarn worlds, the simulator's engine, the tests' fake).
//
// Its options are validated, never filled in (options.go): the defaults are
// the key table's, mapped by am/amconf. Task and DAG states change only
// through the becomeX functions of transitions.go. The journal the status
// UI reads (journal.go) observes the Core's edges and takes no part in its
// decisions.
//
// It may import only dag, scheduler, packing and pure standard packages: it
// never reads a clock, sleeps or does IO. imports_test.go holds that.
package core
