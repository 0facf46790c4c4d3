// Package recoverylog is the format of the AM's recovery log: what a new
// AM attempt needs to resume the DAGs of the attempt before it. It owns
// the records and their framing only; it does no IO (the caller gives it
// bytes and takes bytes back), so the framing is tested on its own.
//
// A record on disk:
//
//	+------+---------+------+-------------+---------------+-----------+
//	| 0xEB | version | kind | length (4B) | payload       | crc (4B)  |
//	+------+---------+------+-------------+---------------+-----------+
//	  1B      1B       1B     big-endian    length bytes    CRC-32C of
//	                                        (JSON)          version..payload
//
// The payload is JSON so that a record of a later version with more
// fields still reads. A record that ends early (the writer died in the
// middle of it) or whose checksum does not match ends the log: Decode
// returns the records before it and says where and why it stopped, and
// the caller warns and goes on. A record of an unknown version is an
// error: a newer ebb wrote it, and guessing would be worse than stopping.
package recoverylog

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
)

// Version is the format version this package writes and reads.
const Version = 1

const (
	magic      = 0xEB
	headerSize = 1 + 1 + 1 + 4
	crcSize    = 4
	// maxPayload bounds a record: a length beyond it is garbage (a torn
	// header), not a reason to allocate gigabytes.
	maxPayload = 64 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Kind says what a record is about.
type Kind uint8

const (
	KindDAGAccepted   Kind = 1
	KindTaskSucceeded Kind = 2
	KindDAGEnded      Kind = 3
)

func (k Kind) String() string {
	switch k {
	case KindDAGAccepted:
		return "dag-accepted"
	case KindTaskSucceeded:
		return "task-succeeded"
	case KindDAGEnded:
		return "dag-ended"
	}
	return fmt.Sprintf("kind-%d", uint8(k))
}

// Split is a byte range of a DAG input file, as the AM computed it.
type Split struct {
	Path   string `json:"p"`
	Offset int64  `json:"o"`
	Length int64  `json:"l"`
	// RecordLength is core.Split's: 0 for lines.
	RecordLength int64 `json:"r,omitempty"`
}

// DAGAccepted is a DAG the AM accepted: enough to rebuild its submission
// exactly (the same id, splits and output) without asking the client.
type DAGAccepted struct {
	DAG      string `json:"dag"`
	SpecName string `json:"specName"`
	// Spec is the DAG spec as the AM accepted it (its inputs resolved).
	Spec []byte `json:"spec"`
	// BaseDir is what relative inputs are resolved against.
	BaseDir string               `json:"baseDir,omitempty"`
	Output  string               `json:"output"`
	Client  string               `json:"client,omitempty"`
	Splits  map[string][][]Split `json:"splits,omitempty"`
	// StagingID names the directory under Output where its sinks commit
	// before the output is promoted (package commit); Overwrite and
	// Existed are how it is promoted or aborted.
	StagingID string `json:"stagingID,omitempty"`
	Overwrite bool   `json:"overwrite,omitempty"`
	Existed   bool   `json:"existed,omitempty"`
	// Conf is the AM's effective configuration when it accepted the DAG.
	Conf         map[string]string `json:"conf,omitempty"`
	SubmitUnixMs int64             `json:"submitMs"`
}

// TaskSucceeded is a task whose output exists: which attempt made it and
// which worker holds it (a sink's output is committed: no worker).
type TaskSucceeded struct {
	DAG     string `json:"d"`
	Vertex  string `json:"v"`
	Task    int    `json:"t"`
	Attempt string `json:"a"`
	Worker  string `json:"w,omitempty"`
	Address string `json:"h,omitempty"`
	// Counters: what the attempt counted (a Streaming program's
	// reporter:counter: lines), so a DAG's sums survive a new AM attempt.
	Counters []Counter `json:"c,omitempty"`
}

// Counter is one counter of a TaskSucceeded.
type Counter struct {
	Group string `json:"g"`
	Name  string `json:"n"`
	Value int64  `json:"v"`
}

// DAGEnded is a DAG that reached a final state.
type DAGEnded struct {
	DAG          string `json:"dag"`
	State        string `json:"state"`
	Diagnostics  string `json:"diag,omitempty"`
	FinishUnixMs int64  `json:"finishMs"`
}

// Record is one entry of the log: exactly one of its fields is set.
type Record struct {
	DAGAccepted   *DAGAccepted
	TaskSucceeded *TaskSucceeded
	DAGEnded      *DAGEnded
}

// Kind is the kind of the field that is set.
func (r Record) Kind() Kind {
	switch {
	case r.DAGAccepted != nil:
		return KindDAGAccepted
	case r.TaskSucceeded != nil:
		return KindTaskSucceeded
	case r.DAGEnded != nil:
		return KindDAGEnded
	}
	return 0
}

func (r Record) payload() any {
	switch r.Kind() {
	case KindDAGAccepted:
		return r.DAGAccepted
	case KindTaskSucceeded:
		return r.TaskSucceeded
	case KindDAGEnded:
		return r.DAGEnded
	}
	return nil
}

// Append encodes r at the end of buf.
func Append(buf []byte, r Record) ([]byte, error) {
	p := r.payload()
	if p == nil {
		return buf, errors.New("recoverylog: a record must have exactly one field set")
	}
	body, err := json.Marshal(p)
	if err != nil {
		return buf, fmt.Errorf("recoverylog: encoding a %s record: %w", r.Kind(), err)
	}
	if len(body) > maxPayload {
		return buf, fmt.Errorf("recoverylog: a %s record of %d bytes is over the %d-byte limit", r.Kind(), len(body), maxPayload)
	}
	start := len(buf)
	buf = append(buf, magic, Version, byte(r.Kind()))
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(body)))
	buf = append(buf, body...)
	return binary.BigEndian.AppendUint32(buf, crc32.Checksum(buf[start+1:], castagnoli)), nil
}

// Torn says where a log stopped being readable and why: the bytes from
// Offset on were skipped.
type Torn struct {
	Offset  int
	Skipped int
	Reason  string
}

func (t *Torn) String() string {
	return fmt.Sprintf("skipped the last %d bytes from offset %d: %s", t.Skipped, t.Offset, t.Reason)
}

// VersionError is a record written by a format this package does not know.
type VersionError struct {
	Offset  int
	Version byte
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("recoverylog: record at offset %d has format version %d; this ebb reads version %d", e.Offset, e.Version, Version)
}

// Decode reads every whole record of data. A torn or corrupt record ends
// the log: the records before it come back with a *Torn saying what was
// skipped (nil when everything was read).
func Decode(data []byte) ([]Record, *Torn, error) {
	var out []Record
	off := 0
	torn := func(reason string) *Torn {
		return &Torn{Offset: off, Skipped: len(data) - off, Reason: reason}
	}
	for off < len(data) {
		rest := data[off:]
		if len(rest) < headerSize {
			return out, torn("a record header cut short"), nil
		}
		if rest[0] != magic {
			return out, torn(fmt.Sprintf("no record starts here (byte 0x%02x)", rest[0])), nil
		}
		if rest[1] != Version {
			return out, nil, &VersionError{Offset: off, Version: rest[1]}
		}
		n := int(binary.BigEndian.Uint32(rest[3:7]))
		if n > maxPayload {
			return out, torn(fmt.Sprintf("a record length of %d bytes", n)), nil
		}
		end := headerSize + n + crcSize
		if len(rest) < end {
			return out, torn(fmt.Sprintf("a %d-byte record cut short at %d bytes", end, len(rest))), nil
		}
		if got, want := crc32.Checksum(rest[1:headerSize+n], castagnoli), binary.BigEndian.Uint32(rest[headerSize+n:end]); got != want {
			return out, torn(fmt.Sprintf("checksum mismatch (0x%08x, want 0x%08x)", got, want)), nil
		}
		r, err := decodePayload(Kind(rest[2]), rest[headerSize:headerSize+n])
		if err != nil {
			return out, torn(err.Error()), nil
		}
		out = append(out, r)
		off += end
	}
	return out, nil, nil
}

func decodePayload(k Kind, body []byte) (Record, error) {
	var r Record
	var into any
	switch k {
	case KindDAGAccepted:
		r.DAGAccepted = &DAGAccepted{}
		into = r.DAGAccepted
	case KindTaskSucceeded:
		r.TaskSucceeded = &TaskSucceeded{}
		into = r.TaskSucceeded
	case KindDAGEnded:
		r.DAGEnded = &DAGEnded{}
		into = r.DAGEnded
	default:
		return r, fmt.Errorf("unknown record kind %d", uint8(k))
	}
	if err := json.Unmarshal(body, into); err != nil {
		return r, fmt.Errorf("a %s record that does not decode: %v", k, err)
	}
	return r, nil
}
