package committest

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/commit"
)

// The scenarios on an object store (a commit.ObjectFS such as S3), whose
// commit completes pending multipart uploads instead of renaming: staged
// files are pending uploads to their final names, recorded in task
// manifests; the output is a set of keys, _SUCCESS a JSON manifest.

// successSeen is how trees show a _SUCCESS: the staging id and the files
// it names, or its raw text when it is not a Success.
func successSeen(b []byte) string {
	var s commit.Success
	if err := json.Unmarshal(b, &s); err != nil || s.Committer != commit.SuccessCommitter {
		return string(b)
	}
	return "commit " + s.StagingID + ": " + strings.Join(s.Files, ",")
}

// objTree reads every file under root as relative path -> content.
func objTree(t *testing.T, ofs commit.ObjectFS, root string) map[string]string {
	t.Helper()
	files, err := ofs.Walk(root)
	if err != nil {
		t.Fatalf("listing %s: %v", root, err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := ofs.ReadFile(f)
		if err != nil {
			t.Fatalf("reading %s: %v", f, err)
		}
		rel := strings.TrimPrefix(f, root+"/")
		if rel == commit.SuccessMarker {
			out[rel] = successSeen(b)
			continue
		}
		out[rel] = string(b)
	}
	return out
}

// objVisible is what a reader sees: everything but _temporary.
func objVisible(tree map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range tree {
		if !strings.HasPrefix(k, commit.TempDir+"/") {
			out[k] = v
		}
	}
	return out
}

// objCommitted is files as the commit of id leaves them.
func objCommitted(id string, files map[string]string) map[string]string {
	out := map[string]string{}
	var names []string
	for k, v := range files {
		out[k] = v
		names = append(names, k)
	}
	sort.Strings(names)
	out[commit.SuccessMarker] = "commit " + id + ": " + strings.Join(names, ",")
	return out
}

// objStage stages files (relative to the output) as a DAG with staging id
// does: each a pending upload to its final name, recorded in a task
// manifest. leftovers are uploads of attempts that died before their task
// commit: pending, in no manifest.
func (tg Target) objStage(t *testing.T, root, id string, files, leftovers map[string]string) {
	t.Helper()
	staging := path.Join(root, commit.TempDir, id)
	names := make([]string, 0, len(files))
	for k := range files {
		names = append(names, k)
	}
	sort.Strings(names)
	for i, rel := range names {
		u := tg.Upload(t, path.Join(root, rel), []byte(files[rel]))
		m := commit.TaskManifest{Attempt: fmt.Sprintf("att_%d", i), Uploads: []commit.Upload{u}}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.Files.WriteFile(commit.TaskManifestPath(staging, int32(i)), b); err != nil {
			t.Fatal(err)
		}
	}
	for rel, body := range leftovers {
		tg.Upload(t, path.Join(root, rel), []byte(body))
	}
}

// clean fails unless nothing is pending and nothing staged under root.
func (tg Target) clean(t *testing.T, ofs commit.ObjectFS, root, when string) {
	t.Helper()
	pending, err := ofs.Pending(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) > 0 {
		t.Errorf("%s: %d multipart uploads are left pending under %s (the first: %s)", when, len(pending), root, pending[0].Path)
	}
	staged, err := ofs.Walk(path.Join(root, commit.TempDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(staged) > 0 {
		t.Errorf("%s: %s is left under the output", when, staged[0])
	}
}

func (tg Target) objSame(t *testing.T, ofs commit.ObjectFS, root string, want map[string]string) {
	t.Helper()
	if got := objTree(t, ofs, root); !reflect.DeepEqual(got, want) {
		t.Errorf("%s holds\n\t%v\nwant\n\t%v", root, sorted(got), sorted(want))
	}
}

func runObject(t *testing.T, tg Target, ofs commit.ObjectFS) {
	t.Run("Check", tg.check)
	t.Run("PromoteFresh", func(t *testing.T) {
		c, root := tg.committer(), tg.Root(t)
		tg.objStage(t, root, "s1", map[string]string{"part-00000": "a\n", "part-00001": "b\n"},
			map[string]string{"part-00001": "a killed attempt's"})
		if err := c.Promote(tg.Location(root), "s1", false); err != nil {
			t.Fatal(err)
		}
		tg.objSame(t, ofs, root, objCommitted("s1", map[string]string{"part-00000": "a\n", "part-00001": "b\n"}))
		tg.clean(t, ofs, root, "after Promote")
	})
	t.Run("PromoteOverwriteReplacesOldResults", func(t *testing.T) {
		c, root := tg.committer(), tg.Root(t)
		tg.write(t, root, map[string]string{"part-00000": "old0", "part-00001": "old1", "_SUCCESS": "", "sub/x": "old"})
		tg.objStage(t, root, "s2", map[string]string{"part-00000": "new0"}, nil)
		if err := c.Promote(tg.Location(root), "s2", true); err != nil {
			t.Fatal(err)
		}
		tg.objSame(t, ofs, root, objCommitted("s2", map[string]string{"part-00000": "new0"}))
		tg.clean(t, ofs, root, "after Promote")
	})
	t.Run("PromoteRefusesResultsThatAppeared", func(t *testing.T) {
		c, root := tg.committer(), tg.Root(t)
		tg.write(t, root, map[string]string{"part-00000": "someone else's"})
		tg.objStage(t, root, "s3", map[string]string{"part-00000": "mine"}, nil)
		var ee *commit.ExistsError
		if err := c.Promote(tg.Location(root), "s3", false); !errors.As(err, &ee) {
			t.Fatalf("Promote = %v, want an *ExistsError", err)
		}
		if got := objVisible(objTree(t, ofs, root)); !reflect.DeepEqual(got, map[string]string{"part-00000": "someone else's"}) {
			t.Errorf("after the refusal a reader sees %v", sorted(got))
		}
		// The AM aborts a DAG whose commit failed.
		if err := c.Abort(tg.Location(root), "s3", false); err != nil {
			t.Fatal(err)
		}
		tg.objSame(t, ofs, root, map[string]string{"part-00000": "someone else's"})
		tg.clean(t, ofs, root, "after Abort")
	})
	t.Run("PromoteSeveralSinks", func(t *testing.T) {
		c, root := tg.committer(), tg.Root(t)
		tg.objStage(t, root, "s4", map[string]string{"left/part-00000": "l", "right/part-00000": "r"},
			map[string]string{"right/bad": "partial"})
		if err := c.Promote(tg.Location(root), "s4", false); err != nil {
			t.Fatal(err)
		}
		tg.objSame(t, ofs, root, objCommitted("s4", map[string]string{"left/part-00000": "l", "right/part-00000": "r"}))
		tg.clean(t, ofs, root, "after Promote")
	})
	t.Run("PromoteNothingStaged", func(t *testing.T) {
		c, root := tg.committer(), tg.Root(t)
		if err := c.Promote(tg.Location(root), "s5", false); err != nil {
			t.Fatal(err)
		}
		tg.objSame(t, ofs, root, objCommitted("s5", nil))
	})
	t.Run("AbortKeepsOldResults", func(t *testing.T) {
		c, root := tg.committer(), tg.Root(t)
		old := map[string]string{"part-00000": "old0", "part-00001": "old1", "_SUCCESS": ""}
		tg.write(t, root, old)
		tg.objStage(t, root, "s6", map[string]string{"part-00000": "half"}, map[string]string{"part-00001": "x"})
		if err := c.Abort(tg.Location(root), "s6", false); err != nil {
			t.Fatal(err)
		}
		tg.objSame(t, ofs, root, old)
		tg.clean(t, ofs, root, "after Abort")
	})
	// A speculative backup and its original both uploaded the task's file;
	// the task commit recorded one of them. Exactly that one lands.
	t.Run("SpeculativeBackupNeverLandsBeside", func(t *testing.T) {
		c, root := tg.committer(), tg.Root(t)
		tg.objStage(t, root, "s9", map[string]string{"part-00000": "original"}, map[string]string{"part-00000": "backup"})
		if err := c.Promote(tg.Location(root), "s9", false); err != nil {
			t.Fatal(err)
		}
		tg.objSame(t, ofs, root, objCommitted("s9", map[string]string{"part-00000": "original"}))
		tg.clean(t, ofs, root, "after Promote")
	})
	t.Run("PromoteKilledAtEveryStep", func(t *testing.T) { tg.objPromoteCrashes(t, ofs) })
	t.Run("AbortKilledAtEveryStep", func(t *testing.T) { tg.objAbortCrashes(t, ofs) })
}

type objCase struct {
	name      string
	overwrite bool
	old       map[string]string
	staged    map[string]string
}

func objCases() []objCase {
	staged := map[string]string{"part-00000": "n0", "part-00001": "n1", "part-00002": "n2", "right/part-00000": "r0"}
	return []objCase{
		{name: "fresh", staged: staged},
		{name: "overwrite", overwrite: true, staged: staged,
			old: map[string]string{"part-00000": "o0", "part-00001": "o1", "part-00007": "o7", "_SUCCESS": "", "sub/x": "ox"}},
		{name: "emptyStaging", overwrite: true, staged: map[string]string{},
			old: map[string]string{"part-00000": "o0", "_SUCCESS": ""}},
	}
}

// objPromoteCrashes kills a job commit after each of its changing calls;
// at that moment a reader that sees a _SUCCESS sees the old output or the
// complete new one, never a part; the next AM attempt then finishes the
// commit (Promote, twice) or has it undone (Abort: the old output if the
// journal was not yet written, else the commit is finished), and leaves
// no pending upload and no staging area.
func (tg Target) objPromoteCrashes(t *testing.T, ofs commit.ObjectFS) {
	for _, cc := range objCases() {
		for _, finish := range []bool{true, false} {
			name := cc.name + map[bool]string{true: "/finish", false: "/abort"}[finish]
			t.Run(name, func(t *testing.T) { tg.objPromoteCrashCase(t, ofs, cc, finish) })
		}
	}
}

func (tg Target) objSetup(t *testing.T, cc objCase, id string) string {
	t.Helper()
	root := tg.Root(t)
	tg.write(t, root, cc.old)
	tg.objStage(t, root, id, cc.staged, map[string]string{"part-00002": "a dead attempt's"})
	return root
}

func (tg Target) objPromoteCrashCase(t *testing.T, ofs commit.ObjectFS, cc objCase, finish bool) {
	const id = "c0ffee"
	old := map[string]string{}
	for k, v := range cc.old {
		old[k] = v
	}
	want := objCommitted(id, cc.staged)
	for k := 0; ; k++ {
		root := tg.objSetup(t, cc, id)
		out := tg.Location(root)
		cfs := &crashObjectFS{crashFS: crashFS{fs: ofs, files: tg.Files, left: k}, ofs: ofs}
		err := tg.committerOn(cfs).Promote(out, id, cc.overwrite)
		if !cfs.dead {
			if err != nil {
				t.Fatalf("Promote without a crash: %v", err)
			}
			tg.objSame(t, ofs, root, want)
			tg.clean(t, ofs, root, "after Promote")
			if k < 5 {
				t.Fatalf("the commit took only %d changing calls: the crash points are not being exercised", k)
			}
			return
		}
		when := fmt.Sprintf("killed at call %d (%s)", k, cfs.at)
		seen := objVisible(objTree(t, ofs, root))
		if _, ok := seen[commit.SuccessMarker]; ok && !reflect.DeepEqual(seen, old) && !reflect.DeepEqual(seen, want) {
			t.Errorf("%s: a reader sees a _SUCCESS beside\n\t%v\nwhich is neither the old output nor the whole new one", when, sorted(seen))
		}
		c := tg.committer()
		if finish {
			if err := c.Promote(out, id, cc.overwrite); err != nil {
				t.Fatalf("%s, then Promote by the next attempt: %v", when, err)
			}
			if err := c.Promote(out, id, cc.overwrite); err != nil {
				t.Fatalf("%s, Promote a third time: %v", when, err)
			}
			tg.objSame(t, ofs, root, want)
			tg.clean(t, ofs, root, when+", then Promote")
			continue
		}
		err = c.Abort(out, id, len(cc.old) == 0)
		var ce *commit.CommittedError
		switch {
		case errors.As(err, &ce):
			tg.objSame(t, ofs, root, want) // started: finished, whole
		case err != nil:
			t.Fatalf("%s, then Abort by the next attempt: %v", when, err)
		default:
			tg.objSame(t, ofs, root, old)
		}
		tg.clean(t, ofs, root, when+", then Abort")
	}
}

// objAbortCrashes kills the Abort of a DAG that never committed after each
// of its calls; the next attempt's Abort leaves the old output and nothing
// pending.
func (tg Target) objAbortCrashes(t *testing.T, ofs commit.ObjectFS) {
	const id = "dead01"
	cc := objCases()[1]
	for k := 0; ; k++ {
		root := tg.objSetup(t, cc, id)
		out := tg.Location(root)
		cfs := &crashObjectFS{crashFS: crashFS{fs: ofs, files: tg.Files, left: k}, ofs: ofs}
		err := tg.committerOn(cfs).Abort(out, id, false)
		if !cfs.dead {
			if err != nil {
				t.Fatalf("Abort without a crash: %v", err)
			}
			tg.objSame(t, ofs, root, cc.old)
			tg.clean(t, ofs, root, "after Abort")
			return
		}
		if err := tg.committer().Abort(out, id, false); err != nil {
			t.Fatalf("Abort killed at call %d (%s), then Abort again: %v", k, cfs.at, err)
		}
		tg.objSame(t, ofs, root, cc.old)
		tg.clean(t, ofs, root, fmt.Sprintf("Abort killed at call %d (%s), then Abort", k, cfs.at))
	}
}

// crashObjectFS is crashFS for an object store: completing and aborting
// uploads are changing calls too. An object store's PUT is atomic, so a
// WriteFile dies whole (before or after), never torn.
type crashObjectFS struct {
	crashFS
	ofs commit.ObjectFS
}

var _ commit.ObjectFS = (*crashObjectFS)(nil)

func (c *crashObjectFS) WriteFile(p string, data []byte) error {
	if !c.change("WriteFile " + p) {
		return errCrash
	}
	return c.ofs.WriteFile(p, data)
}

func (c *crashObjectFS) ReadFile(p string) ([]byte, error) {
	if c.dead {
		return nil, errCrash
	}
	return c.ofs.ReadFile(p)
}

func (c *crashObjectFS) Walk(dir string) ([]string, error) {
	if c.dead {
		return nil, errCrash
	}
	return c.ofs.Walk(dir)
}

func (c *crashObjectFS) Pending(dir string) ([]commit.Upload, error) {
	if c.dead {
		return nil, errCrash
	}
	return c.ofs.Pending(dir)
}

func (c *crashObjectFS) Complete(u commit.Upload) error {
	if !c.change("Complete " + u.Path) {
		return errCrash
	}
	return c.ofs.Complete(u)
}

func (c *crashObjectFS) AbortUpload(u commit.Upload) error {
	if !c.change("AbortUpload " + u.Path) {
		return errCrash
	}
	return c.ofs.AbortUpload(u)
}
