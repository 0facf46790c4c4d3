package amconf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/dag"
)

// ebb.auto.scale.target.p95.slowdown set in an mr3-site.xml reaches the
// core's groups: a group's status shows the target from the file; a value
// outside the key's range is refused at load, naming the file and line.
func TestTargetFromSiteFileReachesTheCore(t *testing.T) {
	site := func(v string) string {
		dir := t.TempDir()
		body := `<configuration>
<property><name>mr3.enable.auto.scaling</name><value>true</value></property>
<property><name>ebb.auto.scale.predictive.enabled</name><value>true</value></property>
<property><name>ebb.auto.scale.node.boot.secs</name><value>5</value></property>
<property><name>ebb.auto.scale.target.p95.slowdown</name><value>` + v + `</value></property>
</configuration>
`
		if err := os.WriteFile(filepath.Join(dir, "mr3-site.xml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	none := func(string) string { return "" }
	c, _, err := conf.Load(conf.LoadOptions{ConfPath: site("1.25"), Getenv: none})
	if err != nil {
		t.Fatal(err)
	}
	o, err := CoreOptions(c, "t")
	if err != nil {
		t.Fatal(err)
	}
	cr, err := core.NewCore(o)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	spec, err := dag.Parse("d.yaml", []byte("name: d\ncontainerGroup: {name: g, workerMemoryMB: 1024}\nvertices: [{name: v, command: \"true\", parallelism: 1, memoryMB: 256}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := cr.Apply(now, core.DAGArrived{Submission: core.Submission{Spec: spec}}); r.Err != nil {
		t.Fatal(r.Err)
	}
	cr.Tick(now)
	gs := cr.Groups()
	if len(gs) != 1 || gs[0].TargetP95 != 1.25 {
		t.Fatalf("groups %+v: want group g holding the file's target 1.25", gs)
	}
	_, _, err = conf.Load(conf.LoadOptions{ConfPath: site("0.9"), Getenv: none})
	if err == nil || !strings.Contains(err.Error(), `mr3-site.xml:5: ebb.auto.scale.target.p95.slowdown = "0.9": want a number from 1 to 1000`) {
		t.Fatalf("target 0.9 in the file: %v", err)
	}
}
