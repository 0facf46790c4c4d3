package yarn

import (
	"context"
	"testing"
)

// At unregister the RM is given the final tracking URL, never the AM's own
// page (which closes with it): "" when none is set, so the RM shows its
// own application page.
func TestFinishGivesTheFinalTrackingURL(t *testing.T) {
	h := newHarness(t)
	if err := h.w.Finish(context.Background(), Succeeded, "done"); err != nil || h.rm.finalURLs[len(h.rm.finalURLs)-1] != "" {
		t.Errorf("without a final URL: %v, %q", err, h.rm.finalURLs)
	}
	h = newHarness(t)
	h.w.o.FinalTrackingURL = "http://rm:8088/cluster/app/application_1_0001"
	if err := h.w.Finish(context.Background(), Succeeded, "done"); err != nil || h.rm.finalURLs[len(h.rm.finalURLs)-1] != h.w.o.FinalTrackingURL {
		t.Errorf("with a final URL: %v, %q", err, h.rm.finalURLs)
	}
}
