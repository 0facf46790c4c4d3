package yarn

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// Issue 23, items 6 and 7: the application's priority (field 4) and the
// AM attempt-failure validity interval (field 13, ms) reach the RM in the
// submission context, as it reads them off the wire; unset, neither is
// sent (the queue's default priority; every AM failure counts).
func TestSubmitPriorityAndValidityInterval(t *testing.T) {
	five := int32(5)
	for _, tc := range []struct {
		name       string
		spec       AppSpec
		prio       *int32
		validityMs int64
	}{
		{"set", AppSpec{Priority: &five, AttemptFailuresValidity: 10 * time.Minute}, &five, 600000},
		{"unset", AppSpec{}, nil, -1},
	} {
		rec := &submitRecorder{}
		c := &Client{rms: newFailover([]string{"rm:8032"}, func(string) appClient { return rec })}
		tc.spec.ID = AppID{ClusterTS: 1, ID: 1}
		if err := c.Submit(context.Background(), tc.spec); err != nil {
			t.Fatal(err)
		}
		wire, err := proto.Marshal(rec.sub)
		if err != nil {
			t.Fatal(err)
		}
		var got hadooppb.ApplicationSubmissionContextProto
		if err := proto.Unmarshal(wire, &got); err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.prio == nil && got.Priority != nil:
			t.Errorf("%s: priority %v sent, want none", tc.name, got.GetPriority())
		case tc.prio != nil && got.GetPriority().GetPriority() != *tc.prio:
			t.Errorf("%s: priority %v, want %d", tc.name, got.GetPriority(), *tc.prio)
		}
		if v := got.GetAttemptFailuresValidityInterval(); v != tc.validityMs {
			t.Errorf("%s: attempt_failures_validity_interval %d, want %d", tc.name, v, tc.validityMs)
		}
	}
}
