package main

import (
	"testing"

	"github.com/ebb-am/ebb/amclient"
)

// `ebb dag status` names a group's preemption counters once there are any,
// and the consumers the AM killed to break a slow-start stall.
func TestPreemptLine(t *testing.T) {
	if got := preemptLine(amclient.Group{Name: "g"}); got != "" {
		t.Errorf("no preemption: %q, want nothing", got)
	}
	got := preemptLine(amclient.Group{Name: "g", PreemptWarned: 5, PreemptGivenBack: 4, PreemptLost: 1})
	if want := "; preemption: 5 containers warned, 4 given back, 1 lost"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	got = preemptLine(amclient.Group{Name: "g", SlowStartKilled: 2})
	if want := "; slow-start stall: 2 gathering consumers killed"; got != want {
		t.Errorf("slow-start kills only: got %q, want %q", got, want)
	}
}
