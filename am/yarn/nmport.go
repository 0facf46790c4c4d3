package yarn

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ebb-am/ebb/proto/hadooppb"
	"github.com/ebb-am/ebb/yarnrpc"
)

// NMPort is the NM port over yarnrpc: one ContainerManagementProtocol
// client per NodeManager, authenticated with the NMToken the RM handed out
// for that node (cached by host:port; the RM sends each only once).
type NMPort struct {
	mu      sync.Mutex
	tokens  map[string]yarnrpc.Token
	clients map[string]*yarnrpc.ContainerManagerClient
	opts    []yarnrpc.Option
}

// NewNMPort returns an NM port with no tokens yet.
func NewNMPort(opts ...yarnrpc.Option) *NMPort {
	return &NMPort{tokens: map[string]yarnrpc.Token{}, clients: map[string]*yarnrpc.ContainerManagerClient{}, opts: opts}
}

// ErrNoNMToken: the RM has not (yet) sent a token for that node.
var ErrNoNMToken = errors.New("no NMToken for the node")

// SetToken caches a node's NMToken, replacing an older one.
func (p *NMPort) SetToken(node string, t yarnrpc.Token) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tokens[node] = t
	if c, ok := p.clients[node]; ok {
		c.SetToken(t)
	}
}

func (p *NMPort) client(node string) (*yarnrpc.ContainerManagerClient, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.clients[node]; ok {
		return c, nil
	}
	t, ok := p.tokens[node]
	if !ok {
		return nil, fmt.Errorf("%s: %w", node, ErrNoNMToken)
	}
	c := yarnrpc.NewContainerManagerClient(node, t, p.opts...)
	p.clients[node] = c
	return c, nil
}

// ContainerError is a container the NM refused to start or stop.
type ContainerError struct {
	Container ContainerID
	Class     string
	Message   string
}

func (e *ContainerError) Error() string {
	return fmt.Sprintf("container %s: %s: %s", e.Container, e.Class, e.Message)
}

// Start implements NM.
func (p *NMPort) Start(ctx context.Context, c Container, l Launch) error {
	nm, err := p.client(c.Node)
	if err != nil {
		return err
	}
	clc, err := launchProto(l)
	if err != nil {
		return err
	}
	resp, err := nm.StartContainers(ctx, []*hadooppb.StartContainerRequestProto{{ContainerLaunchContext: clc, ContainerToken: c.Token.Proto()}})
	if err != nil {
		return err
	}
	return failed(resp.GetFailedRequests())
}

// Stop implements NM.
func (p *NMPort) Stop(ctx context.Context, node string, ids []ContainerID) error {
	nm, err := p.client(node)
	if err != nil {
		return err
	}
	var pids []*hadooppb.ContainerIdProto
	for _, id := range ids {
		pids = append(pids, containerIDProto(id))
	}
	resp, err := nm.StopContainers(ctx, pids)
	if err != nil {
		return err
	}
	return failed(resp.GetFailedRequests())
}

func failed(fs []*hadooppb.ContainerExceptionMapProto) error {
	var errs []error
	for _, f := range fs {
		errs = append(errs, &ContainerError{Container: containerIDFrom(f.GetContainerId()), Class: f.GetException().GetClassName(), Message: f.GetException().GetMessage()})
	}
	return errors.Join(errs...)
}

// Close ends every NM connection.
func (p *NMPort) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for n, c := range p.clients {
		_ = c.Close() // shutting down: a connection that fails to close is gone anyway
		delete(p.clients, n)
	}
	return nil
}
