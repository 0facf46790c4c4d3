package yarnclient

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/yarnrpc"
)

// AppType is the YARN application type of every ebb AM.
const AppType = "EBB"

// SessionTag marks session AMs, so discovery finds one and not a
// single-DAG application of the same user.
const SessionTag = "ebb-session"

// RM is what the client asks the ResourceManager.
type RM interface {
	NewApp(ctx context.Context) (yarn.AppID, yarn.Resource, error)
	Submit(ctx context.Context, s yarn.AppSpec) error
	Report(ctx context.Context, id yarn.AppID) (yarn.AppReport, error)
	Apps(ctx context.Context, types []string, states []yarn.AppState, users []string) ([]yarn.AppReport, error)
	Kill(ctx context.Context, id yarn.AppID, diagnostics string) (bool, error)
	Close() error
}

var _ RM = (*yarn.Client)(nil)

// Store is the file system the staging directory lives in (HDFS).
type Store interface {
	MkdirPrivate(dir string) error
	Upload(local, p string, mode os.FileMode) (hdfsfs.FileStamp, error)
	WriteFile(p string, data []byte, mode os.FileMode) (hdfsfs.FileStamp, error)
	ReadFile(p string) ([]byte, error)
	RemoveAll(p string) error
	List(dir string) ([]hdfsfs.Entry, error)
	URL(p string) string
	// Resolve finds where an output location lives, to check it before
	// submitting (commit.Resolver).
	Resolve(location string) (commit.FS, string, error)
	Close() error
}

var _ Store = (*hdfsfs.FS)(nil)

// Options make a Client. Only Conf is required.
type Options struct {
	// Conf is the client's configuration: the RM and NameNode addresses
	// (from HADOOP_CONF_DIR), the AM's container, and what is staged for
	// the AM to run with.
	Conf *conf.Config
	// User is who the application runs as; empty means User().
	User string
	// Binary is the ebb executable to stage for the AM and its workers;
	// empty means this process's own.
	Binary string
	// RM talks to the ResourceManager; nil means a yarn.Client of
	// Conf.RMAddresses() (several under RM HA). The Client closes it.
	RM RM
	// DialFS opens the staging file system; nil means HDFS at
	// Conf.DefaultFS() as User.
	DialFS func() (Store, error)
}

// Client is one user's gateway to ebb on one cluster.
type Client struct {
	conf   *conf.Config
	user   string
	binary string
	rm     RM
	dialFS func() (Store, error)
}

// New returns a Client; Close it when done.
func New(o Options) (*Client, error) {
	if o.Conf == nil {
		return nil, errors.New("yarnclient: no configuration")
	}
	c := &Client{conf: o.Conf, user: o.User, binary: o.Binary, rm: o.RM, dialFS: o.DialFS}
	if c.user == "" {
		c.user = User()
	}
	if c.rm == nil {
		if err := o.Conf.CheckYARNSite(); err != nil {
			return nil, err
		}
		connect, call, err := o.Conf.RPCTimeouts()
		if err != nil {
			return nil, err
		}
		c.rm = yarn.NewHAClient(o.Conf.RMAddresses(), c.user, yarnrpc.WithTimeouts(connect, call))
	}
	if c.dialFS == nil {
		c.dialFS = func() (Store, error) { return hdfsfs.Dial(o.Conf.DefaultFS(), c.user) }
	}
	return c, nil
}

// Close ends the connection to the ResourceManager.
func (c *Client) Close() error { return c.rm.Close() }

// User is the YARN user, as Hadoop clients find it: HADOOP_USER_NAME,
// then the login user.
func User() string {
	if u := os.Getenv("HADOOP_USER_NAME"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "root"
}

// ErrNoResourceManager: the configuration names no ResourceManager (no
// yarn.resourcemanager.address, no HADOOP_CONF_DIR with a yarn-site.xml),
// so there is no cluster to talk to (conf.Config.CheckYARNSite).
var ErrNoResourceManager = conf.ErrNoYARNSite

// ErrNoSession: the user has no running ebb session.
var ErrNoSession = errors.New("no running ebb session")

// AppError is an application that ended without succeeding, or that
// ended while the caller waited for it to run.
type AppError struct {
	ID          yarn.AppID
	State       yarn.AppState
	Final       yarn.FinalStatus
	Diagnostics string
}

func (e *AppError) Error() string {
	return fmt.Sprintf("application %s %s (%s): %s", e.ID, e.State, e.Final, e.Diagnostics)
}

func appError(rep yarn.AppReport) *AppError {
	return &AppError{ID: rep.ID, State: rep.State, Final: rep.Final, Diagnostics: rep.Diagnostics}
}

// Report is the application's report from the ResourceManager.
func (c *Client) Report(ctx context.Context, id yarn.AppID) (yarn.AppReport, error) {
	rep, err := c.rm.Report(ctx, id)
	if err != nil {
		return rep, fmt.Errorf("report of %s: %w", id, err)
	}
	return rep, nil
}
