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
	for _, loc := range []string{"s3://bucket/key", "hdfs:///no/namenode"} {
		if _, _, err := fss.resolve(loc); err == nil {
			t.Errorf("resolve(%q) succeeded, want an error", loc)
		}
	}
}
