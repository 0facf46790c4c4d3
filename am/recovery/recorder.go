package recovery

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ebb-am/ebb/recoverylog"
)

// Recorder writes records to a Dir off the caller's goroutine: records
// gather while a write is under way (and for up to Linger), so a burst of
// tasks costs one segment, and Sync waits until given records are durable
// (a DAG is acknowledged to its client only then).
type Recorder struct {
	dir    *Dir
	linger time.Duration
	onErr  func(error)

	mu      sync.Mutex
	all     []byte // every record handed to the Dir so far
	pending []byte
	queued  uint64 // records added
	durable uint64 // records written
	failed  uint64 // the highest record whose write failed
	failGen uint64 // failed writes so far
	lastErr error
	urgent  bool
	closed  bool
	changed chan struct{} // closed and replaced whenever durable or failed moves

	kick chan struct{}
	done chan struct{}
}

// NewRecorder starts a recorder appending to d, whose log so far is all.
// onErr hears of failed writes (they are retried with the next batch).
func NewRecorder(d *Dir, all []byte, linger time.Duration, onErr func(error)) *Recorder {
	r := &Recorder{dir: d, linger: linger, onErr: onErr, all: all,
		changed: make(chan struct{}), kick: make(chan struct{}, 1), done: make(chan struct{})}
	go r.run()
	return r
}

// Add queues records and returns a ticket for Sync.
func (r *Recorder) Add(recs ...recoverylog.Record) (uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Only the first record of a batch wakes the writer: the rest join
	// it during the linger.
	first := len(r.pending) == 0
	for _, rec := range recs {
		b, err := recoverylog.Append(r.pending, rec)
		if err != nil {
			return r.queued, err
		}
		r.pending = b
		r.queued++
	}
	if first {
		r.wake(false)
	}
	return r.queued, nil
}

// wake tells the writer there is work; urgent skips the linger. mu held.
func (r *Recorder) wake(urgent bool) {
	r.urgent = r.urgent || urgent
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// Sync waits until every record up to ticket is durable, or a write of
// them fails after the call began.
func (r *Recorder) Sync(ctx context.Context, ticket uint64) error {
	r.mu.Lock()
	r.wake(true)
	startGen := r.failGen
	r.mu.Unlock()
	for {
		r.mu.Lock()
		durable, failed, gen, err, ch := r.durable, r.failed, r.failGen, r.lastErr, r.changed
		r.mu.Unlock()
		if durable >= ticket {
			return nil
		}
		if gen > startGen && failed >= ticket {
			return fmt.Errorf("recovery log: %w", err)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Close writes what is pending and stops the writer.
func (r *Recorder) Close() error {
	r.mu.Lock()
	r.closed = true
	r.wake(true)
	r.mu.Unlock()
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.durable < r.queued {
		return fmt.Errorf("recovery log: %d records not written: %w", r.queued-r.durable, r.lastErr)
	}
	return nil
}

// Size is the log's length in bytes so far (written and pending).
func (r *Recorder) Size() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.all) + len(r.pending)
}

func (r *Recorder) run() {
	defer close(r.done)
	retries := 0
	for {
		r.mu.Lock()
		idle := len(r.pending) == 0
		closed, urgent := r.closed, r.urgent
		r.mu.Unlock()
		if idle && closed {
			return
		}
		if idle {
			<-r.kick
			continue
		}
		if !urgent && !closed {
			select {
			case <-time.After(r.linger):
			case <-r.kick:
			}
		}
		if !r.writeBatch() {
			retries++
			if closed && retries >= 3 {
				return
			}
			time.Sleep(min(time.Duration(retries)*200*time.Millisecond, 2*time.Second))
			continue
		}
		retries = 0
	}
}

// writeBatch writes what is pending as one segment; false when it failed
// (the records stay pending for the next try).
func (r *Recorder) writeBatch() bool {
	r.mu.Lock()
	data, upto := r.pending, r.queued
	r.pending, r.urgent = nil, false
	all := append(r.all[:len(r.all):len(r.all)], data...)
	r.mu.Unlock()
	all, err := r.dir.Append(data, all)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.pending = append(data, r.pending...)
		r.failed, r.lastErr = upto, err
		r.failGen++
		if r.onErr != nil {
			r.onErr(err)
		}
	} else {
		r.all = all
		r.durable = upto
	}
	close(r.changed)
	r.changed = make(chan struct{})
	return err == nil
}
