package cluster

import (
	"fmt"
	"time"
)

// EventKind is what an Event asks of the caller.
type EventKind int

const (
	// StartWorker: start Worker on Node now (its node is ready).
	StartWorker EventKind = iota + 1
	// NodeRequested: Node was provisioned; it is ready At (At == now:
	// ready at once). Call NodeReady then, or Tick.
	NodeRequested
	// NodeReady: Node came up; StartWorker events for its workers follow.
	NodeReady
	// NodeEmpty: Node is empty (or just came up) and goes At if it stays
	// empty. Call Reclaim(At, Node) then, or Tick.
	NodeEmpty
	// NodeRemoved: Node was given back to the provider.
	NodeRemoved
)

func (k EventKind) String() string {
	switch k {
	case StartWorker:
		return "StartWorker"
	case NodeRequested:
		return "NodeRequested"
	case NodeReady:
		return "NodeReady"
	case NodeEmpty:
		return "NodeEmpty"
	case NodeRemoved:
		return "NodeRemoved"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is one thing the caller must do or know, in the order the model
// decided it.
type Event struct {
	Kind   EventKind
	Node   string
	Worker string    // StartWorker only
	At     time.Time // NodeRequested and NodeEmpty only
}

func (e Event) String() string {
	switch e.Kind {
	case StartWorker:
		return fmt.Sprintf("%s %s on %s", e.Kind, e.Worker, e.Node)
	case NodeRequested, NodeEmpty:
		return fmt.Sprintf("%s %s at %s", e.Kind, e.Node, e.At.Format("15:04:05.000"))
	}
	return fmt.Sprintf("%s %s", e.Kind, e.Node)
}
