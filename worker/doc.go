// Package worker owns the ContainerWorker runtime: the long-lived process
// that registers with the AM over the authenticated Worker.Connect stream,
// heartbeats, runs TaskAttempts as child processes under the task contract
// (package task documents it), streams their input splits into named pipes
// while they run (or copies them first, for inputMode: file), enforces each attempt's memory, commits sink
// outputs, runs the keyed shuffle of stream vertices (streamio.go, package
// shuffle), serves finished outputs to other workers over authenticated HTTP,
// and stops gracefully when the AM tells it to.
//
// The worker is deliberately passive: it never decides what to run or when
// to leave. The AM decides; the worker carries out and reports. When the
// stream to the AM breaks, the worker kills its attempts and exits with an
// error, so that its container ends and the AM sees the worker as lost.
//
// It may import hdfsfs, task, dag, shuffle and proto/ebbpb; never am (a test
// in fsys holds it).
package worker
