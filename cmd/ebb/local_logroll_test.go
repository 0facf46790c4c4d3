package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The local AM's am.log and its workers' worker.log roll as on YARN
// (ebb.log.roll.size.kb, ebb.log.roll.count): with 1 KB pieces and two
// kept, a word count leaves rolled pieces, never more than two of a log,
// and no file much beyond the size.
func TestLocalLogsRoll(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	out, err := runEbb(t, "local", "run", "--set", "ebb.local.dir="+root, "--set", "ebb.log.roll.size.kb=1",
		"--set", "ebb.log.roll.count=2", "--output", filepath.Join(dir, "out"), "examples/wordcount.yaml")
	if err != nil {
		t.Fatalf("ebb local run: %v\n%s", err, out)
	}
	rolled := map[string]int{} // log -> rolled pieces
	err = filepath.Walk(filepath.Join(root, "logs"), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		name := fi.Name()
		for _, base := range []string{"am.log", "worker.log"} {
			if name == base || strings.HasPrefix(name, base+".") {
				if fi.Size() > 2048 {
					t.Errorf("%s holds %d bytes, over the 1 KB roll (a line may overrun it, not a whole log)", p, fi.Size())
				}
				if name != base {
					rolled[filepath.Join(filepath.Dir(p), base)]++
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var am, workers int
	for log, n := range rolled {
		if n > 2 {
			t.Errorf("%s has %d rolled pieces, want at most 2 kept", log, n)
		}
		if strings.HasSuffix(log, "am.log") {
			am++
		} else {
			workers++
		}
	}
	if am != 1 || workers == 0 {
		t.Errorf("rolled logs: %v; want the AM's and at least one worker's rolled", rolled)
	}
}
