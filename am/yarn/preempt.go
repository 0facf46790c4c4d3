package yarn

import (
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/proto/hadooppb"
)

// exitPreempted is YARN's ContainerExitStatus.PREEMPTED: the RM killed
// the container to give another queue its share.
const exitPreempted = -102

// Preemption is the RM's PreemptionMessage (AllocateResponse field 8): a
// warning, some seconds before the kill (the CapacityScheduler's
// max_wait_before_kill), that it will take containers back.
type Preemption struct {
	// Strict: containers the RM will take whatever the AM does.
	Strict []ContainerID
	// Negotiable: containers the RM would take; any containers worth
	// NegotiableMB given back instead will do.
	Negotiable   []ContainerID
	NegotiableMB int64
}

func preemptionFrom(p *hadooppb.PreemptionMessageProto) *Preemption {
	if p == nil {
		return nil
	}
	out := &Preemption{}
	for _, c := range p.GetStrictContract().GetContainer() {
		out.Strict = append(out.Strict, containerIDFrom(c.GetId()))
	}
	for _, c := range p.GetContract().GetContainer() {
		out.Negotiable = append(out.Negotiable, containerIDFrom(c.GetId()))
	}
	for _, r := range p.GetContract().GetResource() {
		rr := r.GetResource()
		out.NegotiableMB += resourceFrom(rr.GetCapability()).MemoryMB * int64(max(rr.GetNumContainers(), 1))
	}
	if len(out.Strict)+len(out.Negotiable) == 0 && out.NegotiableMB == 0 {
		return nil
	}
	return out
}

// preemptionEvents are the Core's events for one allocate response: the
// warning, when there is one, and the headroom when it changed since
// last (*last; lastOK says one was sent).
func preemptionEvents(resp AllocateResponse, last *int64, lastOK *bool) []core.Event {
	var evs []core.Event
	if resp.Limit != nil && (!*lastOK || resp.Limit.MemoryMB != *last) {
		*last, *lastOK = resp.Limit.MemoryMB, true
		evs = append(evs, core.HeadroomReported{MemoryMB: resp.Limit.MemoryMB})
	}
	if p := resp.Preempt; p != nil {
		e := core.PreemptionWarned{NegotiableMB: p.NegotiableMB}
		for _, id := range p.Strict {
			e.Strict = append(e.Strict, id.String())
		}
		for _, id := range p.Negotiable {
			e.Negotiable = append(e.Negotiable, id.String())
		}
		evs = append(evs, e)
	}
	return evs
}
