// Package eventlog owns the AM's event log: the input events of the core
// with their times, where the loop drained the core, and the actions it
// handed out, one line each, so that `ebb replay` can feed the same events
// through a new core and print the same actions, byte for byte.
//
// The format is text, one record a line:
//
//	H {"version":1,"idPrefix":"...","conf":{...}}   the run's header (the core's configuration)
//	E 2024-05-01T10:00:00.25Z WorkerBeat {"Worker":...}   an event, as the core got it
//	D 2024-05-01T10:00:00.25Z                       the loop drained the core's actions
//	A 2024-05-01T10:00:00.25Z RunAttempt {...}       an action, as the loop got it
//	# capped at 268435456 bytes                     the size cap was reached: nothing follows
//
// Times are RFC 3339 with nanoseconds and their zone offset; payloads are
// encoding/json of the core's own types. The actions' lines are what a
// replay prints, so `grep '^A '` of a live log and a replay's output compare
// with diff.
package eventlog
