package am

import (
	"context"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/internal/lockorder"
)

// historyWriter serialises writes of the history: a checkpoint may still
// be writing when the final snapshot comes, and once the final one is
// written no older checkpoint may replace it.
type historyWriter struct {
	// mu is held while the history is written (serialising writes); the
	// writer takes no other lock of the AM.
	mu    lockorder.Mutex
	final bool
}

// writeHistory hands the final snapshot to Options.History, on the loop
// goroutine as it stops. A history that cannot be written costs the
// operator the pages, not the application.
func (a *AM) writeHistory(now time.Time, v ui.View) {
	app := a.uiOpts.App
	app.Finished = now
	a.saveHistory(ui.Capture(app, v), true)
}

// checkpointHistory writes the history every interval until ctx ends:
// the snapshot is taken on the loop, encoded and written off it.
func (a *AM) checkpointHistory(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var s ui.Snapshot
		if err := a.loop.View(ctx, func(v ui.View) { s = ui.Capture(a.uiOpts.App, v) }); err != nil {
			return
		}
		a.saveHistory(s, false)
	}
}

func (a *AM) saveHistory(s ui.Snapshot, final bool) {
	b, err := s.Encode()
	a.hist.mu.Lock()
	defer a.hist.mu.Unlock()
	if a.hist.final {
		return
	}
	a.hist.final = final
	if err == nil {
		err = a.opts.History(b)
	}
	if err != nil {
		a.log.Warnf("writing the application's history: %v", err)
	}
}

// DAGHistory keeps each finished DAG's detail (an encoded ui.DAGRecord)
// in the application's history: one file per DAG, written once when the
// DAG's output has settled, beside the snapshot (Options.History), on
// HDFS for the yarn world and the local file system for the local one.
// The UI reads a DAG back from it once the core has compacted the DAG.
type DAGHistory interface {
	WriteDAG(id string, record []byte) error
	ReadDAG(id string) ([]byte, error)
}

// dagRecords writes finished DAGs' records off the loop, in the order they
// settled: a slow file system delays the records, never the loop.
type dagRecords struct {
	mu    lockorder.Mutex // taken alone
	queue []core.DAGView
	kick  chan struct{}
}

func newDAGRecords() *dagRecords {
	q := &dagRecords{kick: make(chan struct{}, 1)}
	q.mu.SetClass("am.dagRecords")
	return q
}

func (q *dagRecords) add(v core.DAGView) {
	q.mu.Lock()
	q.queue = append(q.queue, v)
	q.mu.Unlock()
	select {
	case q.kick <- struct{}{}:
	default:
	}
}

func (q *dagRecords) take() []core.DAGView {
	q.mu.Lock()
	defer q.mu.Unlock()
	vs := q.queue
	q.queue = nil
	return vs
}

// writeDAGRecords writes records as they come until ctx ends, then what
// is left (Run calls it once more after the last DAG settled).
func (a *AM) writeDAGRecords(ctx context.Context) {
	for {
		a.flushDAGRecords()
		select {
		case <-ctx.Done():
			return
		case <-a.records.kick:
		}
	}
}

func (a *AM) flushDAGRecords() {
	for _, v := range a.records.take() {
		b, err := ui.EncodeDAG(v)
		if err == nil {
			err = a.opts.DAGHistory.WriteDAG(v.ID, b)
		}
		if err != nil {
			a.log.Warnf("writing DAG %s's history: %v", v.ID, err)
		}
	}
}

// readDAGRecord is the UI's way to a compacted DAG (ui.Options.DAGHistory).
func (a *AM) readDAGRecord(id string) (core.DAGView, bool) {
	b, err := a.opts.DAGHistory.ReadDAG(id)
	if err != nil {
		return core.DAGView{}, false
	}
	v, err := ui.DecodeDAG(b)
	if err != nil {
		a.log.Warnf("DAG %s's history: %v", id, err)
		return core.DAGView{}, false
	}
	return v, true
}
