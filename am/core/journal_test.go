package core

import (
	"fmt"
	"testing"
	"time"
)

// TestJournalRingKeepsTheNewest: the journal's ring keeps what the map
// by id it replaced kept: up to maxAttemptRecords*3/2 records, then the
// newest maxAttemptRecords, oldest first; a report about a record trimmed
// since is dropped, one about a record kept after the ring wrapped lands
// on it, and a lookup by id finds records on both sides of the wrap.
func TestJournalRingKeepsTheNewest(t *testing.T) {
	var j journal
	now := time.Unix(0, 0)
	start := func(k int) int64 {
		return j.attemptStarted(now, &AttemptSpec{ID: fmt.Sprintf("a%d", k)}, "w", "", "")
	}
	const full = maxAttemptRecords + maxAttemptRecords/2
	seqs := map[int]int64{}
	for k := 1; k <= full; k++ {
		seqs[k] = start(k)
	}
	if j.n != full {
		t.Fatalf("%d records kept after %d starts, want all", j.n, full)
	}
	seqs[full+1] = start(full + 1) // past the bound: trimmed to the newest maxAttemptRecords
	if j.n != maxAttemptRecords || j.recs[j.head].ID != fmt.Sprintf("a%d", full+2-maxAttemptRecords) {
		t.Fatalf("after %d starts: %d records kept, oldest %s; want %d, oldest a%d",
			full+1, j.n, j.recs[j.head].ID, maxAttemptRecords, full+2-maxAttemptRecords)
	}
	for k := full + 2; k <= full+maxAttemptRecords/2+5; k++ { // wraps the ring
		seqs[k] = start(k)
	}
	gone, kept, wrapped := 1, full, full+maxAttemptRecords/2+5
	j.attemptReported(now, seqs[gone], AttemptUpdate{Result: AttemptSucceeded})
	j.attemptReported(now, seqs[kept], AttemptUpdate{Result: AttemptFailed, Diagnostics: "kept"})
	j.attemptReported(now, seqs[wrapped], AttemptUpdate{Result: AttemptSucceeded})
	if r := j.record(seqs[gone]); r != nil {
		t.Errorf("record a%d still kept after the trim: %+v", gone, *r)
	}
	if r := j.record(seqs[kept]); r == nil || r.ID != fmt.Sprintf("a%d", kept) || r.State != "FAILED" || r.Diagnostics != "kept" {
		t.Errorf("record a%d after its report: %+v, want FAILED, kept", kept, r)
	}
	if r := j.record(seqs[wrapped]); r == nil || r.ID != fmt.Sprintf("a%d", wrapped) || r.State != "SUCCEEDED" {
		t.Errorf("record a%d (past the wrap) after its report: %+v, want SUCCEEDED", wrapped, r)
	}
	for _, k := range []int{kept, wrapped} {
		if got := j.find(fmt.Sprintf("a%d", k)); got != seqs[k] {
			t.Errorf("find(a%d) = %d, want %d", k, got, seqs[k])
		}
	}
	if got := j.find(fmt.Sprintf("a%d", gone)); got != 0 {
		t.Errorf("find(a%d) = %d after its trim, want 0", gone, got)
	}
	// A report about a trimmed record leaves its entry, as the map did.
	if got := len(j.running["w"]); got != full+maxAttemptRecords/2+5-2 {
		t.Errorf("%d records listed running on w, want every start but the 2 kept and reported", got)
	}
}
