package yarnclient

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/amclient"
)

// listClient answers List with what its list holds.
type listClient struct {
	dags []*amclient.DAG
	err  error
}

func (c *listClient) List(context.Context, amclient.Page) (amclient.List, error) {
	if c.err != nil {
		return amclient.List{}, c.err
	}
	var l amclient.List
	for _, d := range c.dags {
		l.DAGs = append(l.DAGs, *d)
	}
	return l, nil
}

// Following a session with two DAGs prints one line per change of each
// DAG, never a repeat: before, only a repeat of the immediately previous
// line was suppressed, so two DAGs alternated every poll for ever.
func TestFollowPrintsEachDAGChangeOnce(t *testing.T) {
	a := &amclient.DAG{ID: "dag_1", Name: "a", State: "RUNNING", SucceededTasks: 1, TotalTasks: 4}
	b := &amclient.DAG{ID: "dag_2", Name: "b", State: "RUNNING", SucceededTasks: 0, TotalTasks: 2}
	c := &listClient{dags: []*amclient.DAG{a, b}}
	w := &dagWatch{client: c, lastLine: map[string]string{}}
	var lines []string
	say := func(s string) { lines = append(lines, s) }
	for i := 0; i < 5; i++ {
		w.poll(context.Background(), say, func() {})
	}
	if len(lines) != 2 {
		t.Fatalf("5 polls of two unchanged DAGs printed %d lines, want 2: %q", len(lines), lines)
	}
	a.SucceededTasks = 2
	w.poll(context.Background(), say, func() {})
	w.poll(context.Background(), say, func() {})
	if len(lines) != 3 || lines[2] != "dag_1 a RUNNING: 2/4 tasks, 0 running" {
		t.Fatalf("after a's progress: %q, want one more line for a", lines)
	}
}

// Follow's pace: the report every 100 ms while the AM starts; the AM's
// DAGs every 100 ms and the report every 300 ms while it runs; the report
// every 25 ms for 200 ms (then doubling back to 300) once the AM says
// every DAG is done, so FINISHED shows soon after the AM unregisters.
func TestFollowPace(t *testing.T) {
	ms := time.Millisecond
	p := newEndPace()
	run, acc := yarn.StateRunning, yarn.StateAccepted
	steps := []struct {
		state            yarn.AppState
		ending, watching bool
		want             time.Duration
	}{
		{acc, false, false, 100 * ms}, // waiting for the AM to register
		{run, false, false, 300 * ms}, // running, the AM not reached yet: reports only
		{run, false, true, 100 * ms},  // reading the AM's DAGs
		{run, false, true, 100 * ms},
		{run, true, true, 25 * ms}, // all done: FINISHED is near
		{run, true, true, 25 * ms},
		{run, true, true, 25 * ms},
		{run, true, true, 25 * ms},
		{run, true, true, 25 * ms},
		{run, true, true, 25 * ms},
		{run, true, true, 25 * ms},
		{run, true, true, 25 * ms}, // 200 ms: the AM's end is long over
		{run, true, true, 50 * ms},
		{run, true, true, 100 * ms},
		{run, true, true, 200 * ms},
		{run, true, true, 300 * ms},  // a session AM stays up: back to the report's pace
		{run, false, true, 100 * ms}, // a new DAG runs
		{run, true, true, 25 * ms},   // and ends: soon again
	}
	for i, s := range steps {
		if got := followWait(s.state, s.ending, s.watching, p); got != s.want {
			t.Fatalf("step %d (%s, every DAG done %v, watching %v): wait %s, want %s", i, s.state, s.ending, s.watching, got, s.want)
		}
	}
	for _, c := range []struct {
		state  yarn.AppState
		ending bool
		since  time.Duration
		want   bool
	}{
		{acc, false, 100 * ms, true},  // every round before the AM runs
		{run, false, 100 * ms, false}, // a round reading only the DAGs
		{run, false, 200 * ms, false},
		{run, false, 300 * ms, true}, // the third
		{run, true, 25 * ms, true},   // every round once all is done
	} {
		if got := reportDue(c.state, c.ending, c.since); got != c.want {
			t.Errorf("reportDue(%s, every DAG done %v, %s since the last) = %v, want %v", c.state, c.ending, c.since, got, c.want)
		}
	}
}

// The end is near when every DAG has ended, or when the AM stops
// answering (it closes its API as it unregisters).
func TestFollowDAGsSeesTheEndComing(t *testing.T) {
	c := &listClient{dags: []*amclient.DAG{{ID: "dag_1", State: "RUNNING"}}}
	w := &dagWatch{client: c, lastLine: map[string]string{}}
	since := func() time.Duration { return 0 }
	for _, step := range []struct {
		state amclient.State
		err   error
		want  bool
	}{
		{"RUNNING", nil, false},
		{"SUCCEEDED", nil, true},
		{"SUCCEEDED", errors.New("connection refused"), true},
	} {
		c.dags[0].State, c.err = step.state, step.err
		var ending bool
		followDAGs(context.Background(), w, &ending, func(string) {}, since)
		if ending != step.want {
			t.Errorf("DAG %s, ListDAGs error %v: ending %v, want %v", step.state, step.err, ending, step.want)
		}
	}
	var ending bool
	if followDAGs(context.Background(), nil, &ending, func(string) {}, since); ending {
		t.Errorf("not connected to the AM: ending")
	}
}
