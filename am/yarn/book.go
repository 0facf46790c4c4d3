package yarn

import (
	"sort"

	"github.com/ebb-am/ebb/am/core"
)

// Book is the pure bookkeeping between the Core's wishes and the RM: how
// many containers each group wants, which containers it holds, and which
// asks, releases and blacklist entries the RM has been told about. It does
// no IO and reads no clock; the world calls it under its mutex.
//
// Asks are absolute totals per (priority, resource name), as the RM keeps
// them. Each group has its own priority, so a priority stands for one
// container size and an allocated container's priority names its group.
// After every heartbeat the wanted table is recomputed from scratch
// (pending = wanted - held) and only rows that differ from what the RM
// holds are sent, a row no longer wanted as a 0.
type Book struct {
	groups   map[string]*groupBook
	byPrio   map[int32]*groupBook
	nextPrio int32
	held     map[ContainerID]*held
	racks    map[string]string // node → rack

	sent      map[askKey]Ask
	release   []ContainerID
	releasing map[ContainerID]bool // released, not yet reported completed
	// avoid: the nodes no new container may go to (the RM's blacklist);
	// draining: the nodes whose containers no longer count toward their
	// groups (core.WantWorkers).
	avoid     map[string]bool
	draining  map[string]bool
	sentAvoid map[string]bool
	// IncludePort: the RM names nodes host:port
	// (yarn.scheduler.include-port-in-node-name), else by host.
	IncludePort bool
}

type groupBook struct {
	info   core.GroupInfo
	prio   int32
	want   int
	prefer []string
}

type held struct {
	c       Container
	group   string
	stopped bool // the AM told its worker to exit: no longer counted
}

// NewBook returns an empty book.
func NewBook() *Book {
	return &Book{groups: map[string]*groupBook{}, byPrio: map[int32]*groupBook{}, held: map[ContainerID]*held{},
		racks: map[string]string{}, sent: map[askKey]Ask{}, releasing: map[ContainerID]bool{},
		avoid: map[string]bool{}, draining: map[string]bool{}, sentAvoid: map[string]bool{}}
}

// Want records a group's wished total (held + requested, those held on
// Draining's nodes left out). Prefer, when set, turns its pending
// containers into strict node-level requests spread over those nodes;
// Avoid is the set of nodes no new container may go to (blacklisted at
// the RM). Both node lists replace the previous ones.
func (b *Book) Want(a core.WantWorkers) {
	g := a.Group
	gb, ok := b.groups[g.Name]
	if !ok {
		b.nextPrio++
		gb = &groupBook{prio: b.nextPrio}
		b.groups[g.Name] = gb
		b.byPrio[gb.prio] = gb
	}
	gb.info, gb.want, gb.prefer = g, a.Total, append([]string(nil), a.Prefer...)
	b.avoid = setOf(a.Avoid)
	b.draining = setOf(a.Draining)
}

func setOf(names []string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}

// SetRack records a node's rack (from the RM's node reports).
func (b *Book) SetRack(node, rack string) {
	if rack != "" {
		b.racks[node] = rack
	}
}

// Held counts the containers a group holds (launched or launching, not
// stopped, not on a draining node). The Core counts a worker out of its
// group as soon as its node drains, though it may stay a long time to
// serve outputs a running DAG still reads, and its Total is of the
// others: counted here, the draining containers would stand in for the
// new ones the group needs meanwhile (with every node draining, none
// would ever be asked for). A node merely avoided (a slow one kept clear
// for speculative backups) is not draining: its containers still count.
func (b *Book) Held(group string) int {
	n := 0
	for _, h := range b.held {
		if h.group == group && !h.stopped && !b.draining[h.c.Node] {
			n++
		}
	}
	return n
}

// HeldMB is the memory of the containers held on node (a node report's
// used memory less this is what others hold there).
func (b *Book) HeldMB(node string) int64 {
	var mb int64
	for _, h := range b.held {
		if h.c.Node == node {
			mb += h.c.Resource.MemoryMB
		}
	}
	return mb
}

// Pending is how many containers a group still asks for.
func (b *Book) Pending(group string) int {
	gb, ok := b.groups[group]
	if !ok {
		return 0
	}
	return max(0, gb.want-b.Held(group))
}

// Outstanding tells whether any group still asks for containers.
func (b *Book) Outstanding() bool {
	for name := range b.groups {
		if b.Pending(name) > 0 {
			return true
		}
	}
	return false
}

func capability(g core.GroupInfo) Resource {
	v := g.VCores
	if v <= 0 {
		v = 1
	}
	return Resource{MemoryMB: g.MemoryMB, VCores: int32(v), Types: TypesKey(g.Resources)}
}

// resourceName is how the RM names a node in asks and the blacklist.
func (b *Book) resourceName(node string) string {
	if b.IncludePort {
		return node
	}
	host := node
	for i := len(node) - 1; i >= 0; i-- {
		if node[i] == ':' {
			host = node[:i]
			break
		}
	}
	return host
}

// wanted is the whole ask table as it should be now.
func (b *Book) wanted() map[askKey]Ask {
	out := map[askKey]Ask{}
	add := func(a Ask) {
		k := a.key()
		if cur, ok := out[k]; ok {
			a.Count += cur.Count
		}
		out[k] = a
	}
	for _, gb := range b.groups {
		p := b.Pending(gb.info.Name)
		if p == 0 {
			continue
		}
		cap := capability(gb.info)
		var prefer []string
		anywhere := false
		for _, n := range gb.prefer {
			if n != "" && !b.avoid[n] {
				prefer = append(prefer, n)
			} else {
				anywhere = true
			}
		}
		if len(prefer) == 0 {
			add(Ask{Priority: gb.prio, Name: AnyHost, Capability: cap, Count: int32(p), Relax: true, Label: gb.info.NodeLabel})
			continue
		}
		// Strict when every pending container has a node: the node (relax
		// true), its rack and ANY with relax false, so the RM places them
		// on these nodes only. When some may go anywhere (no known node
		// had room), the same rows are relaxed instead: one priority has
		// one relax value, and a strict ask could never be met for those.
		// Pending containers are dealt round-robin, best node first.
		relax := anywhere
		per := make([]int32, len(prefer))
		for i := 0; i < p; i++ {
			per[i%len(prefer)]++
		}
		for i, n := range prefer {
			if per[i] == 0 {
				continue
			}
			rack := b.racks[n]
			if rack == "" {
				rack = DefaultRack
			}
			add(Ask{Priority: gb.prio, Name: b.resourceName(n), Capability: cap, Count: per[i], Relax: true})
			add(Ask{Priority: gb.prio, Name: rack, Capability: cap, Count: per[i], Relax: relax})
		}
		add(Ask{Priority: gb.prio, Name: AnyHost, Capability: cap, Count: int32(p), Relax: relax, Label: gb.info.NodeLabel})
	}
	return out
}

// Request builds the next heartbeat's changes and notes them as sent.
func (b *Book) Request() AllocateRequest {
	var req AllocateRequest
	want := b.wanted()
	for k, a := range want {
		if s, ok := b.sent[k]; !ok || s != a {
			req.Asks = append(req.Asks, a)
			b.sent[k] = a
		}
	}
	for k, s := range b.sent {
		if _, ok := want[k]; !ok {
			if s.Count != 0 {
				s.Count = 0
				req.Asks = append(req.Asks, s) // cancel, with the relax value it had
			}
			delete(b.sent, k)
		}
	}
	sort.Slice(req.Asks, func(i, j int) bool {
		a, c := req.Asks[i], req.Asks[j]
		if a.Priority != c.Priority {
			return a.Priority < c.Priority
		}
		return a.Name < c.Name
	})
	req.Release, b.release = b.release, nil
	for n := range b.avoid {
		if !b.sentAvoid[n] {
			req.BlacklistAdd = append(req.BlacklistAdd, b.resourceName(n))
			b.sentAvoid[n] = true
		}
	}
	for n := range b.sentAvoid {
		if !b.avoid[n] {
			req.BlacklistRemove = append(req.BlacklistRemove, b.resourceName(n))
			delete(b.sentAvoid, n)
		}
	}
	sort.Strings(req.BlacklistAdd)
	sort.Strings(req.BlacklistRemove)
	return req
}

// Resync forgets what the RM was told, so the next Request sends the whole
// table, every release not yet confirmed and the blacklist (after a
// re-register, or a heartbeat whose request may not have arrived).
func (b *Book) Resync() {
	b.sent = map[askKey]Ask{}
	b.sentAvoid = map[string]bool{}
	b.release = b.release[:0]
	for id := range b.releasing {
		b.release = append(b.release, id)
	}
	sort.Slice(b.release, func(i, j int) bool { return b.release[i].ID < b.release[j].ID })
}

// Resynced is Resync after re-registering with an RM that restarted or
// took over, given the live containers it lists for the application
// (keep-containers: those of every attempt). A container the book neither
// holds nor is releasing was handed out in an answer that never arrived
// (or was already given up): nothing runs in it for this AM, so it is
// released with the rest. It returns those surplus containers.
func (b *Book) Resynced(live []Container) (surplus []ContainerID) {
	b.Resync()
	for _, c := range live {
		if _, held := b.held[c.ID]; held || b.releasing[c.ID] {
			continue
		}
		b.giveBack(c.ID)
		surplus = append(surplus, c.ID)
	}
	return surplus
}

// Placed is an accepted container and the group it will serve.
type Placed struct {
	Container Container
	Group     core.GroupInfo
}

// Allocated matches new containers to groups by priority. A container is
// kept while its group holds fewer than it wants and the node is not being
// drained; anything else is surplus (the RM may hand out more than is
// still asked, since asks cross allocations in flight) and is released.
func (b *Book) Allocated(cs []Container) (keep []Placed, released []ContainerID) {
	for _, c := range cs {
		if _, dup := b.held[c.ID]; dup {
			continue
		}
		b.allocatedFrom(c)
		gb, ok := b.byPrio[c.Priority]
		if !ok || b.Held(gb.info.Name) >= gb.want || b.avoid[c.Node] {
			b.giveBack(c.ID)
			released = append(released, c.ID)
			continue
		}
		b.held[c.ID] = &held{c: c, group: gb.info.Name}
		keep = append(keep, Placed{Container: c, Group: gb.info})
	}
	return keep, released
}

// allocatedFrom mirrors what the RM did to its own table when it handed
// out c: one container fewer at c's priority on ANY, c's rack and c's
// node. Without it, a container kept and then lost between two heartbeats
// would leave our idea of the RM's table one too high, and the ask that
// replaces it would never be sent.
func (b *Book) allocatedFrom(c Container) {
	rack := b.racks[c.Node]
	if rack == "" {
		rack = DefaultRack
	}
	for _, name := range []string{AnyHost, rack, b.resourceName(c.Node)} {
		k := askKey{c.Priority, name}
		if a, ok := b.sent[k]; ok && a.Count > 0 {
			a.Count--
			b.sent[k] = a
		}
	}
}

func (b *Book) giveBack(id ContainerID) {
	b.release = append(b.release, id)
	b.releasing[id] = true
}

// Release gives a held container back (its launch failed, or the AM is
// ending) and forgets it.
func (b *Book) Release(id ContainerID) {
	delete(b.held, id)
	b.giveBack(id)
}

// Completed removes finished containers and returns those that were held
// (the Core must hear that their workers are gone).
func (b *Book) Completed(cs []Completed) (lost []Completed) {
	for _, c := range cs {
		delete(b.releasing, c.ID)
		if _, ok := b.held[c.ID]; ok {
			delete(b.held, c.ID)
			lost = append(lost, c)
		}
	}
	return lost
}

// Adopt holds a container an earlier AM attempt started (YARN kept it
// across attempts). It counts for no group until its worker rejoins
// (Moved), and is stopped and given back like any other at the end.
func (b *Book) Adopt(c Container) {
	if _, ok := b.held[c.ID]; !ok {
		b.held[c.ID] = &held{c: c}
	}
}

// Stopped: the AM told the worker in container id to exit. It no longer
// counts toward its group; the container goes when the process exits.
func (b *Book) Stopped(id ContainerID) {
	if h, ok := b.held[id]; ok {
		h.stopped = true
	}
}

// Moved: recycling gave the worker in container id to another group.
func (b *Book) Moved(id ContainerID, g core.GroupInfo) {
	if h, ok := b.held[id]; ok {
		h.group = g.Name
	}
}

// Containers lists every held container (for Close), sorted by id.
func (b *Book) Containers() []Container {
	out := make([]Container, 0, len(b.held))
	for _, h := range b.held {
		out = append(out, h.c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID.ID < out[j].ID.ID })
	return out
}

// ReleaseAll cancels every ask and gives every held container back (the AM
// is ending); it returns the containers it held.
func (b *Book) ReleaseAll() []Container {
	for _, gb := range b.groups {
		gb.want = 0
	}
	cs := b.Containers()
	for _, c := range cs {
		b.Release(c.ID)
	}
	return cs
}
