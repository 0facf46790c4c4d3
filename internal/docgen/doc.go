// Package docgen renders the references under docs/reference/ from the
// code that defines what they describe: the configuration keys from conf's
// table, the CLI from cobra's command tree, /metrics from the UI's metric
// table, and the JSON API from its routes and the fields (and field
// comments) of the structs they answer. A test in cmd/ebb compares the
// checked-in files with what these return, so a key, flag, metric or field
// added without regenerating fails CI.
package docgen

// Header opens every generated file: a reader who edits it by hand learns
// why the edit will not last.
func Header(what, how string) string {
	return "<!-- Generated from " + what + " by " + how + "; do not edit. -->\n\n"
}

// Regenerate is the command that rewrites every generated reference.
const Regenerate = "`go test ./cmd/ebb -run TestGeneratedDocs -update`"
