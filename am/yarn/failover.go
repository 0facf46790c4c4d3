package yarn

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

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

// failover calls the active one of several ResourceManagers (RM HA). A
// call that cannot reach its RM, or that a standby RM refuses, goes to
// the next one, round the list twice at most; any other answer, error or
// not, is the answer. With one RM there is nothing to fail over to.
type failover struct {
	addrs []string
	dial  func(addr string) appClient
	// pause is the wait between rounds, while a new active RM is being
	// elected.
	pause time.Duration

	mu      sync.Mutex
	cur     int
	clients map[int]appClient
}

const failoverRounds = 2

func newFailover(addrs []string, dial func(string) appClient) *failover {
	return &failover{addrs: addrs, dial: dial, pause: 500 * time.Millisecond, clients: map[int]appClient{}}
}

func (f *failover) client(i int) appClient {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.clients[i]
	if !ok {
		c = f.dial(f.addrs[i])
		f.clients[i] = c
	}
	return c
}

func (f *failover) do(ctx context.Context, call func(appClient) error) error {
	if len(f.addrs) == 1 {
		return call(f.client(0))
	}
	var errs []error
	for try := 0; try < failoverRounds*len(f.addrs); try++ {
		f.mu.Lock()
		i := f.cur
		f.mu.Unlock()
		err := call(f.client(i))
		if err == nil || !failsOver(err) || ctx.Err() != nil {
			return err
		}
		errs = append(errs, fmt.Errorf("%s: %w", f.addrs[i], err))
		f.mu.Lock()
		if f.cur == i {
			f.cur = (i + 1) % len(f.addrs)
		}
		f.mu.Unlock()
		if (try+1)%len(f.addrs) == 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(f.pause):
			}
		}
	}
	return fmt.Errorf("no active ResourceManager among %v: %w", f.addrs, errors.Join(errs...))
}

// failsOver: the RM could not be reached (no remote answer at all), or
// it is a standby.
func failsOver(err error) bool {
	var re *yarnrpc.RemoteError
	if errors.As(err, &re) {
		return re.Class == "org.apache.hadoop.ipc.StandbyException"
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
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
