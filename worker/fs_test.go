package worker

import "testing"

func TestResolveLocations(t *testing.T) {
	var fss filesystems
	for _, loc := range []string{"/data/in.txt", "relative/in.txt", "file:///data/in.txt"} {
		fsys, p, err := fss.resolve(loc)
		if _, ok := fsys.(localFS); err != nil || !ok {
			t.Errorf("resolve(%q) = %T %q %v, want local", loc, fsys, p, err)
		}
	}
	if _, p, _ := fss.resolve("file:///data/in.txt"); p != "/data/in.txt" {
		t.Errorf("file:// path = %q", p)
	}
	for _, loc := range []string{"s3a://bucket/key", "s3://b/k"} {
		if fsys, p, err := fss.resolve(loc); err != nil || p != loc {
			t.Errorf("resolve(%q) = %T %q %v, want S3 with the URI as its path", loc, fsys, p, err)
		} else if _, ok := fsys.(s3Files); !ok {
			t.Errorf("resolve(%q) = %T, want S3", loc, fsys)
		}
	}
	for _, loc := range []string{"gs://bucket/key", "hdfs:///no/namenode"} {
		if _, _, err := fss.resolve(loc); err == nil {
			t.Errorf("resolve(%q) succeeded, want an error", loc)
		}
	}
}
