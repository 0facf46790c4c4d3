package yarnclient

import (
	"context"
	"fmt"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
)

// Kill asks the ResourceManager to kill the application and polls until
// it ended; ctx bounds the wait.
func (c *Client) Kill(ctx context.Context, id yarn.AppID) (yarn.AppReport, error) {
	for {
		rep, err := c.Report(ctx, id)
		if err != nil {
			return rep, err
		}
		if rep.State.Done() {
			return rep, nil
		}
		if _, err := c.rm.Kill(ctx, id, "killed by ebb kill"); err != nil {
			return rep, fmt.Errorf("killing %s: %w", id, err)
		}
		select {
		case <-ctx.Done():
			return rep, fmt.Errorf("application %s is still %s: %w", id, rep.State, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
