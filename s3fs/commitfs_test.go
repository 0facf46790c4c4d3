package s3fs_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/internal/committest"
	"github.com/ebb-am/ebb/internal/s3test"
	"github.com/ebb-am/ebb/s3fs"
)

// bucket is a fresh bucket on the test server and a Store reaching it.
func bucket(t *testing.T) (*s3fs.Store, string) {
	t.Helper()
	srv := s3test.Find(t)
	st := s3fs.NewStore(srv.Lookup)
	name := s3test.BucketName("ebb-test")
	if err := st.CreateBucket(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	return st, name
}

type objectFiles struct{ fs s3fs.BucketFS }

func (o objectFiles) WriteFile(p string, data []byte) error { return o.fs.WriteFile(p, data) }
func (o objectFiles) ReadFile(p string) ([]byte, error)     { return o.fs.ReadFile(p) }

// The committer's scenarios, and its crash points, on the S3 server.
func TestCommitScenarios(t *testing.T) {
	st, b := bucket(t)
	bfs := st.Bucket(s3fs.Location{Scheme: "s3", Bucket: b})
	var n atomic.Int64
	committest.Run(t, committest.Target{
		FS:       bfs,
		Files:    objectFiles{bfs},
		Root:     func(*testing.T) string { return fmt.Sprintf("/runs/%d/out", n.Add(1)) },
		Location: func(p string) string { return "s3://" + b + p },
		Upload: func(t *testing.T, p string, data []byte) commit.Upload {
			w, err := st.Begin(context.Background(), s3fs.Location{Scheme: "s3", Bucket: b, Key: p[1:]})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(data); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			return w.Upload()
		},
	})
}
