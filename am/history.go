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
func (a *AM) writeHistory(c *core.Core, now time.Time) {
	app := a.uiOpts.App
	app.Finished = now
	a.saveHistory(ui.Capture(app, c), true)
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
		if err := a.loop.Do(ctx, func(c *core.Core, now time.Time) { s = ui.Capture(a.uiOpts.App, c) }); err != nil {
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
