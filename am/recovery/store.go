// Package recovery keeps the AM's recovery log (the records of package
// recoverylog) in a directory of a file system: HDFS, in the application's
// staging directory, for the yarn world.
//
// The log is a sequence of segment files, each written whole and closed
// by one call: a record is durable once the file holding it is closed
// (the NameNode has the file's final length and the DataNodes have
// acknowledged every byte). Appending to one open file and hflushing it
// would be cheaper, but a reader that is not the Java client (colinmarc's)
// sees an unclosed file's length as the NameNode last recorded it, often
// 0, so the records of an AM that died would be invisible to the next.
// Many small segments are folded into one base file now and then.
package recovery

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ebb-am/ebb/recoverylog"
)

// FS is what the log needs of a file system.
type FS interface {
	// Create writes a new file with data and closes it; it must not
	// return before the data is durable.
	Create(p string, data []byte) error
	ReadFile(p string) ([]byte, error)
	// List names the files in dir (empty when dir does not exist).
	List(dir string) ([]string, error)
	Remove(p string) error
}

// Dir is a recovery log in one directory.
type Dir struct {
	fs  FS
	dir string
	// keepEnded is how many ended DAGs a base keeps (Retain; < 0: all).
	keepEnded int
	// next is the sequence number of the next segment; base the one of
	// the newest base file, segments the number written since it.
	next     int64
	segments int
}

const (
	segSuffix  = ".seg"
	baseSuffix = ".base"
	// compactAfter: after this many segments the next write folds the
	// whole log into one base file.
	compactAfter = 64
)

// Option tunes a Dir.
type Option func(*Dir)

// KeepEnded makes every base file keep the records of only the n DAGs
// that ended last, besides those of every DAG still running (Retain).
func KeepEnded(n int) Option { return func(d *Dir) { d.keepEnded = n } }

// Open reads the log in dir and returns it with the bytes read so far,
// the records, and what was skipped (nil when nothing). New segments go
// after the newest file found.
func Open(fs FS, dir string, opts ...Option) (*Dir, []byte, []recoverylog.Record, *recoverylog.Torn, error) {
	d := &Dir{fs: fs, dir: dir, keepEnded: -1}
	for _, o := range opts {
		o(d)
	}
	names, err := fs.List(dir)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	type file struct {
		seq  int64
		base bool
		name string
	}
	var files []file
	for _, n := range names {
		for _, suf := range []string{segSuffix, baseSuffix} {
			if s, ok := strings.CutSuffix(n, suf); ok {
				if seq, err := strconv.ParseInt(s, 10, 64); err == nil {
					files = append(files, file{seq: seq, base: suf == baseSuffix, name: n})
				}
			}
		}
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].seq != files[j].seq {
			return files[i].seq < files[j].seq
		}
		return files[i].base && !files[j].base
	})
	start := 0
	for i, f := range files {
		if f.base {
			start = i // the newest base holds everything before it
		}
	}
	var all []byte
	var recs []recoverylog.Record
	for _, f := range files[start:] {
		d.next = f.seq + 1
		if !f.base {
			d.segments++
		}
		b, err := fs.ReadFile(dir + "/" + f.name)
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("recovery: reading %s/%s: %w", dir, f.name, err)
		}
		rs, torn, err := recoverylog.Decode(b)
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("recovery: %s/%s: %w", dir, f.name, err)
		}
		recs = append(recs, rs...)
		all = append(all, b[:len(b)-tornBytes(torn)]...)
		if torn != nil {
			// A file cut short is the last one an AM wrote as it died;
			// anything after it cannot be trusted to follow on.
			torn.Reason = fmt.Sprintf("%s: %s", f.name, torn.Reason)
			// New segments would come after the torn one, which ends
			// every later read: the first write is a base instead.
			d.segments = compactAfter
			return d, all, recs, torn, nil
		}
	}
	return d, all, recs, nil, nil
}

func tornBytes(t *recoverylog.Torn) int {
	if t == nil {
		return 0
	}
	return t.Skipped
}

// Append stores data (whole records) as the next segment. all is the
// whole log including data: when enough segments have piled up, what of
// it KeepEnded keeps is written as one base file instead, and the files
// before it removed. It returns the log as it now stands (all, or the
// base).
func (d *Dir) Append(data, all []byte) ([]byte, error) {
	if len(data) == 0 {
		return all, nil
	}
	seq := d.next
	if d.segments >= compactAfter {
		base, err := d.retain(all)
		if err != nil {
			return all, err
		}
		if err := d.fs.Create(d.name(seq, baseSuffix), base); err != nil {
			return all, err
		}
		d.next, d.segments = seq+1, 0
		return base, d.removeBefore(seq)
	}
	if err := d.fs.Create(d.name(seq, segSuffix), data); err != nil {
		return all, err
	}
	d.next++
	d.segments++
	return all, nil
}

// retain re-encodes what Retain keeps of all.
func (d *Dir) retain(all []byte) ([]byte, error) {
	if d.keepEnded < 0 {
		return all, nil
	}
	recs, _, err := recoverylog.Decode(all)
	if err != nil {
		return nil, fmt.Errorf("recovery: compacting: %w", err)
	}
	var out []byte
	for _, r := range Retain(recs, d.keepEnded) {
		if out, err = recoverylog.Append(out, r); err != nil {
			return nil, fmt.Errorf("recovery: compacting: %w", err)
		}
	}
	return out, nil
}

func (d *Dir) name(seq int64, suffix string) string {
	return fmt.Sprintf("%s/%010d%s", d.dir, seq, suffix)
}

// removeBefore removes the files a new base at seq replaces. A failure
// leaves files that the next Open skips (they are older than the base).
func (d *Dir) removeBefore(seq int64) error {
	names, err := d.fs.List(d.dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		s, _, ok := strings.Cut(n, ".")
		v, err := strconv.ParseInt(s, 10, 64)
		if ok && err == nil && v < seq {
			if err := d.fs.Remove(d.dir + "/" + n); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
