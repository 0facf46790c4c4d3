package recovery

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ebb-am/ebb/recoverylog"
)

func accepted(id string) recoverylog.Record {
	return recoverylog.Record{DAGAccepted: &recoverylog.DAGAccepted{DAG: id, SpecName: "tiny.yaml", Spec: []byte("name: tiny"),
		Conf: map[string]string{"mr3.am.max.app.attempts": "2"}}}
}

func ended(id string) recoverylog.Record {
	return recoverylog.Record{DAGEnded: &recoverylog.DAGEnded{DAG: id, State: "SUCCEEDED"}}
}

func done(id string) recoverylog.Record {
	return recoverylog.Record{TaskSucceeded: &recoverylog.TaskSucceeded{DAG: id, Vertex: "v", Attempt: id + "_v_000000_0"}}
}

func dagIDs(recs []recoverylog.Record) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range recs {
		if id := dagOf(r); !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// Retain keeps every record of the running DAGs and of the last ended ones,
// in order, and nothing of older ended DAGs.
func TestRetainKeepsRunningAndTheLastEnded(t *testing.T) {
	// d1..d4 accepted; d2 running throughout; d1, d3, d4 end in that order,
	// then d1 is settled again (a later attempt) and so ended last.
	recs := []recoverylog.Record{accepted("d1"), accepted("d2"), done("d1"), ended("d1"), accepted("d3"), done("d2"),
		ended("d3"), accepted("d4"), ended("d4"), ended("d1")}
	for _, c := range []struct {
		keep int
		want []recoverylog.Record
	}{
		// Two kept: d1 (last end) and d4; d3 goes.
		{2, []recoverylog.Record{accepted("d1"), accepted("d2"), done("d1"), ended("d1"), done("d2"), accepted("d4"), ended("d4"), ended("d1")}},
		{0, []recoverylog.Record{accepted("d2"), done("d2")}},
		{-1, recs},
	} {
		if got := Retain(recs, c.keep); !reflect.DeepEqual(got, c.want) {
			t.Errorf("keep %d: kept DAGs %v (%d records), want %v (%d records)", c.keep, dagIDs(got), len(got), dagIDs(c.want), len(c.want))
		}
	}
}

// A session that runs DAG after DAG: with KeepEnded the log, and the
// recorder's copy of it in the AM's memory, stops growing once compaction
// starts; the next attempt reads the running DAG and the last ended ones.
func TestLogOfALongSessionStaysBounded(t *testing.T) {
	dir := t.TempDir()
	d, all, _, _, err := Open(LocalFS{}, dir, KeepEnded(5))
	if err != nil {
		t.Fatal(err)
	}
	r := NewRecorder(d, all, time.Millisecond, nil)
	record(t, r, accepted("running"))
	// The recorder's size at each DAG: a base is written every 65 batches,
	// so it saws up and down; its peak over a stretch of 200 DAGs late in
	// the run must be its peak early in the run.
	var early, late int
	for i := 1; i <= 1000; i++ {
		id := fmt.Sprintf("dag_%04d", i)
		record(t, r, accepted(id), done(id), ended(id))
		switch {
		case i <= 200:
			early = max(early, r.Size())
		case i > 800:
			late = max(late, r.Size())
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if late > early {
		t.Fatalf("the recorder peaks at %d bytes over DAGs 801-1000, %d over DAGs 1-200: it grows with the DAGs it ran", late, early)
	}
	_, _, recs, _, err := Open(LocalFS{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	ids := dagIDs(recs)
	if len(ids) == 0 || ids[0] != "running" || len(ids) > 1+5+64 {
		t.Fatalf("the next attempt reads DAGs %v: want the running one and at most the last 69 ended", ids)
	}
	if last := ids[len(ids)-1]; last != "dag_1000" {
		t.Errorf("the newest DAG read back is %s, want dag_1000", last)
	}
}
