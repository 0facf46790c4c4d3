package amhost

import (
	"strings"
	"testing"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/conf"
)

// On YARN the UI links logs through the NodeManager's container-log page
// (the NM's web address from the node reports, else its configured port),
// guards itself for the RM's web proxy, and tells the RM a final tracking
// URL that outlives the AM.
func TestYarnUIOptions(t *testing.T) {
	c, _, err := conf.Load(conf.LoadOptions{Getenv: func(string) string { return "" }, Sets: map[string]string{
		"yarn.resourcemanager.webapp.address": "127.0.0.1:8088", "yarn.nodemanager.webapp.address": "0.0.0.0:9042"}})
	if err != nil {
		t.Fatal(err)
	}
	cid, err := yarn.ParseContainerID("container_1700000000000_0007_02_000001")
	if err != nil {
		t.Fatal(err)
	}
	o, st := yarnUIOptions(c, cid, "alice", "the-secret")
	st.setNodes([]yarn.NodeReport{{Node: "nm1:45454", HTTP: "nm1:8042"}})
	if got := o.NodeLogURL("nm1:45454", "container_1700000000000_0007_02_000002", "a_1.stdout"); got !=
		"http://nm1:8042/node/containerlogs/container_1700000000000_0007_02_000002/alice/a_1.stdout/?start=-4096" {
		t.Errorf("a known node's log URL: %s", got)
	}
	if got := o.NodeLogURL("nm9:45454", "c", "stderr"); got != "http://nm9:9042/node/containerlogs/c/alice/stderr/?start=-4096" {
		t.Errorf("a node that joined later: %s", got)
	}
	if o.App.ID != "application_1700000000000_0007" || o.App.Attempt != 2 {
		t.Errorf("app %+v", o.App)
	}
	if o.Proxy == nil || o.Proxy.ProxyURL != "http://127.0.0.1:8088/proxy/application_1700000000000_0007/" ||
		len(o.Proxy.Addrs) == 0 || o.Proxy.Key == "" || strings.Contains(o.Proxy.Key, "the-secret") {
		t.Errorf("proxy guard %+v", o.Proxy)
	}
	appID, err := yarn.ParseAppID(o.App.ID)
	if err != nil {
		t.Fatal(err)
	}
	if u := yarn.FinalTrackingURL(RMWebapp(c), appID); u != "http://127.0.0.1:8088/cluster/app/application_1700000000000_0007" {
		t.Errorf("final tracking URL %s", u)
	}
	var b strings.Builder
	st.metrics(&b) // no world yet: nothing, and no panic
	if b.Len() != 0 {
		t.Errorf("metrics before the world: %q", b.String())
	}
}

// The header's queue on YARN is the one the RM names at registration (it
// was "-"), and its priority is ebb.am.priority ("" at -1: the queue's
// default).
func TestYarnUIQueueAndPriority(t *testing.T) {
	for _, prio := range []string{"3", "-1"} {
		c, _, err := conf.Load(conf.LoadOptions{Getenv: func(string) string { return "" }, Sets: map[string]string{"ebb.am.priority": prio}})
		if err != nil {
			t.Fatal(err)
		}
		cid, err := yarn.ParseContainerID("container_1700000000000_0007_01_000001")
		if err != nil {
			t.Fatal(err)
		}
		o, st := yarnUIOptions(c, cid, "alice", "s")
		st.setQueue("root.b")
		a := o.App
		o.AppLate(&a)
		want := prio
		if prio == "-1" {
			want = ""
		}
		if a.Queue != "root.b" || a.Priority != want {
			t.Errorf("ebb.am.priority=%s: header queue %q priority %q, want root.b and %q", prio, a.Queue, a.Priority, want)
		}
	}
}
