// Package docs is ebb's documentation (Markdown, by reader) and the pages
// the binary carries with it: `ebb help dags` prints the DAG format from
// here, so it is the same text a reader finds in the repository.
package docs

import _ "embed"

// DAGs is dags.md: the DAG format and the task contract.
//
//go:embed dags.md
var DAGs string
