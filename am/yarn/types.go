package yarn

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/yarnrpc"
)

// Resource is a container size.
type Resource struct {
	MemoryMB int64
	VCores   int32
	// Types are the other resource types (yarn.io/gpu), in the canonical
	// form TypesKey gives, so that a Resource stays comparable.
	Types string
}

// AnyHost is the resource name that matches every node.
const AnyHost = "*"

// DefaultRack is where YARN puts nodes without a topology script.
const DefaultRack = "/default-rack"

// Ask is one row of the RM's ask table: an absolute number of containers
// of Capability at Priority on Name (a node, a rack or AnyHost). Relax
// false makes a node-level request strict.
type Ask struct {
	Priority   int32
	Name       string
	Capability Resource
	Count      int32
	Relax      bool
	// Label is the node label expression (the group's partition); set on
	// the ANY row, from which the RM applies it to the others.
	Label string
}

type askKey struct {
	prio int32
	name string
}

func (a Ask) key() askKey { return askKey{a.Priority, a.Name} }

// Container is an allocated container.
type Container struct {
	ID       ContainerID
	Node     string // the NodeId, host:port: ebb's node id and the NM's address
	Host     string
	Resource Resource
	Priority int32
	Token    yarnrpc.Token // the container token, handed to the NM verbatim
}

// Completed is a container that finished, with YARN's exit status (see
// ExitStatusText) and the NM's diagnostics.
type Completed struct {
	ID          ContainerID
	ExitStatus  int32
	Diagnostics string
}

// NodeReport is what the RM says about one NodeManager.
type NodeReport struct {
	Node       string // host:port
	HTTP       string // the NodeManager's web address (host:port), for container-log links
	Rack       string
	MemoryMB   int64
	VCores     int32
	Running    bool
	Containers int32
	// UsedMB is the memory the node's containers hold, every
	// application's (this AM's own container included), as the RM saw it.
	UsedMB int64
	// State is the node's state; DrainTimeout, while DECOMMISSIONING, how
	// long the RM waits before it kills what runs there (0 = not said).
	State        core.NodeState
	DrainTimeout time.Duration
	// Types: the node's other resource types (TypesKey), e.g. yarn.io/gpu=1.
	Types string
	// Label: the node's label, its partition ("": the default one).
	Label string
}

// NMToken authenticates the AM to one NodeManager.
type NMToken struct {
	Node  string // host:port
	Token yarnrpc.Token
}

// Command is the RM's order in an allocate response.
type Command int

const (
	CommandNone Command = iota
	CommandResync
	CommandShutdown
)

// AllocateRequest is one heartbeat's changes: asks that differ from what
// the RM holds, containers to give back and blacklist changes.
type AllocateRequest struct {
	ResponseID      int32
	Asks            []Ask
	Release         []ContainerID
	BlacklistAdd    []string
	BlacklistRemove []string
	Progress        float32
}

// AllocateResponse is what one heartbeat brought.
type AllocateResponse struct {
	ResponseID   int32
	Command      Command
	Allocated    []Container
	Completed    []Completed
	NMTokens     []NMToken
	UpdatedNodes []NodeReport
	AMRMToken    *yarnrpc.Token
	// Preempt is the RM's preemption warning (nil: none).
	Preempt *Preemption
	// Limit is the application's headroom (nil: not reported).
	Limit *Resource
}

// Registration is the RM's answer to register.
type Registration struct {
	Max      Resource // yarn.scheduler.maximum-allocation-*
	Queue    string
	NMTokens []NMToken
	// Previous are the containers of earlier attempts that YARN kept
	// (keep_containers_across_application_attempts): their workers may
	// reconnect to this attempt.
	Previous []Container
}

// FinalStatus is how the application ends.
type FinalStatus int

const (
	Undefined FinalStatus = iota
	Succeeded
	Failed
	Killed
)

func (s FinalStatus) String() string {
	return [...]string{"UNDEFINED", "SUCCEEDED", "FAILED", "KILLED"}[s]
}

// RM is the ApplicationMasterProtocol as the world needs it. RMPort adapts
// yarnrpc's client; tests use a recording fake.
type RM interface {
	Register(ctx context.Context, host string, port int32, trackingURL string) (Registration, error)
	Allocate(ctx context.Context, req AllocateRequest) (AllocateResponse, error)
	// Finish unregisters; false means "not yet, call again".
	Finish(ctx context.Context, status FinalStatus, diagnostics, trackingURL string) (bool, error)
}

// LocalResource is a file the NM downloads into the container's working
// directory before it starts the command. Size and Timestamp must equal
// the file's in HDFS, or the NM refuses it as changed.
type LocalResource struct {
	URL       string // hdfs://host:port/path
	Size      int64
	Timestamp int64 // modification time, ms since the epoch
	// Visibility is who shares the NM's downloaded copy; the zero value
	// is APPLICATION.
	Visibility Visibility
}

// Launch is a container's launch context.
type Launch struct {
	Resources map[string]LocalResource // by the name of the link in $PWD
	Env       map[string]string
	Command   []string
	Tokens    []byte // a Credentials blob; nil for none
}

// NM is the ContainerManagementProtocol as the world needs it, for any
// NodeManager (by its host:port) with the NMTokens the RM handed out.
type NM interface {
	SetToken(node string, t yarnrpc.Token)
	Start(ctx context.Context, c Container, l Launch) error
	Stop(ctx context.Context, node string, ids []ContainerID) error
	Close() error
}

// maxAsksDescribed bounds how many changed asks one allocate's log line
// names.
const maxAsksDescribed = 12

// describeAsks names the changed asks for the allocate's log line, so an
// operator (yarn logs) sees where the AM asked for containers and whether
// strictly: " (priority 1: localhost:41803 ×1, /default-rack ×2 strict, * ×2 strict)".
func describeAsks(asks []Ask) string {
	if len(asks) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(" (")
	prio := int32(-1)
	for i, a := range asks {
		if i == maxAsksDescribed {
			fmt.Fprintf(&b, ", %d more", len(asks)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		if a.Priority != prio {
			prio = a.Priority
			fmt.Fprintf(&b, "priority %d: ", prio)
		}
		fmt.Fprintf(&b, "%s ×%d", a.Name, a.Count)
		if !a.Relax { // only rack and ANY rows are ever strict (book.wanted)
			b.WriteString(" strict")
		}
	}
	b.WriteString(")")
	return b.String()
}
