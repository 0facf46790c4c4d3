// Command ebb is the one binary: submit, am, worker, local, dag, sim, task,
// autoscale and version. It owns flags, output and exit codes only; the work
// is in the packages it calls (yarnclient, am, am/local, am/yarn, sim, ...).
// The command tree is built explicitly in main.go.
package main
