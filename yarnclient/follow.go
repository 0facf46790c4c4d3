package yarnclient

import (
	"context"
	"fmt"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/amclient"
)

// Follow waits for the application's end, telling progress one line at a
// time: its YARN state as it changes, where its AM is, and its DAGs'
// progress read through the AM's client API. Times are since t0 (when
// the user asked). It removes the staging directory at the end and
// returns the final report, with an *AppError unless it succeeded.
func (c *Client) Follow(ctx context.Context, id yarn.AppID, t0 time.Time, progress func(string)) (yarn.AppReport, error) {
	say := func(format string, a ...any) { progress(fmt.Sprintf(format, a...)) }
	since := func() time.Duration { return time.Since(t0).Round(time.Millisecond) }
	var dags *dagWatch
	defer func() {
		if dags != nil {
			// Only status reads went over this connection.
			_ = dags.close()
		}
	}()
	lastState := yarn.AppState(0)
	var rep yarn.AppReport
	var takeover int32 // a new AM attempt to announce once its DAGs are read
	seenRunning := false
	var ending bool // the AM says every DAG is done: it is about to unregister
	endPoll := newEndPace()
	var lastReport time.Time
	readDAGs := func() {
		if l, ok := followDAGs(ctx, dags, &ending, progress, since); takeover != 0 && ok {
			say("%s", amclient.TakeoverLine(takeover, l.DAGs))
			takeover = 0
		}
	}
	for {
		if !lastReport.IsZero() && !reportDue(rep.State, ending, time.Since(lastReport)) {
			// Between two reports: only the AM's DAGs are read.
			readDAGs()
			if err := sleepCtx(ctx, followWait(rep.State, ending, dags != nil, endPoll)); err != nil {
				return rep, err
			}
			continue
		}
		var err error
		if rep, err = c.Report(ctx, id); err != nil {
			return rep, err
		}
		lastReport = time.Now()
		if rep.State != lastState {
			say("%s %s after %s (tracking URL %s)", id, rep.State, since(), rep.TrackingURL)
			if rep.State == yarn.StateRunning && rep.AMURL != "" && rep.AMURL != rep.TrackingURL {
				say("AM at %s, status page %s", AMAddress(rep), rep.AMURL)
			}
			lastState = rep.State
		}
		if rep.State.Done() {
			if dags != nil {
				// The AM may still answer: its DAGs' last lines, once.
				dags.poll(ctx, progress, func() {})
			}
			break
		}
		if dags != nil && rep.Attempt != dags.amAttempt {
			// The AM died and YARN started another attempt: follow it.
			_ = dags.close() // status reads only, to an AM that is gone
			seenRunning = seenRunning || dags.firstRunning
			dags, takeover = nil, rep.Attempt
		}
		if rep.State == yarn.StateRunning && dags == nil && rep.RPCPort > 0 {
			if secret, err := c.ReadSecret(ctx, rep, 0); err == nil {
				if dags, _ = dialDAGs(AMAddress(rep), secret); dags != nil { // else tried again at the next poll
					dags.amAttempt, dags.firstRunning = rep.Attempt, seenRunning
				}
			}
		}
		readDAGs()
		if err := sleepCtx(ctx, followWait(rep.State, ending, dags != nil, endPoll)); err != nil {
			return rep, err
		}
	}
	// The AM removes its staging directory when it unregisters; an AM
	// that died or was killed cannot, so the client cleans up too.
	if err := c.RemoveStaging(rep); err != nil {
		say("removing the staging directory: %v", err)
	}
	say("application %s %s, final status %s after %s: %s", id, rep.State, rep.Final, since(), rep.Diagnostics)
	if rep.Final != yarn.Succeeded {
		return rep, appError(rep)
	}
	return rep, nil
}

// followDAGs reads the AM's DAGs once (when Follow is connected to the
// AM), telling their changes, and notes whether the end is near: every
// DAG has ended, or the AM no longer answers (it closes its client API
// as it unregisters, often before a round saw its DAGs done; or it died,
// and the report tells of the next attempt as soon).
func followDAGs(ctx context.Context, dags *dagWatch, ending *bool, progress func(string), since func() time.Duration) (amclient.List, bool) {
	if dags == nil {
		return amclient.List{}, false
	}
	l, ok := dags.poll(ctx, progress, func() { progress(fmt.Sprintf("first attempt running after %s", since())) })
	*ending = !ok || l.AllDone()
	return l, ok
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// How Follow paces itself. Before the AM runs it reads the application
// report every startingPoll, to see the AM register promptly. While the AM
// runs it reads the AM's DAGs every dagPoll (the AM serves only its own
// application's clients) and the RM's report every reportPoll. Once the
// AM says every DAG is done, the AM is about to unregister: the report
// comes every endFirstPoll for endFlatPolls rounds, then doubling back to
// reportPoll, so the user sees FINISHED a few tens of milliseconds after
// the AM unregisters rather than up to a whole report interval later.
const (
	startingPoll = 100 * time.Millisecond
	dagPoll      = 100 * time.Millisecond
	reportPoll   = 300 * time.Millisecond
	endFirstPoll = 25 * time.Millisecond
	// endFlatPolls: 200 ms at endFirstPoll. The AM's own end (commit,
	// stop the workers, release, unregister) takes 60 to 130 ms on the
	// test cluster after its last DAG is done; a doubling from the first
	// poll (25, 50, 100 ms) showed FINISHED up to 75 ms after it.
	endFlatPolls = 8
)

// endPace is the report's pace once every DAG is done: flat, then
// doubling (so that a session AM whose DAGs are done, which stays up, is
// not asked fast for long).
type endPace struct {
	flat int
	poll yarn.Poll
}

func newEndPace() *endPace {
	return &endPace{poll: yarn.Poll{Initial: 2 * endFirstPoll, Interval: reportPoll}}
}

// next is the wait before the next report while every DAG is done.
func (e *endPace) next() time.Duration {
	if e.flat < endFlatPolls {
		e.flat++
		return endFirstPoll
	}
	return e.poll.Next(true)
}

// reset: a DAG runs again.
func (e *endPace) reset() {
	e.flat = 0
	e.poll.Next(false)
}

// followWait is the wait before Follow's next round; ending: the AM says
// every DAG is done; watching: Follow reads the AM's DAGs. A session AM
// whose DAGs are done stays up: the doubling brings its rounds back to
// reportPoll within a few.
func followWait(state yarn.AppState, ending, watching bool, end *endPace) time.Duration {
	switch {
	case state != yarn.StateRunning:
		return startingPoll
	case ending:
		return end.next()
	}
	end.reset()
	if watching {
		return dagPoll
	}
	return reportPoll
}

// reportDue says whether this round reads the RM's report, sinceReport
// after the last one: every round before the AM runs and once every DAG
// is done, else every reportPoll.
func reportDue(state yarn.AppState, ending bool, sinceReport time.Duration) bool {
	return state != yarn.StateRunning || ending || sinceReport >= reportPoll
}

// dagWatch reads a running AM's DAGs and tells each change once: one line
// per change of a DAG's state or progress, never a repeat, however many
// DAGs a session runs. It does not follow the application to another
// attempt itself: Follow reads the RM's report anyway (for the end), sees
// the new attempt there, and starts a new watch.
type dagWatch struct {
	client       lister
	close        func() error
	amAttempt    int32
	firstRunning bool
	lastLine     map[string]string // by DAG id
}

// lister is what dagWatch needs of an amclient.Client.
type lister interface {
	List(ctx context.Context, p amclient.Page) (amclient.List, error)
}

func dialDAGs(addr, secret string) (*dagWatch, error) {
	c, err := amclient.Dial(amclient.Target{Addr: addr, Secret: secret}, amclient.Options{})
	if err != nil {
		return nil, err
	}
	return &dagWatch{client: c, close: c.Close, lastLine: map[string]string{}}, nil
}

// poll reads the DAGs once and returns them; a failed read (false) waits
// for the next poll.
func (w *dagWatch) poll(ctx context.Context, line func(string), firstRunning func()) (amclient.List, bool) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	l, err := w.client.List(cctx, amclient.Page{})
	cancel()
	if err != nil {
		return amclient.List{}, false
	}
	for _, d := range l.DAGs {
		if d.RunningAttempts > 0 && !w.firstRunning {
			w.firstRunning = true
			firstRunning()
		}
		s := fmt.Sprintf("%s %s %s: %d/%d tasks, %d running", d.ID, d.Name, d.State, d.SucceededTasks, d.TotalTasks, d.RunningAttempts)
		if d.Diagnostics != "" {
			s += ": " + d.Diagnostics
		}
		if s != w.lastLine[d.ID] {
			line(s)
			w.lastLine[d.ID] = s
		}
	}
	return l, true
}
