package eventlog

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/ebb-am/ebb/am/core"
)

// Version is the format's version, in the header; a replay refuses another.
const Version = 1

// Header opens a log: what a replay needs to build the same core.
type Header struct {
	Version  int               `json:"version"`
	IDPrefix string            `json:"idPrefix"`
	Conf     map[string]string `json:"conf"`
}

// kindOf names a value by its Go type in package core ("RunAttempt").
func kindOf(v any) string { return reflect.TypeOf(v).Name() }

// line renders one record: tag, time, and for events and actions their
// kind and JSON.
func line(tag byte, at time.Time, v any) ([]byte, error) {
	var b strings.Builder
	b.WriteByte(tag)
	b.WriteByte(' ')
	b.WriteString(at.Format(time.RFC3339Nano))
	if v != nil {
		js, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("eventlog: encoding %s: %w", kindOf(v), err)
		}
		b.WriteByte(' ')
		b.WriteString(kindOf(v))
		b.WriteByte(' ')
		b.Write(js)
	}
	b.WriteByte('\n')
	return []byte(b.String()), nil
}

// ActionLine is an action's line, as the live log records it and a replay
// prints it.
func ActionLine(at time.Time, a core.Action) ([]byte, error) { return line('A', at, a) }

// events decode an event's JSON by its kind: every core.Event type.
var events = map[string]func([]byte) (core.Event, error){
	"Tick":               decode[core.Tick],
	"WorkerRegistered":   decode[core.WorkerRegistered],
	"WorkerBeat":         decode[core.WorkerBeat],
	"AttemptUpdated":     decode[core.AttemptUpdated],
	"WorkerGone":         decode[core.WorkerGone],
	"NodesReported":      decode[core.NodesReported],
	"GroupRefused":       decode[core.GroupRefused],
	"NodesBilled":        decode[core.NodesBilled],
	"NodeChanged":        decode[core.NodeChanged],
	"DAGArrived":         decode[core.DAGArrived],
	"DAGKillRequested":   decode[core.DAGKillRequested],
	"DAGOutputSettled":   decode[core.DAGOutputSettled],
	"AutoscaleSet":       decode[core.AutoscaleSet],
	"AutoscaleTargetSet": decode[core.AutoscaleTargetSet],
	"AllocationSet":      decode[core.AllocationSet],
	"DAGsRecovered":      decode[core.DAGsRecovered],
	"PreemptionWarned":   decode[core.PreemptionWarned],
	"HeadroomReported":   decode[core.HeadroomReported],
}

func decode[E core.Event](b []byte) (core.Event, error) {
	var e E
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, err
	}
	return e, nil
}

// Record is one parsed line.
type Record struct {
	Tag   byte // 'H', 'E', 'D', 'A' or '#'
	At    time.Time
	Event core.Event // for 'E'
	// Header for 'H'.
	Header Header
}

// Parse reads one line (without its newline); n is its number, for errors.
func Parse(n int, s string) (Record, error) {
	if s == "" || s[0] == '#' {
		return Record{Tag: '#'}, nil
	}
	bad := func(why string, err error) (Record, error) {
		if err != nil {
			why += ": " + err.Error()
		}
		return Record{}, &FormatError{Line: n, Msg: why}
	}
	if len(s) < 2 || s[1] != ' ' {
		return bad("want a tag and a space", nil)
	}
	r := Record{Tag: s[0]}
	rest := s[2:]
	if r.Tag == 'H' {
		if err := json.Unmarshal([]byte(rest), &r.Header); err != nil {
			return bad("bad header", err)
		}
		return r, nil
	}
	at, payload, _ := strings.Cut(rest, " ")
	var err error
	if r.At, err = time.Parse(time.RFC3339Nano, at); err != nil {
		return bad("bad time", err)
	}
	switch r.Tag {
	case 'D', 'A':
		return r, nil
	case 'E':
		kind, js, _ := strings.Cut(payload, " ")
		dec, ok := events[kind]
		if !ok {
			return bad(fmt.Sprintf("unknown event %q", kind), nil)
		}
		if r.Event, err = dec([]byte(js)); err != nil {
			return bad("bad "+kind, err)
		}
		return r, nil
	}
	return bad(fmt.Sprintf("unknown tag %q", s[0]), nil)
}

// FormatError is a line of a log that does not parse.
type FormatError struct {
	Line int
	Msg  string
}

func (e *FormatError) Error() string { return fmt.Sprintf("event log line %d: %s", e.Line, e.Msg) }
