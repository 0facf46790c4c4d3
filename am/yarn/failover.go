package yarn

import (
	"context"
	"errors"
	"sync"

	"github.com/ebb-am/ebb/proto/hadooppb"
	"github.com/ebb-am/ebb/yarnrpc"
)

// appClient is the part of yarnrpc's ApplicationClient the Client uses.
type appClient interface {
	GetNewApplication(ctx context.Context) (*hadooppb.GetNewApplicationResponseProto, error)
	SubmitApplication(ctx context.Context, sub *hadooppb.ApplicationSubmissionContextProto) error
	GetApplicationReport(ctx context.Context, id *hadooppb.ApplicationIdProto) (*hadooppb.ApplicationReportProto, error)
	GetApplications(ctx context.Context, req *hadooppb.GetApplicationsRequestProto) ([]*hadooppb.ApplicationReportProto, error)
	ForceKillApplication(ctx context.Context, id *hadooppb.ApplicationIdProto, diagnostics string) (bool, error)
	GetClusterNodes(ctx context.Context, states ...hadooppb.NodeStateProto) ([]*hadooppb.NodeReportProto, error)
	GetClusterNodeLabels(ctx context.Context) ([]*hadooppb.NodeLabelProto, error)
	Close() error
}

var _ appClient = (*yarnrpc.ApplicationClient)(nil)

// failover calls the active one of several ResourceManagers (RM HA), or
// the one RM, under a Retry (retry.go): a call that cannot reach its RM,
// or that a standby refuses, is tried again there or at the next one;
// any other answer, error or not, is the answer.
type failover struct {
	ring *rmRing
	dial func(addr string) appClient

	mu      sync.Mutex
	clients map[int]appClient
}

func newFailover(addrs []string, dial func(string) appClient) *failover {
	return &failover{ring: newRMRing(addrs, HadoopRetry()), dial: dial, clients: map[int]appClient{}}
}

func (f *failover) client(i int) appClient {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.clients[i]
	if !ok {
		c = f.dial(f.ring.addrs[i])
		f.clients[i] = c
	}
	return c
}

func (f *failover) do(ctx context.Context, call func(appClient) error) error {
	return f.ring.do(ctx, func(i int) error { return call(f.client(i)) })
}

func (f *failover) close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var errs []error
	for _, c := range f.clients {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
