// Package dag owns the DAG specification a client submits: its types, the
// YAML/JSON reader that remembers where every field came from, and the
// validation that turns a bad spec into one clear error naming the file,
// line and field. It knows nothing of workers, YARN or time: the AM expands
// a validated Spec into tasks and attempts.
//
// It imports no other ebb package.
package dag
