package yarnclient

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/am/yarn"
)

// `ebb clean --lib`: of five builds in the lib directory it keeps the
// client's own and the one a running session uses, and removes the one
// only a finished application used and one nobody names; an upload under
// way (a temporary name) is left alone.
func TestPruneLibKeepsWhatRunningApplicationsUse(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	yc := testClient(t, testConf(t), rm, fs)
	own, _ := submitSaying(t, yc, rm) // the client's build, "#!ebb"
	if ref, err := fs.ReadFile(StagingDir("alice", rm.id) + "/" + StagedBinaryRef); err != nil || strings.TrimSpace(string(ref)) != own.URL {
		t.Fatalf("the submission names %q, %v; want %s", ref, err, own.URL)
	}
	app := func(n int32) yarn.AppID { return yarn.AppID{ClusterTS: 1700000000000, ID: n} }
	build := func(name string) string {
		p := LibPath("alice", sha256Hex(name))
		if _, err := fs.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	running, finished, orphan := build("running"), build("finished"), build("orphan")
	temp := LibDir("alice") + "/.upload-123/ebb"
	if _, err := fs.WriteFile(temp, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	names := func(n int32, binPath string) {
		if _, err := fs.WriteFile(StagingDir("alice", app(n))+"/"+StagedBinaryRef, []byte("hdfs://nn:8020"+binPath+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	names(2, running)
	names(3, finished)
	rm.byID = map[yarn.AppID]yarn.AppReport{
		rm.id:  {State: yarn.StateFinished, Final: yarn.Succeeded},
		app(2): {State: yarn.StateRunning},
		app(3): {State: yarn.StateFinished, Final: yarn.Succeeded},
	}
	got, err := yc.PruneLib(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var removed []string
	for _, p := range got {
		removed = append(removed, p.Path)
	}
	dir := func(p string) string { return p[:strings.LastIndex(p, "/")] }
	want := []string{dir(finished), dir(orphan)}
	if strings.Join(removed, " ") != strings.Join(slices.Sorted(slices.Values(want)), " ") {
		t.Fatalf("removed %v, want %v", removed, slices.Sorted(slices.Values(want)))
	}
	for _, p := range []string{strings.TrimPrefix(own.URL, "hdfs://nn:8020"), running, temp} {
		if _, err := fs.ReadFile(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
}

// A running application that does not say which binary it runs (an older
// ebb submitted it) could be using any: nothing is removed, and the error
// says why and what to do.
func TestPruneLibRemovesNothingWhenARunningApplicationIsSilent(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	yc := testClient(t, testConf(t), rm, fs)
	old := LibPath("alice", sha256Hex("old"))
	if _, err := fs.WriteFile(old, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.WriteFile(StagingDir("alice", rm.id)+"/"+StagedConf, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	rm.byID = map[yarn.AppID]yarn.AppReport{rm.id: {State: yarn.StateRunning}}
	got, err := yc.PruneLib(context.Background())
	if err == nil || len(got) != 0 || !strings.Contains(err.Error(), "does not name its ebb binary") || !strings.Contains(err.Error(), "nothing pruned") {
		t.Fatalf("PruneLib = %v, %v; want nothing removed and why", got, err)
	}
	if _, err := fs.ReadFile(old); err != nil {
		t.Error("the old build was removed")
	}
}
