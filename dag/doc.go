// Package dag owns the DAG specification a client submits: its types, the
// YAML/JSON reader that remembers where every field came from, and the
// validation that turns a bad spec into one clear error naming the file,
// line and field. It knows nothing of workers, YARN or time: the AM expands
// a validated Spec into tasks and attempts.
//
// A spec may leave containerGroup.workerMemoryMB out (or 0): the AM then
// sizes the group's workers from the tasks' memory, the DAG's widest
// vertex and the cluster's container sizes (GroupSpec.AutoSized), and a
// vertex's memoryMB is checked against the cluster's largest container
// instead of the group's worker size.
//
// It imports no other ebb package.
package dag
