package yarnclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/hdfsfs"
)

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// submitSaying submits a session and returns the AM's binary and what
// Submit said.
func submitSaying(t *testing.T, yc *Client, rm *fakeRM) (yarn.LocalResource, []string) {
	t.Helper()
	var said []string
	if _, err := yc.Submit(context.Background(), SubmitOptions{Session: true, Progress: func(s string) { said = append(said, s) }}); err != nil {
		t.Fatal(err)
	}
	app := rm.submitted[len(rm.submitted)-1]
	return app.AM.Resources[StagedBinary], said
}

// The first submit of a build uploads it under its content's hash; the
// next finds it there and uploads nothing; another build gets a path of
// its own.
func TestBinaryUploadedOnceThenReused(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	yc := testClient(t, testConf(t), rm, fs)
	want := "/user/alice/.ebb/lib/" + sha256Hex("#!ebb") + "/ebb"
	if LibPath("alice", sha256Hex("#!ebb")) != want {
		t.Fatalf("LibPath = %s, want %s", LibPath("alice", sha256Hex("#!ebb")), want)
	}
	first, said := submitSaying(t, yc, rm)
	if first.URL != "hdfs://nn:8020"+want || first.Size != 5 || len(fs.uploads) != 1 {
		t.Fatalf("first submit: binary %+v, uploads %v", first, fs.uploads)
	}
	if len(said) != 2 || !strings.HasPrefix(said[0], "uploaded ebb binary to hdfs://nn:8020"+want+" ") || !strings.HasPrefix(said[1], "NodeManagers localise it as PUBLIC: ") {
		t.Errorf("first submit said %q", said)
	}
	// Uploaded beside, then renamed: nothing half-written at the final name.
	if !strings.HasPrefix(fs.uploads[0], "/user/alice/.ebb/lib/.upload-") {
		t.Errorf("uploaded straight to %s", fs.uploads[0])
	}
	second, said := submitSaying(t, yc, rm)
	if len(fs.uploads) != 1 {
		t.Errorf("second submit uploaded again: %v", fs.uploads)
	}
	if second != first {
		t.Errorf("second submit's binary %+v, first's %+v", second, first)
	}
	if len(said) != 2 || said[0] != "reusing ebb binary at hdfs://nn:8020"+want+" (uploaded earlier)" {
		t.Errorf("second submit said %q", said)
	}
	// The temporary directory is gone; only the binary is under lib.
	for p := range fs.files {
		if strings.Contains(p, ".upload-") {
			t.Errorf("left %s behind", p)
		}
	}

	other := t.TempDir() + "/ebb"
	if err := os.WriteFile(other, []byte("#!ebb v2"), 0o700); err != nil {
		t.Fatal(err)
	}
	yc.binary = other
	third, _ := submitSaying(t, yc, rm)
	if third.URL != "hdfs://nn:8020"+LibPath("alice", sha256Hex("#!ebb v2")) || len(fs.uploads) != 2 {
		t.Errorf("another build: binary %+v, uploads %v", third, fs.uploads)
	}
}

// racingStore publishes the same build (another submit's) while this one
// is uploading its own.
type racingStore struct {
	*memStore
	final string
}

func (r racingStore) Upload(local, p string, mode os.FileMode) (hdfsfs.FileStamp, error) {
	if _, err := r.WriteFile(r.final, []byte("#!EBB"), 0o755); err != nil {
		return hdfsfs.FileStamp{}, err
	}
	return r.memStore.Upload(local, p, mode)
}

// Two submits of one build at once: the one that publishes second neither
// fails nor replaces the first's copy (whose time the first already
// quoted to YARN); it uses that copy.
func TestBinaryConcurrentUploadKeepsTheFirst(t *testing.T) {
	rm, mem := newFakeRM(), newMemStore()
	final := LibPath("alice", sha256Hex("#!ebb"))
	fs := racingStore{memStore: mem, final: final}
	yc := testClient(t, testConf(t), rm, mem)
	yc.dialFS = func() (Store, error) { return fs, nil }
	got, _ := submitSaying(t, yc, rm)
	// The winner's copy has the same size, other bytes: to tell them apart.
	if got.URL != "hdfs://nn:8020"+final || string(mem.files[final]) != "#!EBB" {
		t.Errorf("binary %+v holding %q, want the first's", got, mem.files[final])
	}
	for p := range mem.files {
		if strings.Contains(p, ".upload-") {
			t.Errorf("the loser's upload %s was left behind", p)
		}
	}
	if len(mem.uploads) != 1 || !strings.Contains(mem.uploads[0], ".upload-") {
		t.Errorf("uploads %v", mem.uploads)
	}
}

// A file at the content's path with another size is not that build: say
// so, rather than run it.
func TestBinaryWrongSizeAtItsPathIsRefused(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	fs.files[LibPath("alice", sha256Hex("#!ebb"))] = []byte("#!eb")
	yc := testClient(t, testConf(t), rm, fs)
	_, err := yc.Submit(context.Background(), SubmitOptions{Session: true})
	if err == nil || !strings.Contains(err.Error(), "holds 4 bytes") || !strings.Contains(err.Error(), "hdfs dfs -rm -r") {
		t.Fatalf("err = %v", err)
	}
	if len(rm.submitted) != 0 {
		t.Errorf("submitted anyway")
	}
}

// The NodeManager's rule for its public cache: the file readable by
// others, every directory above searchable by others.
func TestBinaryVisibilityFollowsPermissions(t *testing.T) {
	p := "/user/alice/.ebb/lib/abc/ebb"
	all := map[string]os.FileMode{"/": 0o755, "/user": 0o755, "/user/alice": 0o755, "/user/alice/.ebb": 0o711,
		"/user/alice/.ebb/lib": 0o755, "/user/alice/.ebb/lib/abc": 0o755, p: 0o755}
	tests := []struct {
		name   string
		change map[string]os.FileMode
		want   yarn.Visibility
		why    string
	}{
		{"all open", nil, yarn.VisibilityPublic, "readable by anyone"},
		{"file 0750", map[string]os.FileMode{p: 0o750}, yarn.VisibilityApplication, p + " is -rwxr-x---: others cannot read it"},
		{"file 0711 (run, not read)", map[string]os.FileMode{p: 0o711}, yarn.VisibilityApplication, "others cannot read it"},
		{"file 0604", map[string]os.FileMode{p: 0o604}, yarn.VisibilityPublic, ""},
		{"own dir 0750", map[string]os.FileMode{"/user/alice/.ebb/lib/abc": 0o750}, yarn.VisibilityApplication, "/user/alice/.ebb/lib/abc is drwxr-x---: others cannot search it"},
		{"home 0700", map[string]os.FileMode{"/user/alice": 0o700}, yarn.VisibilityApplication, "/user/alice is drwx------"},
		{"root 0750", map[string]os.FileMode{"/": 0o750}, yarn.VisibilityApplication, "/ is drwxr-x---"},
		{"dirs search-only", map[string]os.FileMode{"/user": 0o711, "/user/alice": 0o711}, yarn.VisibilityPublic, ""},
	}
	for _, tc := range tests {
		modes := map[string]os.FileMode{}
		for k, v := range all {
			modes[k] = v
		}
		for k, v := range tc.change {
			modes[k] = v
		}
		stat := func(q string) (hdfsfs.Info, error) {
			m, ok := modes[q]
			if !ok {
				return hdfsfs.Info{}, os.ErrNotExist
			}
			return hdfsfs.Info{IsDir: q != p, Perm: m}, nil
		}
		info, _ := stat(p)
		got, why, err := visibilityOf(stat, p, info)
		if err != nil || got != tc.want || !strings.Contains(why, tc.why) {
			t.Errorf("%s: %s (%q, %v), want %s (%q)", tc.name, got, why, err, tc.want, tc.why)
		}
	}
	// A directory that cannot be stat'ed is an error, not a guess.
	_, _, err := visibilityOf(func(string) (hdfsfs.Info, error) { return hdfsfs.Info{}, errors.New("boom") }, p, hdfsfs.Info{Perm: 0o755})
	if err == nil {
		t.Errorf("a failed stat was not reported")
	}
}

// A user's first submit makes .ebb searchable, not listable, and the lib
// directory open, so the binary is PUBLIC from the start.
func TestBinaryFirstSubmitOfAUser(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	yc := testClient(t, testConf(t), rm, fs)
	got, _ := submitSaying(t, yc, rm)
	if got.Visibility != yarn.VisibilityPublic || fs.modes["/user/alice/.ebb"] != 0o711 || fs.modes[LibDir("alice")] != 0o755 {
		t.Errorf("binary %+v; .ebb %o, lib %o", got, fs.modes["/user/alice/.ebb"], fs.modes[LibDir("alice")])
	}
}

// Submit's end of it: .ebb, made private by the first staging directory,
// becomes searchable (not listable) so the binary can be PUBLIC; a home
// directory only its owner may enter makes it APPLICATION, for the AM and
// its workers alike.
func TestBinaryVisibilityOnSubmit(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	yc := testClient(t, testConf(t), rm, fs)
	fs.modes["/user/alice/.ebb"] = 0o700
	got, _ := submitSaying(t, yc, rm)
	if got.Visibility != yarn.VisibilityPublic || fs.modes["/user/alice/.ebb"] != 0o711 || fs.modes[LibDir("alice")] != 0o755 {
		t.Errorf("binary %+v; .ebb %o, lib %o", got, fs.modes["/user/alice/.ebb"], fs.modes[LibDir("alice")])
	}
	if fs.modes[StagingDir("alice", rm.id)] != 0o700 {
		t.Errorf("the staging directory is %o", fs.modes[StagingDir("alice", rm.id)])
	}
	if env := rm.submitted[0].AM.Env; env[EnvBinaryVisibility] != "PUBLIC" || env[EnvBinary] != got.URL {
		t.Errorf("AM env %v", env)
	}

	fs.modes["/user/alice"] = 0o700
	got, said := submitSaying(t, yc, rm)
	if got.Visibility != yarn.VisibilityApplication || rm.submitted[1].AM.Env[EnvBinaryVisibility] != "APPLICATION" {
		t.Errorf("home 0700: binary %+v, env %v", got, rm.submitted[1].AM.Env)
	}
	// The user hears why.
	if want := "NodeManagers localise it as APPLICATION: /user/alice is drwx------: others cannot search it; one copy per node per application"; len(said) != 2 || said[1] != want {
		t.Errorf("said %q, want %q last", said, want)
	}
}

// ebb.lib.uri: an installed binary is used as it is, nothing uploaded; a
// missing one is an error naming the key and the path.
func TestLibURI(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	fs.files["/apps/ebb/1.4/ebb"] = []byte("#!installed")
	fs.modes["/apps/ebb/1.4/ebb"] = 0o755
	yc := testClient(t, testConf(t, "ebb.lib.uri", "hdfs://nn:8020/apps/ebb/1.4/ebb"), rm, fs)
	got, said := submitSaying(t, yc, rm)
	if got.URL != "hdfs://nn:8020/apps/ebb/1.4/ebb" || got.Size != int64(len("#!installed")) || got.Visibility != yarn.VisibilityPublic {
		t.Errorf("binary %+v", got)
	}
	if len(fs.uploads) != 0 || len(said) != 2 || !strings.Contains(said[0], "(ebb.lib.uri); nothing uploaded") {
		t.Errorf("uploads %v, said %q", fs.uploads, said)
	}

	for uri, want := range map[string]string{
		"hdfs://nn:8020/apps/ebb/9.9/ebb": "hdfs://nn:8020/apps/ebb/9.9/ebb does not",
		"hdfs://other:8020/apps/ebb":      "an hdfs:// URL of an ebb binary on the cluster's file system",
		"/apps/ebb/1.4":                   "/apps/ebb/1.4 is a directory",
	} {
		rm, fs := newFakeRM(), newMemStore()
		fs.files["/apps/ebb/1.4/ebb"] = []byte("#!installed")
		yc := testClient(t, testConf(t, "ebb.lib.uri", uri), rm, fs)
		_, err := yc.Submit(context.Background(), SubmitOptions{Session: true})
		if err == nil || !strings.Contains(err.Error(), "ebb.lib.uri") || !strings.Contains(err.Error(), want) {
			t.Errorf("ebb.lib.uri=%s: err = %v, want it to name the key and %q", uri, err, want)
		}
		if len(rm.submitted) != 0 || fs.dirs[StagingDir("alice", rm.id)] {
			t.Errorf("ebb.lib.uri=%s: submitted %d, staging directory made: %v", uri, len(rm.submitted), fs.dirs[StagingDir("alice", rm.id)])
		}
	}
}

// The AM gives its workers the binary its own container got.
func TestWorkerBinary(t *testing.T) {
	fs := stampFS{}
	env := map[string]string{EnvBinary: "hdfs://nn:8020/user/alice/.ebb/lib/abc/ebb", EnvBinaryVisibility: "PUBLIC"}
	got, err := WorkerBinary(fs, func(k string) string { return env[k] })
	want := yarn.LocalResource{URL: "hdfs://nn:8020/user/alice/.ebb/lib/abc/ebb", Size: 37, Timestamp: 99, Visibility: yarn.VisibilityPublic}
	if err != nil || got != want {
		t.Errorf("WorkerBinary = %+v, %v; want %+v", got, err, want)
	}
	env[EnvBinaryVisibility] = "PRIVATE"
	if _, err := WorkerBinary(fs, func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), EnvBinaryVisibility) {
		t.Errorf("a bad visibility: %v", err)
	}
	if _, err := WorkerBinary(fs, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), EnvBinary) {
		t.Errorf("no binary named: %v", err)
	}
}

type stampFS struct{}

func (stampFS) Path(l string) (string, error) { return strings.TrimPrefix(l, "hdfs://nn:8020"), nil }
func (stampFS) Stamp(p string) (hdfsfs.FileStamp, error) {
	return hdfsfs.FileStamp{URL: "hdfs://nn:8020" + p, Size: 37, ModTime: 99}, nil
}

// `ebb clean` removes ended applications' staging, never the binaries
// later submits reuse.
func TestCleanKeepsTheSharedBinaries(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	yc := testClient(t, testConf(t), rm, fs)
	bin, _ := submitSaying(t, yc, rm)
	rm.byID = map[yarn.AppID]yarn.AppReport{rm.id: {State: yarn.StateFinished, Final: yarn.Succeeded}}
	cleaned, err := yc.Clean(context.Background(), time.Now())
	if err != nil || len(cleaned) != 1 {
		t.Fatalf("Clean = %v, %v", cleaned, err)
	}
	if _, ok := fs.files[strings.TrimPrefix(bin.URL, "hdfs://nn:8020")]; !ok {
		t.Errorf("Clean removed %s", bin.URL)
	}
}
