// Package committest runs the same scenarios against every commit.FS
// implementation (the local one in package commit, HDFS in hdfsfs, S3 in
// s3fs), so the committer's promises are checked on each file system it
// runs on. An object store (a commit.ObjectFS) runs scenarios of its own
// (object.go): its commit completes uploads, and its crash points are not
// a rename's.
package committest

import (
	"errors"
	"path"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/commit"
)

// Files is what the scenarios need besides commit.FS to set up and read
// back a tree: whole-file writes (creating parents) and reads.
type Files interface {
	WriteFile(p string, data []byte) error
	ReadFile(p string) ([]byte, error)
}

// Target is one file system under test.
type Target struct {
	FS    commit.FS
	Files Files
	// Root returns a fresh, not yet existing directory path for one
	// scenario, and Location the output location naming a path (a plain
	// path, or an hdfs:// URL).
	Root     func(t *testing.T) string
	Location func(p string) string
	// Upload, for an object store (FS is a commit.ObjectFS), begins a
	// multipart upload of data to p and leaves it pending, as a sink
	// attempt does.
	Upload func(t *testing.T, p string, data []byte) commit.Upload
}

func (tg Target) committer() *commit.Committer { return commit.New(tg.resolve) }

func (tg Target) resolve(loc string) (commit.FS, string, error) {
	for _, pre := range []string{"hdfs://", "file://", "s3://", "s3a://"} {
		if strings.HasPrefix(loc, pre) {
			rest := strings.TrimPrefix(loc, pre)
			if pre != "file://" {
				rest = rest[strings.IndexByte(rest, '/'):]
			}
			return tg.FS, rest, nil
		}
	}
	return tg.FS, loc, nil
}

// Tree reads every file under root as path (relative) -> content;
// directories appear as "dir/" -> "".
func Tree(t *testing.T, fs commit.FS, files Files, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(dir, rel string)
	walk = func(dir, rel string) {
		es, err := fs.ReadDir(dir)
		if err != nil {
			t.Fatalf("reading %s: %v", dir, err)
		}
		for _, e := range es {
			p, r := path.Join(dir, e.Name), path.Join(rel, e.Name)
			if e.Dir {
				out[r+"/"] = ""
				walk(p, r)
				continue
			}
			b, err := files.ReadFile(p)
			if err != nil {
				t.Fatalf("reading %s: %v", p, err)
			}
			out[r] = string(b)
		}
	}
	walk(root, "")
	return out
}

func (tg Target) write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		if err := tg.Files.WriteFile(path.Join(root, rel), []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
}

func (tg Target) same(t *testing.T, root string, want map[string]string) {
	t.Helper()
	got := Tree(t, tg.FS, tg.Files, root)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s holds\n\t%v\nwant\n\t%v", root, sorted(got), sorted(want))
	}
}

// committed is files as a promotion of staging id leaves them: with
// _SUCCESS and the id's marker, both empty.
func committed(id string, files map[string]string) map[string]string {
	out := map[string]string{commit.SuccessMarker: "", commit.CommitMarker(id): ""}
	for k, v := range files {
		out[k] = v
	}
	return out
}

func sorted(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// Run runs every scenario against tg.
func Run(t *testing.T, tg Target) {
	if ofs, ok := tg.FS.(commit.ObjectFS); ok {
		runObject(t, tg, ofs)
		return
	}
	t.Run("Check", tg.check)
	t.Run("PromoteFresh", tg.promoteFresh)
	t.Run("PromoteOverwriteReplacesOldResults", tg.promoteOverwrite)
	t.Run("PromoteRefusesResultsThatAppeared", tg.promoteRefuses)
	t.Run("PromoteSeveralSinks", tg.promoteSinks)
	t.Run("PromoteNothingStaged", tg.promoteNothing)
	t.Run("AbortKeepsOldResults", tg.abortKeeps)
	t.Run("AbortRemovesTheOutputItCreated", tg.abortCreated)
	t.Run("PromoteKilledAtEveryStep", tg.promoteCrashes)
	t.Run("AbortKilledAtEveryStep", tg.abortCrashes)
}

func (tg Target) check(t *testing.T) {
	c, root := tg.committer(), tg.Root(t)
	out := tg.Location(root)
	if exists, err := c.Check(out, false); err != nil || exists {
		t.Errorf("missing output: Check = %v, %v; want false, nil", exists, err)
	}
	if err := tg.FS.MkdirAll(root); err != nil {
		t.Fatal(err)
	}
	// An object store has no empty directories: MkdirAll made nothing.
	if _, obj := tg.FS.(commit.ObjectFS); !obj {
		if exists, err := c.Check(out, false); err != nil || !exists {
			t.Errorf("empty output: Check = %v, %v; want true, nil", exists, err)
		}
	}
	// Leftovers of a DAG that never finished are not results.
	tg.write(t, root, map[string]string{"_temporary/0a1b/part-00000": "x"})
	if _, err := c.Check(out, false); err != nil {
		t.Errorf("output holding only _temporary: %v", err)
	}
	tg.write(t, root, map[string]string{"part-00000": "old", "part-00001": "old"})
	_, err := c.Check(out, false)
	var ee *commit.ExistsError
	if !errors.As(err, &ee) {
		t.Fatalf("output with results: Check = %v, want an *ExistsError", err)
	}
	for _, want := range []string{out, "--overwrite", "part-00000"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if _, err := c.Check(out, true); err != nil {
		t.Errorf("output with results, overwrite: %v", err)
	}
	var nd *commit.NotDirError
	if _, err := c.Check(tg.Location(path.Join(root, "part-00000")), true); !errors.As(err, &nd) {
		t.Errorf("output that is a file: Check = %v, want a *NotDirError", err)
	}
}

func (tg Target) promoteFresh(t *testing.T) {
	c, root := tg.committer(), tg.Root(t)
	tg.write(t, root, map[string]string{
		"_temporary/s1/part-00000": "a\n",
		"_temporary/s1/part-00001": "b\n",
		// An attempt killed while it committed.
		"_temporary/s1/_temporary/att_9/part-00001": "partial",
	})
	if err := c.Promote(tg.Location(root), "s1", false); err != nil {
		t.Fatal(err)
	}
	tg.same(t, root, committed("s1", map[string]string{"part-00000": "a\n", "part-00001": "b\n"}))
}

// The rerun of issue 12: two reducers wrote part-00000 and part-00001; the
// rerun with one reducer and overwrite leaves exactly its own result.
func (tg Target) promoteOverwrite(t *testing.T) {
	c, root := tg.committer(), tg.Root(t)
	tg.write(t, root, map[string]string{
		"part-00000": "old0", "part-00001": "old1", "_SUCCESS": "", "sub/x": "old",
		"_temporary/s2/part-00000": "new0",
	})
	if err := c.Promote(tg.Location(root), "s2", true); err != nil {
		t.Fatal(err)
	}
	tg.same(t, root, committed("s2", map[string]string{"part-00000": "new0"}))
}

func (tg Target) promoteRefuses(t *testing.T) {
	c, root := tg.committer(), tg.Root(t)
	before := map[string]string{"part-00000": "someone else's", "_temporary/s3/part-00000": "mine"}
	tg.write(t, root, before)
	var ee *commit.ExistsError
	if err := c.Promote(tg.Location(root), "s3", false); !errors.As(err, &ee) {
		t.Fatalf("Promote = %v, want an *ExistsError", err)
	}
	tg.same(t, root, map[string]string{"part-00000": "someone else's", "_temporary/": "", "_temporary/s3/": "", "_temporary/s3/part-00000": "mine"})
}

func (tg Target) promoteSinks(t *testing.T) {
	c, root := tg.committer(), tg.Root(t)
	tg.write(t, root, map[string]string{
		"_temporary/s4/left/part-00000":            "l",
		"_temporary/s4/right/part-00000":           "r",
		"_temporary/s4/right/_temporary/att_1/bad": "partial",
	})
	if err := c.Promote(tg.Location(root), "s4", false); err != nil {
		t.Fatal(err)
	}
	tg.same(t, root, committed("s4", map[string]string{"left/": "", "left/part-00000": "l", "right/": "", "right/part-00000": "r"}))
}

func (tg Target) promoteNothing(t *testing.T) {
	c, root := tg.committer(), tg.Root(t)
	if err := c.Promote(tg.Location(root), "s5", false); err != nil {
		t.Fatal(err)
	}
	tg.same(t, root, committed("s5", nil))
}

func (tg Target) abortKeeps(t *testing.T) {
	c, root := tg.committer(), tg.Root(t)
	old := map[string]string{"part-00000": "old0", "part-00001": "old1", "_SUCCESS": ""}
	tg.write(t, root, old)
	tg.write(t, root, map[string]string{"_temporary/s6/part-00000": "half", "_temporary/s6/_temporary/a/part-00001": "x"})
	if err := c.Abort(tg.Location(root), "s6", false); err != nil {
		t.Fatal(err)
	}
	tg.same(t, root, old)
	// Another DAG's staging directory is not this abort's business.
	tg.write(t, root, map[string]string{"_temporary/other/part-00000": "o", "_temporary/s7/part-00000": "s"})
	if err := c.Abort(tg.Location(root), "s7", true); err != nil {
		t.Fatal(err)
	}
	tg.same(t, root, map[string]string{"part-00000": "old0", "part-00001": "old1", "_SUCCESS": "",
		"_temporary/": "", "_temporary/other/": "", "_temporary/other/part-00000": "o"})
}

func (tg Target) abortCreated(t *testing.T) {
	c, root := tg.committer(), tg.Root(t)
	tg.write(t, root, map[string]string{"_temporary/s8/part-00000": "half"})
	if err := c.Abort(tg.Location(root), "s8", true); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.FS.Stat(root); err == nil {
		t.Errorf("%s is still there after aborting the DAG that created it", root)
	}
}
