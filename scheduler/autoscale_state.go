package scheduler

import (
	"fmt"
	"time"
)

// State is where a group's autoscaler stands; the package comment draws
// the transitions.
type State int

const (
	// StateStable: no change in flight; each step checks the thresholds.
	StateStable State = iota
	// StateScaleOut: workers were requested; waiting for them to launch
	// or for the scale-out grace period to end.
	StateScaleOut
	// StateScaleIn: nodes are being emptied; no worker is requested until
	// the group has no worker or the scale-in grace period ends.
	StateScaleIn
)

var stateNames = [...]string{StateStable: "STABLE", StateScaleOut: "SCALE_OUT", StateScaleIn: "SCALE_IN"}

func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// MarshalText lets status pages and JSON show the name.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Transition is one state change, kept for the status page.
type Transition struct {
	At       time.Time
	From, To State
	Reason   string
}

// maxHistory bounds the transitions an autoscaler remembers: enough for an
// operator to read the recent story of a group, never a leak in a session
// that runs for weeks.
const maxHistory = 128
