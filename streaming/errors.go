package streaming

import "fmt"

// Streaming's exit codes (StreamJob.submitAndMonitorJob and its argument
// checks).
const (
	ExitOK             = 0
	ExitFailed         = 1 // bad arguments, or the job failed
	ExitNotFound       = 2 // FileNotFoundException at submission
	ExitInvalidJobConf = 3
	ExitIOError        = 5 // output exists, input missing, ... ("Error Launching job")
)

// Error is a refusal or failure with the exit code Streaming would give it.
// Its message is one line naming what is wrong.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

func errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// refuse is an option or key ebb streaming does not take: exit 1, naming
// it, its value and what is allowed.
func refuse(name, value, allowed string) *Error {
	return errorf(ExitFailed, "%s %q: %s", name, value, allowed)
}
