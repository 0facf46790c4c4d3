package yarn

import (
	"context"
	"testing"
)

// At unregister the RM is given the final tracking URL (the AM's own
// page closes with it), and the AM's page when none is set.
func TestFinishGivesTheFinalTrackingURL(t *testing.T) {
	h := newHarness(t)
	if err := h.w.Finish(context.Background(), Succeeded, "done"); err != nil || h.rm.finalURL != "http://amhost:4001/" {
		t.Errorf("without a final URL: %v, %q", err, h.rm.finalURL)
	}
	h = newHarness(t)
	h.w.o.FinalTrackingURL = "http://rm:8088/cluster/app/application_1_0001"
	if err := h.w.Finish(context.Background(), Succeeded, "done"); err != nil || h.rm.finalURL != h.w.o.FinalTrackingURL {
		t.Errorf("with a final URL: %v, %q", err, h.rm.finalURL)
	}
}
