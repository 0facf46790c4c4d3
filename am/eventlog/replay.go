package eventlog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// maxLine bounds one line (a DAG's event carries its splits).
const maxLine = 256 << 20

// ErrNoHeader: a log must begin with its header.
var ErrNoHeader = errors.New("eventlog: the log does not begin with a header (H) line")

// Replay feeds the events of a log through a core built by newCore from
// its header, drains it where the live loop did, and writes each action's
// line to out: the live run's action lines, byte for byte, when the core
// is the same. The recorded actions are not read (Recorded prints them).
func Replay(log io.Reader, newCore func(Header) (*core.Core, error), out io.Writer) error {
	var c *core.Core
	p := printer{w: bufio.NewWriter(out)}
	err := scan(log, func(n int, r Record) error {
		switch {
		case r.Tag == 'H':
			if r.Header.Version != Version {
				return fmt.Errorf("eventlog: version %d, this ebb reads version %d", r.Header.Version, Version)
			}
			var err error
			c, err = newCore(r.Header)
			return err
		case c == nil:
			return ErrNoHeader
		case r.Tag == 'E':
			c.Apply(r.At, r.Event)
		case r.Tag == 'D':
			c.Drain(r.At, &p)
		}
		return p.err
	})
	if ferr := p.w.Flush(); err == nil {
		err = ferr
	}
	return err
}

// Recorded copies a log's action lines to out, as recorded by the live
// loop: the other side of a comparison with Replay.
func Recorded(log io.Reader, out io.Writer) error {
	bw := bufio.NewWriter(out)
	sc := bufio.NewScanner(log)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "A ") {
			if _, err := fmt.Fprintln(bw, sc.Text()); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("eventlog: %w", err)
	}
	return bw.Flush()
}

func scan(log io.Reader, f func(n int, r Record) error) error {
	sc := bufio.NewScanner(log)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for n := 1; sc.Scan(); n++ {
		r, err := Parse(n, sc.Text())
		if err != nil {
			return err
		}
		if r.Tag == '#' {
			continue
		}
		if err := f(n, r); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("eventlog: %w", err)
	}
	return nil
}

// printer is the replay's executor: it carries out nothing, and prints
// each action's line.
type printer struct {
	w   *bufio.Writer
	err error
}

var _ core.Executor = (*printer)(nil)

func (p *printer) print(now time.Time, a core.Action) {
	if p.err != nil {
		return
	}
	b, err := ActionLine(now, a)
	if err == nil {
		_, err = p.w.Write(b)
	}
	p.err = err
}

func (p *printer) WantWorkers(now time.Time, a core.WantWorkers)     { p.print(now, a) }
func (p *printer) RunAttempt(now time.Time, a core.RunAttempt)       { p.print(now, a) }
func (p *printer) KillAttempt(now time.Time, a core.KillAttempt)     { p.print(now, a) }
func (p *printer) GrantCommit(now time.Time, a core.GrantCommit)     { p.print(now, a) }
func (p *printer) StopWorker(now time.Time, a core.StopWorker)       { p.print(now, a) }
func (p *printer) MoveWorker(now time.Time, a core.MoveWorker)       { p.print(now, a) }
func (p *printer) DAGEnded(now time.Time, a core.DAGEnded)           { p.print(now, a) }
func (p *printer) Log(now time.Time, a core.Log)                     { p.print(now, a) }
func (p *printer) AttemptInputs(now time.Time, a core.AttemptInputs) { p.print(now, a) }
func (p *printer) StartAMWorker(now time.Time, a core.StartAMWorker) { p.print(now, a) }
