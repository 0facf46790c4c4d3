package recovery

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ebb-am/ebb/recoverylog"
)

func task(i int) recoverylog.Record {
	return recoverylog.Record{TaskSucceeded: &recoverylog.TaskSucceeded{DAG: "dag_0001", Vertex: "map", Task: i,
		Attempt: fmt.Sprintf("dag_0001_map_%06d_0", i), Worker: "container_1700000000000_0001_01_000002"}}
}

// failingFS fails the next n Creates.
// failingFS fails every Create while failing is set.
type failingFS struct {
	LocalFS
	failing atomic.Bool
}

func (f *failingFS) Create(p string, data []byte) error {
	if f.failing.Load() {
		return errors.New("datanode gone")
	}
	return f.LocalFS.Create(p, data)
}

func open(t *testing.T, fs FS, dir string) (*Dir, []byte, []recoverylog.Record, *recoverylog.Torn) {
	t.Helper()
	d, all, recs, torn, err := Open(fs, dir)
	if err != nil {
		t.Fatal(err)
	}
	return d, all, recs, torn
}

func record(t *testing.T, r *Recorder, recs ...recoverylog.Record) {
	t.Helper()
	ticket, err := r.Add(recs...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.Sync(ctx, ticket); err != nil {
		t.Fatal(err)
	}
}

// TestRecordsSurviveAndCompact: 200 synced batches are read back in order
// by the next attempt, and the directory holds a base and fewer than
// compactAfter segments, not 200 files.
func TestRecordsSurviveAndCompact(t *testing.T) {
	dir := t.TempDir()
	d, all, _, _ := open(t, LocalFS{}, dir)
	r := NewRecorder(d, all, time.Millisecond, nil)
	var want []recoverylog.Record
	for i := 0; i < 200; i++ {
		record(t, r, task(i))
		want = append(want, task(i))
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	_, _, got, torn := open(t, LocalFS{}, dir)
	if torn != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %d records (torn %v), want the 200 written", len(got), torn)
	}
	files, _ := LocalFS{}.List(dir)
	// 200 writes: a base at every 65th (64 segments, then the base).
	if len(files) > compactAfter+1 {
		t.Fatalf("%d files after 200 writes: compaction does not happen", len(files))
	}
}

// TestTornSegmentIsSkippedAndSuperseded: the AM died inside a write: the
// records before the cut are recovered with a warning, and the next
// attempt's first write folds everything into a base so its own records
// are not hidden behind the torn file.
func TestTornSegmentIsSkippedAndSuperseded(t *testing.T) {
	dir := t.TempDir()
	d, all, _, _ := open(t, LocalFS{}, dir)
	r := NewRecorder(d, all, time.Millisecond, nil)
	record(t, r, task(0), task(1))
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	half, _ := recoverylog.Append(nil, task(2))
	if err := os.WriteFile(filepath.Join(dir, "0000000001.seg"), half[:len(half)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	d, all, got, torn := open(t, LocalFS{}, dir)
	if torn == nil || len(got) != 2 {
		t.Fatalf("got %d records, torn %v; want the 2 before the cut and a warning", len(got), torn)
	}
	t.Logf("warning: %s", torn)
	r = NewRecorder(d, all, time.Millisecond, nil)
	record(t, r, task(3))
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	_, _, got, torn = open(t, LocalFS{}, dir)
	if torn != nil || !reflect.DeepEqual(got, []recoverylog.Record{task(0), task(1), task(3)}) {
		t.Fatalf("after the next attempt wrote: %d records, torn %v", len(got), torn)
	}
}

// TestFailedWriteIsRetried: Sync reports a failed write; the records stay
// queued and a later Sync finds them written.
func TestFailedWriteIsRetried(t *testing.T) {
	dir := t.TempDir()
	fs := &failingFS{}
	fs.failing.Store(true)
	d, all, _, _ := open(t, fs, dir)
	var heard []error
	r := NewRecorder(d, all, time.Millisecond, func(err error) { heard = append(heard, err) })
	ticket, _ := r.Add(task(0))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.Sync(ctx, ticket); err == nil {
		t.Fatal("Sync succeeded although the write failed")
	}
	// The data node is back only now: the writer's retries until then
	// failed as well, so Sync could not have seen a success first.
	fs.failing.Store(false)
	if err := r.Sync(ctx, ticket); err != nil {
		t.Fatalf("the retry did not write: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	_, _, got, _ := open(t, LocalFS{}, dir)
	// Each failed write is heard (one, or more if a retry also fell while
	// the data node was away).
	if !reflect.DeepEqual(got, []recoverylog.Record{task(0)}) || len(heard) == 0 {
		t.Fatalf("read %d records, heard %v", len(got), heard)
	}
}

// TestSizePerThousandTasks measures the log: 1,000 tasks of a DAG with
// YARN-length worker ids. The figure goes into the report.
func TestSizePerThousandTasks(t *testing.T) {
	var b []byte
	for i := 0; i < 1000; i++ {
		var err error
		if b, err = recoverylog.Append(b, task(i)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("1,000 task-succeeded records: %d bytes (%.0f per task)", len(b), float64(len(b))/1000)
	if len(b) > 200_000 {
		t.Errorf("%d bytes per 1,000 tasks: the record grew", len(b))
	}
}
