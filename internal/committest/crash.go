package committest

import (
	"errors"
	"fmt"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/commit"
)

// errCrash is what every call returns once crashFS has "died".
var errCrash = errors.New("committest: the process died here")

// crashFS passes calls through to a file system until its budget of
// changing calls (MkdirAll, Rename, RemoveAll, Remove, WriteFile) is spent;
// the next changing call dies part-way, as a kill -9 would leave it (a
// WriteFile writes half its bytes, a RemoveAll removes one entry), and
// every call after that fails: nothing a dead AM does reaches the disk.
type crashFS struct {
	fs    commit.FS
	files Files
	left  int
	dead  bool
	// at names the call that died, for messages.
	at string
}

var _ commit.FS = (*crashFS)(nil)

func (c *crashFS) change(what string) bool {
	if c.dead {
		return false
	}
	if c.left == 0 {
		c.dead, c.at = true, what
		return false
	}
	c.left--
	return true
}

func (c *crashFS) Stat(p string) (bool, error) {
	if c.dead {
		return false, errCrash
	}
	return c.fs.Stat(p)
}

func (c *crashFS) ReadDir(dir string) ([]commit.Entry, error) {
	if c.dead {
		return nil, errCrash
	}
	return c.fs.ReadDir(dir)
}

func (c *crashFS) MkdirAll(dir string) error {
	if !c.change("MkdirAll " + dir) {
		return errCrash
	}
	return c.fs.MkdirAll(dir)
}

func (c *crashFS) Rename(o, n string) error {
	if !c.change("Rename " + o + " " + n) {
		return errCrash
	}
	return c.fs.Rename(o, n)
}

func (c *crashFS) Remove(p string) error {
	if !c.change("Remove " + p) {
		return errCrash
	}
	return c.fs.Remove(p)
}

func (c *crashFS) RemoveAll(p string) error {
	if c.change("RemoveAll " + p) {
		return c.fs.RemoveAll(p)
	}
	if c.at == "RemoveAll "+p {
		// Torn: one entry of a directory goes before the death.
		if es, err := c.fs.ReadDir(p); err == nil && len(es) > 0 {
			_ = c.fs.RemoveAll(path.Join(p, es[0].Name))
		}
	}
	return errCrash
}

func (c *crashFS) WriteFile(p string, data []byte) error {
	if c.change("WriteFile " + p) {
		return c.fs.WriteFile(p, data)
	}
	if c.at == "WriteFile "+p {
		_ = c.files.WriteFile(p, data[:len(data)/2]) // torn
	}
	return errCrash
}

func (tg Target) committerOn(fsys commit.FS) *commit.Committer {
	return commit.New(func(loc string) (commit.FS, string, error) {
		_, p, err := tg.resolve(loc)
		return fsys, p, err
	})
}

// visible is what a reader of the output sees: everything but _temporary.
func visible(tree map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range tree {
		if k == commit.TempDir+"/" || strings.HasPrefix(k, commit.TempDir+"/") {
			continue
		}
		out[k] = v
	}
	return out
}

// crashCase is one promotion to interrupt at every step.
type crashCase struct {
	name      string
	overwrite bool
	old       map[string]string // results in the output before the DAG
	staged    map[string]string // under _temporary/<id>/
}

func crashCases() []crashCase {
	staged := map[string]string{"part-00000": "n0", "part-00001": "n1", "part-00002": "n2",
		"right/part-00000": "r0", "_temporary/att_3/part-00002": "partial"}
	return []crashCase{
		{name: "fresh", staged: staged},
		{name: "overwrite", overwrite: true, staged: staged,
			old: map[string]string{"part-00000": "o0", "part-00001": "o1", "part-00007": "o7", "_SUCCESS": "", "sub/x": "ox"}},
		{name: "emptyStaging", overwrite: true, staged: map[string]string{},
			old: map[string]string{"part-00000": "o0", "_SUCCESS": ""}},
	}
}

// want is the complete new output of a case: its staged results without
// attempt leftovers, directories listed, and the marker naming id.
func (cc crashCase) want(id string) map[string]string {
	out := committed(id, nil)
	for k, v := range cc.staged {
		if strings.HasPrefix(k, commit.TempDir+"/") {
			continue
		}
		out[k] = v
		if dir, _, ok := strings.Cut(k, "/"); ok {
			out[dir+"/"] = ""
		}
	}
	return out
}

func withDirs(files map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		out[k] = v
		if dir, _, ok := strings.Cut(k, "/"); ok {
			out[dir+"/"] = ""
		}
	}
	return out
}

// setup lays out a case's output and staging under a fresh root.
func (tg Target) setup(t *testing.T, cc crashCase, id string) string {
	t.Helper()
	root := tg.Root(t)
	if err := tg.FS.MkdirAll(path.Join(root, commit.TempDir, id)); err != nil {
		t.Fatal(err)
	}
	tg.write(t, root, cc.old)
	staged := map[string]string{}
	for k, v := range cc.staged {
		staged[path.Join(commit.TempDir, id, k)] = v
	}
	tg.write(t, root, staged)
	return root
}

// seen is what a reader sees at root now: nil when root is absent.
func (tg Target) seen(t *testing.T, root string) map[string]string {
	t.Helper()
	if _, err := tg.FS.Stat(root); err != nil {
		return nil
	}
	return visible(Tree(t, tg.FS, tg.Files, root))
}

// oneOf fails unless got is one of the allowed states.
func oneOf(t *testing.T, when string, got map[string]string, allowed map[string]map[string]string) {
	t.Helper()
	for _, a := range allowed {
		if reflect.DeepEqual(got, a) || (len(a) == 0 && len(got) == 0) {
			return
		}
	}
	t.Errorf("%s: a reader sees\n\t%v\nwhich is none of %v", when, sorted(got), keys(allowed))
}

func keys(m map[string]map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s=%v", k, sorted(v)))
	}
	return out
}

func (tg Target) noAside(t *testing.T, root string) {
	t.Helper()
	es, err := tg.FS.ReadDir(path.Dir(root))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.HasPrefix(e.Name, "."+path.Base(root)+".") {
			t.Errorf("%s is left beside the output", path.Join(path.Dir(root), e.Name))
		}
	}
}

// promoteCrashes interrupts a promotion after each of its steps; a second
// AM attempt then either finishes it (Promote again, twice: the second
// time is the kill between _SUCCESS and the DAG's end record) or undoes it
// (Abort). At the moment of each crash, and after the second attempt, a
// reader sees the old output, no output, or the complete new one with its
// marker: never a part of the new one, never _SUCCESS over a part.
func (tg Target) promoteCrashes(t *testing.T) {
	for _, cc := range crashCases() {
		for _, finish := range []bool{true, false} {
			name := cc.name + map[bool]string{true: "/finish", false: "/abort"}[finish]
			t.Run(name, func(t *testing.T) { tg.promoteCrashCase(t, cc, finish) })
		}
	}
}

func (tg Target) promoteCrashCase(t *testing.T, cc crashCase, finish bool) {
	const id = "c0ffee"
	old, want := withDirs(cc.old), cc.want(id)
	for k := 0; ; k++ {
		root := tg.setup(t, cc, id)
		out := tg.Location(root)
		cfs := &crashFS{fs: tg.FS, files: tg.Files, left: k}
		err := tg.committerOn(cfs).Promote(out, id, cc.overwrite)
		if !cfs.dead {
			// Every step ran: the promotion itself must have worked.
			if err != nil {
				t.Fatalf("Promote without a crash: %v", err)
			}
			tg.same(t, root, want)
			tg.noAside(t, root)
			if k < 3 {
				t.Fatalf("the promotion took only %d changing steps: the crash points are not being exercised", k)
			}
			return
		}
		when := fmt.Sprintf("killed at step %d (%s)", k, cfs.at)
		oneOf(t, when, tg.seen(t, root), map[string]map[string]string{"old": old, "none": nil, "new": want})
		c := tg.committer()
		if finish {
			if err := c.Promote(out, id, cc.overwrite); err != nil {
				t.Fatalf("%s, then Promote by the next attempt: %v", when, err)
			}
			// Killed again after the switch and before the end record.
			if err := c.Promote(out, id, cc.overwrite); err != nil {
				t.Fatalf("%s, Promote a third time: %v", when, err)
			}
			tg.same(t, root, want)
			tg.noAside(t, root)
			continue
		}
		err = c.Abort(out, id, len(cc.old) == 0)
		var ce *commit.CommittedError
		switch {
		case errors.As(err, &ce):
			tg.same(t, root, want) // it was done: the new output stays whole
		case err != nil:
			t.Fatalf("%s, then Abort by the next attempt: %v", when, err)
		case len(cc.old) == 0:
			if _, serr := tg.FS.Stat(root); serr == nil {
				t.Errorf("%s, then Abort: %s is still there; want it gone (the DAG created it)", when, root)
			}
		default:
			tg.same(t, root, old)
		}
		tg.noAside(t, root)
	}
}

// abortCrashes interrupts, after each of its steps, an Abort that undoes a
// started promotion; the next attempt's Abort restores the old output byte
// for byte.
func (tg Target) abortCrashes(t *testing.T) {
	const id = "dead01"
	cc := crashCases()[1]
	for k := 0; ; k++ {
		var root, out string
		// A promotion killed right after it moved the output aside.
		for n := 1; ; n++ {
			started := &crashFS{fs: tg.FS, files: tg.Files, left: n}
			root = tg.setup(t, cc, id)
			out = tg.Location(root)
			_ = tg.committerOn(started).Promote(out, id, true)
			if ph, err := tg.committer().Phase(out, id); err == nil && ph == commit.Started {
				break
			}
			if !started.dead {
				t.Fatal("no crash point leaves the promotion started")
			}
		}
		cfs := &crashFS{fs: tg.FS, files: tg.Files, left: k}
		err := tg.committerOn(cfs).Abort(out, id, false)
		if !cfs.dead {
			if err != nil {
				t.Fatalf("Abort without a crash: %v", err)
			}
			tg.same(t, root, withDirs(cc.old))
			tg.noAside(t, root)
			return
		}
		if err := tg.committer().Abort(out, id, false); err != nil {
			t.Fatalf("Abort killed at step %d (%s), then Abort again: %v", k, cfs.at, err)
		}
		tg.same(t, root, withDirs(cc.old))
		tg.noAside(t, root)
	}
}
