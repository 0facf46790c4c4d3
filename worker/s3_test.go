package worker

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/internal/s3test"
	"github.com/ebb-am/ebb/s3fs"
)

// A sink attempt's commit on S3 uploads its files to their final names
// and leaves them pending (invisible), recorded in the task's manifest;
// one killed before it began uploading records nothing.
func TestCommitToObjects(t *testing.T) {
	srv := s3test.Find(t)
	st := s3fs.NewStore(srv.Lookup)
	ctx := context.Background()
	b := s3test.BucketName("ebb-worker")
	if err := st.CreateBucket(ctx, b); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"part": "a\n", "sub/x": "b\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := func(k string) s3fs.Location { return s3fs.Location{Scheme: "s3", Bucket: b, Key: k} }
	commitDir := "s3://" + b + "/out/_temporary/s1"
	if err := commitToObjects(ctx, st, dir, commitDir, "att_0", 3); err != nil {
		t.Fatal(err)
	}
	raw, err := st.Get(ctx, at("out/_temporary/s1/_tasks/task-00003.pending"))
	if err != nil {
		t.Fatal(err)
	}
	var m commit.TaskManifest
	if err := json.Unmarshal(raw, &m); err != nil || len(m.Uploads) != 2 {
		t.Fatalf("task manifest %s: %v", raw, err)
	}
	got := map[string]bool{}
	for _, u := range m.Uploads {
		got[u.Path] = true
	}
	if !got["/out/part-00003"] || !got["/out/sub/x-00003"] {
		t.Errorf("the manifest names %v, want /out/part-00003 and /out/sub/x-00003", got)
	}
	if objs, _ := st.Walk(ctx, at("out/part")); len(objs) > 0 {
		t.Errorf("a pending upload is visible: %v", objs)
	}
	ups, err := st.Uploads(ctx, at("out/"))
	if err != nil || len(ups) != 2 {
		t.Errorf("%d uploads pending (%v), want the 2 recorded", len(ups), err)
	}

	killed, cancel := context.WithCancel(ctx)
	cancel()
	if err := commitToObjects(killed, st, dir, "s3://"+b+"/out3/_temporary/s3", "att_2", 0); err == nil {
		t.Fatal("a killed attempt's commit succeeded")
	}
	if ups, _ := st.Uploads(ctx, at("out3/")); len(ups) > 0 {
		t.Errorf("the killed attempt left %d uploads pending", len(ups))
	}
	if err := commitToObjects(ctx, st, dir, "s3://"+b+"/not-staging", "att_2", 0); err == nil {
		t.Error("a commit outside a staging area was not refused")
	}
}
