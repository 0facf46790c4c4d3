package testcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// EnvFaultsConfDir names the conf dir of the fault-injection minicluster:
// two ResourceManagers (HA, manual failover), RM recovery from a
// file-system state store, work-preserving, NodeManager recovery
// (supervised, each NM on fixed ports with its own state store), and
// restartable daemons
// (scripts/test.sh starts it). Tests that stop its daemons hold it with
// ExclusiveAt.
const EnvFaultsConfDir = "EBB_TEST_FAULTS_HADOOP_CONF_DIR"

// FaultsHint says how to start the fault-injection cluster by hand.
const FaultsHint = "start one as scripts/test.sh does (start_background faults ...), with\n\t" +
	"EBB_MINICLUSTER_ARGS=\"$(go run ./internal/testcluster/faultsargs)\" scripts/minicluster/start.sh /tmp/faults-mc\n" +
	"and export " + EnvFaultsConfDir + "=/tmp/faults-mc/conf"

// FaultsConfDir returns the fault-injection cluster's conf dir; unset, the
// test skips (fails under CI=true).
func FaultsConfDir(t testing.TB) string {
	t.Helper()
	return SpecialConfDir(t, EnvFaultsConfDir, FaultsHint)
}

// DefaultControlBound bounds a control verb whose context has no deadline.
const DefaultControlBound = 2 * time.Minute

// Control stops and starts the daemons of a running minicluster through
// the launcher's control channel (CONTROL in cluster.env; the verbs are
// documented in scripts/minicluster/src/main/java/ebb/minicluster/Control.java).
// Every call is bounded by its context's deadline, or DefaultControlBound;
// a start returns once the launcher saw the daemon serve and its address
// takes connections.
type Control struct {
	addr string
	env  map[string]string
}

// ControlError says which verb failed at which control address, within
// which bound, and why.
type ControlError struct {
	Verb  string
	Addr  string
	Bound time.Duration
	Err   error
}

func (e *ControlError) Error() string {
	return fmt.Sprintf("minicluster control %s at %s (bound %s): %v", e.Verb, e.Addr, e.Bound, e.Err)
}

func (e *ControlError) Unwrap() error { return e.Err }

// NewControl reads cluster.env next to confDir.
func NewControl(confDir string) (*Control, error) {
	env, err := ReadEnv(filepath.Join(filepath.Dir(confDir), "cluster.env"))
	if err != nil {
		return nil, err
	}
	addr := env["CONTROL"]
	if addr == "" {
		return nil, fmt.Errorf("testcluster: %s has no CONTROL (a launcher older than the control channel?)", confDir)
	}
	return &Control{addr: addr, env: env}, nil
}

// ControlOf is NewControl failing the test on error.
func ControlOf(t testing.TB, confDir string) *Control {
	t.Helper()
	c, err := NewControl(confDir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Env is the cluster.env of the controlled cluster.
func (c *Control) Env() map[string]string { return c.env }

// RMIDs lists the ResourceManagers: rm0, rm1, ... under HA; rm0 alone
// otherwise.
func (c *Control) RMIDs() []string {
	if ids := splitList(c.env["RM_IDS"]); len(ids) > 0 {
		return ids
	}
	return []string{"rm0"}
}

// RMAddress is the client RPC address of RM id.
func (c *Control) RMAddress(id string) string {
	if a := c.env[strings.ToUpper(id)+"_ADDRESS"]; a != "" {
		return a
	}
	return c.env["RM_ADDRESS"]
}

// StopRM stops ResourceManager id (rm0, rm1, ...).
func (c *Control) StopRM(ctx context.Context, id string) error {
	_, err := c.call(ctx, http.MethodPost, "/rm/stop", url.Values{"rm": {id}})
	return err
}

// StartRM starts ResourceManager id again on its ports (recovering from
// the state store when recovery is on). Without HA it returns once every
// running NodeManager is RUNNING at it; under HA it comes up standby,
// serving only its admin port (a standby RM has no client services).
func (c *Control) StartRM(ctx context.Context, id string) error {
	if _, err := c.call(ctx, http.MethodPost, "/rm/start", url.Values{"rm": {id}}); err != nil {
		return err
	}
	addr := c.env[strings.ToUpper(id)+"_ADMIN_ADDRESS"]
	if addr == "" {
		addr = c.RMAddress(id)
	}
	return c.dial(ctx, "/rm/start", addr)
}

// ActivateRM makes ResourceManager id the active one (a forced manual
// failover) and returns once every running NodeManager is RUNNING at it.
func (c *Control) ActivateRM(ctx context.Context, id string) error {
	_, err := c.call(ctx, http.MethodPost, "/rm/active", url.Values{"rm": {id}})
	return err
}

// StandbyRM makes ResourceManager id a standby.
func (c *Control) StandbyRM(ctx context.Context, id string) error {
	_, err := c.call(ctx, http.MethodPost, "/rm/standby", url.Values{"rm": {id}})
	return err
}

// RMStates maps each RM id to ACTIVE, STANDBY, STOPPED (or another
// HAServiceState name).
func (c *Control) RMStates(ctx context.Context) (map[string]string, error) {
	body, err := c.call(ctx, http.MethodGet, "/rm/state", nil)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		if id, st, ok := strings.Cut(line, " "); ok {
			out[id] = st
		}
	}
	return out, nil
}

// ActiveRM is the id of the active RM, or an error naming the states.
func (c *Control) ActiveRM(ctx context.Context) (string, error) {
	st, err := c.RMStates(ctx)
	if err != nil {
		return "", err
	}
	for _, id := range c.RMIDs() {
		if st[id] == "ACTIVE" {
			return id, nil
		}
	}
	return "", &ControlError{Verb: "/rm/state", Addr: c.addr, Err: fmt.Errorf("no active RM: %v", st)}
}

// StopNameNode stops the NameNode.
func (c *Control) StopNameNode(ctx context.Context) error {
	_, err := c.call(ctx, http.MethodPost, "/nn/stop", nil)
	return err
}

// StartNameNode starts the NameNode again on its ports and returns once it
// is active with its DataNodes.
func (c *Control) StartNameNode(ctx context.Context) error {
	if _, err := c.call(ctx, http.MethodPost, "/nn/start", nil); err != nil {
		return err
	}
	u, err := url.Parse(c.env["NAMENODE"])
	if err != nil {
		return &ControlError{Verb: "/nn/start", Addr: c.addr, Err: fmt.Errorf("NAMENODE=%q: %w", c.env["NAMENODE"], err)}
	}
	return c.dial(ctx, "/nn/start", u.Host)
}

// StopNodeManager stops NodeManager i (0-based, as NMi_* in cluster.env).
// Its containers outlive it only if its recovery settings say so
// (yarn.nodemanager.recovery.enabled and .supervised, as on the faults
// cluster).
func (c *Control) StopNodeManager(ctx context.Context, i int) error {
	_, err := c.call(ctx, http.MethodPost, "/nm/stop", url.Values{"nm": {strconv.Itoa(i)}})
	return err
}

// StopNodeManagerKilling stops NodeManager i as a NodeManager without
// (supervised) recovery stops, whatever its settings: it kills its
// containers and leaves the RM. The next StartNodeManager starts it with
// the cluster's settings again.
func (c *Control) StopNodeManagerKilling(ctx context.Context, i int) error {
	_, err := c.call(ctx, http.MethodPost, "/nm/stop", url.Values{"nm": {strconv.Itoa(i)}, "containers": {"kill"}})
	return err
}

// StartNodeManager starts NodeManager i again with its ports and
// directories and returns once the active RM has it RUNNING.
func (c *Control) StartNodeManager(ctx context.Context, i int) error {
	if _, err := c.call(ctx, http.MethodPost, "/nm/start", url.Values{"nm": {strconv.Itoa(i)}}); err != nil {
		return err
	}
	return c.dial(ctx, "/nm/start", c.env["NM"+strconv.Itoa(i)+"_NODE_ID"])
}

// bound is what is left of ctx's deadline, or DefaultControlBound.
func bound(ctx context.Context) (context.Context, context.CancelFunc, time.Duration) {
	if d, ok := ctx.Deadline(); ok {
		return ctx, func() {}, time.Until(d)
	}
	c, cancel := context.WithTimeout(ctx, DefaultControlBound)
	return c, cancel, DefaultControlBound
}

func (c *Control) call(ctx context.Context, method, verb string, q url.Values) (string, error) {
	ctx, cancel, b := bound(ctx)
	defer cancel()
	fail := func(err error) (string, error) {
		return "", &ControlError{Verb: verb, Addr: c.addr, Bound: b.Round(time.Millisecond), Err: err}
	}
	if b <= 0 {
		return fail(context.DeadlineExceeded)
	}
	if q == nil {
		q = url.Values{}
	}
	// The launcher gives up a little before we do, so its answer (504 and
	// what it was doing) arrives instead of our own timeout.
	q.Set("timeout_ms", strconv.FormatInt(max(1, (b-b/10).Milliseconds()), 10))
	req, err := http.NewRequestWithContext(ctx, method, "http://"+c.addr+verb+"?"+q.Encode(), nil)
	if err != nil {
		return fail(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fail(err)
	}
	defer func() { _ = resp.Body.Close() }() // read in full below
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fail(err)
	}
	text := strings.TrimSpace(string(body))
	if resp.StatusCode != http.StatusOK {
		return fail(fmt.Errorf("HTTP %d: %s", resp.StatusCode, text))
	}
	return text, nil
}

// dial waits until addr takes TCP connections.
func (c *Control) dial(ctx context.Context, verb, addr string) error {
	ctx, cancel, b := bound(ctx)
	defer cancel()
	var d net.Dialer
	for {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return conn.Close()
		}
		select {
		case <-ctx.Done():
			return &ControlError{Verb: verb, Addr: c.addr, Bound: b.Round(time.Millisecond),
				Err: errors.Join(fmt.Errorf("%s takes no connections", addr), err)}
		case <-time.After(100 * time.Millisecond):
		}
	}
}
