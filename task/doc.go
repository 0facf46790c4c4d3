// Package task owns the task contract between a worker and the programs it
// runs (environment variables, directory layout, exit codes) and the
// built-in task programs that `ebb task NAME` runs.
package task
