package yarnclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
)

// AM is where a running AM's client API is and the secret it takes.
type AM struct {
	Addr   string
	Secret string
	// App and Attempt are the application and its current attempt, for
	// finding the AM again when it moves (a new attempt took over).
	App     string
	Attempt int32
}

// FindAM resolves an application id to its AM, waiting for it to run.
// An empty id (or "session") means the user's running ebb session,
// started now when there is none and start is true (progress hears of
// it); otherwise ErrNoSession.
func (c *Client) FindAM(ctx context.Context, app string, start bool, progress func(string)) (AM, error) {
	var rep yarn.AppReport
	var err error
	if app == "" || app == "session" {
		rep, err = c.FindSession(ctx)
		if errors.Is(err, ErrNoSession) {
			if !start {
				return AM{}, fmt.Errorf("%w of user %s: start one with ebb submit (no DAG) or ebb dag submit, or name an application with --app", ErrNoSession, c.user)
			}
			rep, err = c.StartSession(ctx, progress)
		}
		if err != nil {
			return AM{}, err
		}
	} else {
		id, err := yarn.ParseAppID(app)
		if err != nil {
			return AM{}, err
		}
		if rep, err = c.WaitRunning(ctx, id, 2*time.Minute); err != nil {
			return AM{}, err
		}
	}
	secret, err := c.ReadSecret(ctx, rep, 30*time.Second)
	if err != nil {
		return AM{}, err
	}
	return AM{Addr: AMAddress(rep), Secret: secret, App: rep.ID.String(), Attempt: rep.Attempt}, nil
}

// FindSession is the user's newest running session that has an AM to
// talk to, or ErrNoSession.
func (c *Client) FindSession(ctx context.Context) (yarn.AppReport, error) {
	apps, err := c.rm.Apps(ctx, []string{AppType}, []yarn.AppState{yarn.StateRunning}, []string{c.user})
	if err != nil {
		return yarn.AppReport{}, fmt.Errorf("listing applications: %w", err)
	}
	var best *yarn.AppReport
	for i, a := range apps {
		for _, t := range a.Tags {
			if t == SessionTag && a.RPCPort > 0 && (best == nil || a.StartMs > best.StartMs) {
				best = &apps[i]
			}
		}
	}
	if best == nil {
		return yarn.AppReport{}, ErrNoSession
	}
	return *best, nil
}

// StartSession submits a session AM and waits until it is RUNNING.
func (c *Client) StartSession(ctx context.Context, progress func(string)) (yarn.AppReport, error) {
	id, err := c.Submit(ctx, SubmitOptions{Session: true, Progress: progress})
	if err != nil {
		return yarn.AppReport{}, err
	}
	progress(fmt.Sprintf("started ebb session %s", id))
	return c.WaitRunning(ctx, id, 2*time.Minute)
}

// WaitRunning polls the application's report until its AM has registered
// (RUNNING) or it ended.
func (c *Client) WaitRunning(ctx context.Context, id yarn.AppID, timeout time.Duration) (yarn.AppReport, error) {
	deadline := time.Now().Add(timeout)
	for {
		rep, err := c.Report(ctx, id)
		if err != nil {
			return rep, err
		}
		if rep.State == yarn.StateRunning && rep.RPCPort > 0 {
			return rep, nil
		}
		if rep.State.Done() {
			return rep, fmt.Errorf("application %s is %s (%s): %s", id, rep.State, rep.Final, rep.Diagnostics)
		}
		if time.Now().After(deadline) {
			return rep, fmt.Errorf("application %s is still %s after %s", id, rep.State, timeout)
		}
		select {
		case <-ctx.Done():
			return rep, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// AMAddress is the AM's client API address from its report.
func AMAddress(rep yarn.AppReport) string {
	return net.JoinHostPort(rep.Host, strconv.Itoa(int(rep.RPCPort)))
}

// Detach waits until the application's AM runs (RUNNING) or the
// application ended, whichever comes first, for `ebb submit --detach`:
// an application the ResourceManager refuses (an unknown queue, an AM
// that cannot start) is FAILED within seconds, and the user hears so
// instead of an exit status of 0. An application that ended without
// succeeding has its staging directory removed and comes back as an
// *AppError with the RM's diagnostics. One still waiting after timeout
// (a full queue) is returned as it is, without an error: it was submitted.
func (c *Client) Detach(ctx context.Context, id yarn.AppID, timeout time.Duration) (yarn.AppReport, error) {
	deadline := time.Now().Add(timeout)
	for {
		rep, err := c.Report(ctx, id)
		if err != nil {
			return rep, err
		}
		if rep.State.Done() {
			if rerr := c.RemoveStaging(rep); rerr != nil {
				return rep, fmt.Errorf("%w (and removing its staging directory: %v)", appError(rep), rerr)
			}
			if rep.Final != yarn.Succeeded {
				return rep, appError(rep)
			}
			return rep, nil
		}
		if rep.State == yarn.StateRunning || time.Now().After(deadline) {
			return rep, nil
		}
		select {
		case <-ctx.Done():
			return rep, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
