package yarn

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/am/core"
)

var (
	small = core.GroupInfo{Name: "small", MemoryMB: 512, VCores: 1}
	big   = core.GroupInfo{Name: "big", MemoryMB: 2048, VCores: 2}
)

func cid(n int64) ContainerID {
	return ContainerID{Attempt: AttemptID{App: AppID{ClusterTS: 1700000000000, ID: 7}, Attempt: 1}, ID: n}
}

func ctr(n int64, prio int32, node string) Container {
	return Container{ID: cid(n), Node: node, Priority: prio, Resource: Resource{MemoryMB: 512, VCores: 1}}
}

func anyAsk(prio int32, g core.GroupInfo, n int32, relax bool) Ask {
	return Ask{Priority: prio, Name: AnyHost, Capability: capability(g), Count: n, Relax: relax}
}

func TestBookAsksAreAbsoluteTotals(t *testing.T) {
	b := NewBook()
	b.Want(core.WantWorkers{Group: small, Total: 3})
	b.Want(core.WantWorkers{Group: big, Total: 1})
	// One priority per group, in order of first appearance.
	got := b.Request()
	want := []Ask{anyAsk(1, small, 3, true), anyAsk(2, big, 1, true)}
	if !reflect.DeepEqual(got.Asks, want) {
		t.Fatalf("first request asks %+v, want %+v", got.Asks, want)
	}
	if r := b.Request(); len(r.Asks) != 0 {
		t.Errorf("nothing changed, yet the request asks %+v", r.Asks)
	}
	// Two of small arrive. The RM lowered its row to 3 - 2 = 1 as it
	// allocated them, which is what small still wants: nothing to send.
	keep, rel := b.Allocated([]Container{ctr(2, 1, "n1:1"), ctr(3, 1, "n2:1")})
	if len(keep) != 2 || len(rel) != 0 {
		t.Fatalf("kept %d, released %v; want 2 kept", len(keep), rel)
	}
	if r := b.Request(); len(r.Asks) != 0 {
		t.Errorf("after two allocations asks %+v, want none", r.Asks)
	}
	// One of them is lost at once (its launch failed): small wants 1 + 1.
	b.Release(cid(3))
	if r := b.Request(); !reflect.DeepEqual(r.Asks, []Ask{anyAsk(1, small, 2, true)}) {
		t.Errorf("after a loss asks %+v, want small ANY 2", r.Asks)
	}
	b.Want(core.WantWorkers{Group: small, Total: 3}) // unchanged: still 1 held + 2 asked
	// The group wants fewer: 1 held, want 1 → cancel with a 0 row.
	b.Want(core.WantWorkers{Group: small, Total: 1})
	if r := b.Request(); !reflect.DeepEqual(r.Asks, []Ask{anyAsk(1, small, 0, true)}) {
		t.Errorf("after lowering asks %+v, want small ANY 0", r.Asks)
	}
}

func TestBookMatchesByPriorityAndReleasesSurplus(t *testing.T) {
	b := NewBook()
	b.Want(core.WantWorkers{Group: small, Total: 1, Avoid: []string{"drain:1"}})
	b.Request()
	keep, rel := b.Allocated([]Container{
		ctr(2, 1, "n1:1"),    // kept: small wants 1
		ctr(3, 1, "n2:1"),    // surplus: small holds 1 already
		ctr(4, 9, "n1:1"),    // no group has priority 9
		ctr(5, 1, "drain:1"), // a draining node
	})
	if len(keep) != 1 || keep[0].Container.ID != cid(2) || keep[0].Group.Name != "small" {
		t.Errorf("kept %+v, want container 2 for small", keep)
	}
	if !reflect.DeepEqual(rel, []ContainerID{cid(3), cid(4), cid(5)}) {
		t.Errorf("released %v, want 3, 4, 5", rel)
	}
	r := b.Request()
	if !reflect.DeepEqual(r.Release, []ContainerID{cid(3), cid(4), cid(5)}) {
		t.Errorf("request releases %v", r.Release)
	}
	if len(b.Request().Release) != 0 {
		t.Errorf("a release was sent twice")
	}
	// A repeated allocation of a held container is ignored.
	if k, r := b.Allocated([]Container{ctr(2, 1, "n1:1")}); len(k)+len(r) != 0 {
		t.Errorf("duplicate allocation: kept %v released %v", k, r)
	}
}

// A plan with an "anywhere" entry (no known node had room for that
// worker) keeps its node hints but relaxes every row: a strict ask could
// never be met for the worker that may go anywhere.
func TestBookRelaxedWhenSomeMayGoAnywhere(t *testing.T) {
	b := NewBook()
	b.IncludePort = true
	b.Want(core.WantWorkers{Group: small, Total: 2, Prefer: []string{"n1:1", ""}})
	cap := capability(small)
	want := []Ask{
		{1, "*", cap, 2, true, ""},
		{1, "/default-rack", cap, 2, true, ""},
		{1, "n1:1", cap, 2, true, ""},
	}
	if got := b.Request().Asks; !reflect.DeepEqual(got, want) {
		t.Fatalf("relaxed asks\n got %+v\nwant %+v", got, want)
	}
}

func TestBookStrictNodeRequests(t *testing.T) {
	b := NewBook()
	b.IncludePort = true
	b.SetRack("n1:1", "/r1")
	b.Want(core.WantWorkers{Group: small, Total: 3, Prefer: []string{"n1:1", "n2:1"}})
	cap := capability(small)
	// 3 containers dealt over two nodes: 2 on n1, 1 on n2; node rows
	// relax, rack and ANY rows strict.
	want := []Ask{
		{1, "*", cap, 3, false, ""},
		{1, "/default-rack", cap, 1, false, ""},
		{1, "/r1", cap, 2, false, ""},
		{1, "n1:1", cap, 2, true, ""},
		{1, "n2:1", cap, 1, true, ""},
	}
	if got := b.Request().Asks; !reflect.DeepEqual(got, want) {
		t.Fatalf("strict asks\n got %+v\nwant %+v", got, want)
	}
	// One arrives on n1: the RM lowered n1, /r1 and ANY by one, which is
	// exactly the 2 still pending dealt over the two nodes again.
	b.Allocated([]Container{ctr(2, 1, "n1:1")})
	if got := b.Request().Asks; len(got) != 0 {
		t.Errorf("after one strict allocation asks %+v, want none", got)
	}
	b.Release(cid(2))
	b.Request()
	// Back to "anywhere": the node and rack rows are cancelled with the
	// relax value they had; ANY becomes relaxed.
	b.Want(core.WantWorkers{Group: small, Total: 3})
	want = []Ask{
		{1, "*", cap, 3, true, ""},
		{1, "/default-rack", cap, 0, false, ""},
		{1, "/r1", cap, 0, false, ""},
		{1, "n1:1", cap, 0, true, ""},
		{1, "n2:1", cap, 0, true, ""},
	}
	if got := b.Request().Asks; !reflect.DeepEqual(got, want) {
		t.Errorf("relaxed again\n got %+v\nwant %+v", got, want)
	}
}

func TestBookHostNamesWithoutPort(t *testing.T) {
	b := NewBook()
	b.Want(core.WantWorkers{Group: small, Total: 1, Prefer: []string{"host-a:8041"}, Avoid: []string{"host-b:8041"}})
	r := b.Request()
	names := map[string]bool{}
	for _, a := range r.Asks {
		names[a.Name] = true
	}
	if !names["host-a"] || names["host-a:8041"] {
		t.Errorf("node asks %+v: want the host name without the port", r.Asks)
	}
	if !reflect.DeepEqual(r.BlacklistAdd, []string{"host-b"}) {
		t.Errorf("blacklist additions %v, want host-b", r.BlacklistAdd)
	}
}

func TestBookBlacklistFollowsDrainingNodes(t *testing.T) {
	b := NewBook()
	b.IncludePort = true
	b.Want(core.WantWorkers{Group: small, Avoid: []string{"n1:1", "n2:1"}})
	if r := b.Request(); !reflect.DeepEqual(r.BlacklistAdd, []string{"n1:1", "n2:1"}) || r.BlacklistRemove != nil {
		t.Errorf("blacklist +%v -%v", r.BlacklistAdd, r.BlacklistRemove)
	}
	b.Want(core.WantWorkers{Group: small, Avoid: []string{"n2:1"}})
	if r := b.Request(); r.BlacklistAdd != nil || !reflect.DeepEqual(r.BlacklistRemove, []string{"n1:1"}) {
		t.Errorf("blacklist +%v -%v, want n1:1 removed", r.BlacklistAdd, r.BlacklistRemove)
	}
}

// Containers on draining nodes do not count toward their group: the core
// counts their workers out as soon as the nodes drain, though they stay
// to serve outputs. With every node draining and an attempt waiting, the
// core wants 1: the book asks for one new container, keeps it when it
// comes, and releases none of the draining ones.
func TestBookDrainingContainersDoNotCount(t *testing.T) {
	b := NewBook()
	b.Want(core.WantWorkers{Group: small, Total: 2})
	b.Request()
	if keep, rel := b.Allocated([]Container{ctr(2, 1, "n1:1"), ctr(3, 1, "n2:1")}); len(keep) != 2 || len(rel) != 0 {
		t.Fatalf("kept %d, released %v; want 2 kept", len(keep), rel)
	}
	b.Request()
	every := []string{"n1:1", "n2:1"}
	b.Want(core.WantWorkers{Group: small, Total: 1, Avoid: every, Draining: every})
	r := b.Request()
	if !reflect.DeepEqual(r.Asks, []Ask{anyAsk(1, small, 1, true)}) || len(r.Release) != 0 {
		t.Errorf("every node draining, the core wanting 1: asks %+v, releases %v; want ANY 1 and no release", r.Asks, r.Release)
	}
	keep, rel := b.Allocated([]Container{ctr(4, 1, "n3:1")})
	if len(keep) != 1 || len(rel) != 0 {
		t.Errorf("the new container: kept %d, released %v; want it kept", len(keep), rel)
	}
	if n := len(b.Containers()); n != 3 || b.Held("small") != 1 || b.Pending("small") != 0 {
		t.Errorf("holds %d containers, %d counted, %d pending; want 3, 1, 0", n, b.Held("small"), b.Pending("small"))
	}
}

// A container on a node that is only avoided (a slow node kept clear for
// speculative backups), not draining, still counts: its worker is live
// to the core, and one more would be surplus.
func TestBookContainersOnAvoidedNodesCount(t *testing.T) {
	b := NewBook()
	b.Want(core.WantWorkers{Group: small, Total: 2})
	b.Request()
	b.Allocated([]Container{ctr(2, 1, "n1:1"), ctr(3, 1, "n2:1")})
	b.Request()
	b.Want(core.WantWorkers{Group: small, Total: 2, Avoid: []string{"n1:1"}})
	if r := b.Request(); len(r.Asks) != 0 {
		t.Errorf("n1 slow, the core wanting the 2 it has: asks %+v, want none", r.Asks)
	}
	if keep, rel := b.Allocated([]Container{ctr(4, 1, "n3:1")}); len(keep) != 0 || len(rel) != 1 {
		t.Errorf("a late container: kept %d, released %v; want it released as surplus", len(keep), rel)
	}
}

func TestBookCompletedStoppedAndResync(t *testing.T) {
	b := NewBook()
	b.Want(core.WantWorkers{Group: small, Total: 2, Avoid: []string{"n9:1"}})
	b.Request()
	b.Allocated([]Container{ctr(2, 1, "n1:1"), ctr(3, 1, "n1:1"), ctr(4, 1, "n1:1")}) // 4 is surplus
	b.Request()
	// The worker in 2 is told to stop: it no longer counts, so the group
	// (still wanting 2) asks for one more.
	b.Stopped(cid(2))
	if r := b.Request(); !reflect.DeepEqual(r.Asks, []Ask{anyAsk(1, small, 1, true)}) {
		t.Errorf("after a stop asks %+v, want ANY 1", r.Asks)
	}
	lost := b.Completed([]Completed{{ID: cid(2), ExitStatus: 0}, {ID: cid(3), ExitStatus: 137}, {ID: cid(99)}})
	if len(lost) != 2 || lost[0].ID != cid(2) || lost[1].ID != cid(3) {
		t.Errorf("lost %+v, want 2 and 3 (99 was never held)", lost)
	}
	if b.Held("small") != 0 || b.Pending("small") != 2 {
		t.Errorf("held %d pending %d, want 0 and 2", b.Held("small"), b.Pending("small"))
	}
	// After a resync everything is sent again: the whole ask table, the
	// blacklist and the release of 4, which the RM never confirmed.
	b.Request()
	b.Resync()
	r := b.Request()
	if !reflect.DeepEqual(r.Asks, []Ask{anyAsk(1, small, 2, true)}) || !reflect.DeepEqual(r.Release, []ContainerID{cid(4)}) ||
		!reflect.DeepEqual(r.BlacklistAdd, []string{"n9"}) {
		t.Errorf("after resync: asks %+v release %v blacklist %v", r.Asks, r.Release, r.BlacklistAdd)
	}
	// Once 4 is reported completed it is no longer re-sent.
	b.Completed([]Completed{{ID: cid(4), ExitStatus: -100}})
	b.Resync()
	if r := b.Request(); len(r.Release) != 0 {
		t.Errorf("a confirmed release was re-sent: %v", r.Release)
	}
}

func TestBookMovedAndReleaseAll(t *testing.T) {
	b := NewBook()
	b.Want(core.WantWorkers{Group: small, Total: 1})
	b.Want(core.WantWorkers{Group: big})
	b.Request()
	b.Allocated([]Container{ctr(2, 1, "n1:1")})
	b.Moved(cid(2), big)
	if b.Held("small") != 0 || b.Held("big") != 1 {
		t.Errorf("after a move: small %d big %d", b.Held("small"), b.Held("big"))
	}
	b.Request()
	cs := b.ReleaseAll()
	if len(cs) != 1 || cs[0].ID != cid(2) {
		t.Errorf("ReleaseAll returned %v", cs)
	}
	r := b.Request()
	if !reflect.DeepEqual(r.Release, []ContainerID{cid(2)}) {
		t.Errorf("release %v", r.Release)
	}
	for _, a := range r.Asks {
		if a.Count != 0 {
			t.Errorf("an ask survives ReleaseAll: %+v", a)
		}
	}
}

func TestContainerIDRoundTrip(t *testing.T) {
	for _, s := range []string{"container_1700000000000_0007_01_000002", "container_e17_1700000000000_0007_01_000002"} {
		id, err := ParseContainerID(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if id.String() != s || id.Attempt.App.ID != 7 || id.Attempt.Attempt != 1 {
			t.Errorf("%s parsed as %+v, printed as %s", s, id, id)
		}
	}
	if id, _ := ParseContainerID("container_e17_1700000000000_0007_01_000002"); id.ID != 17<<40|2 {
		t.Errorf("epoch not in the high bits: %d", id.ID)
	}
	for _, bad := range []string{"", "container_x", "application_1_2", "container_1_2_3"} {
		if _, err := ParseContainerID(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if a, err := ParseAppID("application_1700000000000_0042"); err != nil || a.String() != "application_1700000000000_0042" {
		t.Errorf("app id: %v %v", a, err)
	}
}

// The allocate's log line names the changed asks: node rows, strict rack
// and ANY rows, priorities, and how many more past the bound.
func TestDescribeAsks(t *testing.T) {
	asks := []Ask{{Priority: 1, Name: "n1:8041", Count: 1, Relax: true}, {Priority: 1, Name: DefaultRack, Count: 2},
		{Priority: 1, Name: AnyHost, Count: 2}, {Priority: 2, Name: AnyHost, Count: 3, Relax: true}}
	want := " (priority 1: n1:8041 ×1, /default-rack ×2 strict, * ×2 strict, priority 2: * ×3)"
	if got := describeAsks(asks); got != want {
		t.Fatalf("describeAsks = %q, want %q", got, want)
	}
	if got := describeAsks(nil); got != "" {
		t.Fatalf("describeAsks(nil) = %q, want empty", got)
	}
	many := make([]Ask, maxAsksDescribed+3)
	for i := range many {
		many[i] = Ask{Priority: 1, Name: AnyHost, Count: 1, Relax: true}
	}
	if got := describeAsks(many); !strings.HasSuffix(got, ", 3 more)") {
		t.Fatalf("describeAsks of %d = %q, want it to end with \", 3 more)\"", len(many), got)
	}
}
