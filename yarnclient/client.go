package yarnclient

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/kerberos"
	"github.com/ebb-am/ebb/security"
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
	Labels(ctx context.Context) (yarn.Labels, error)
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
	sharedStore
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
	// HashCache is a file where the binary's SHA-256 is kept between
	// submits, with the binary's identity (hashcache.go); empty: hash it
	// every time.
	HashCache string
	// RM talks to the ResourceManager; nil means a yarn.Client of
	// Conf.RMAddresses() (several under RM HA). The Client closes it.
	RM RM
	// DialFS opens the staging file system; nil means HDFS at
	// Conf.DefaultFS() as User.
	DialFS func() (Store, error)
	// RMRetryLog, when set, is told of the retries of calls to the
	// ResourceManager while it restarts or fails over (the first, every
	// tenth, the answer that ends them), and of each retry of a call to
	// HDFS while its NameNode does not answer, so a user sees why a
	// command waits.
	RMRetryLog func(format string, args ...any)
	// Kerberos says where the Kerberos credentials are (ticket cache, or
	// principal and keytab) when the cluster's
	// hadoop.security.authentication is kerberos; ignored otherwise.
	Kerberos kerberos.Options
}

// Client is one user's gateway to ebb on one cluster.
type Client struct {
	// Settled lists the output commits RemoveStaging settled after their
	// application ended, one line each, for the command to print.
	Settled []string
	conf    *conf.Config
	user    string
	binary  string
	// hashCache: Options.HashCache.
	hashCache string
	rm        RM
	dialFS    func() (Store, error)
	// sec and login are set on a secure cluster: the RM and HDFS are
	// reached with Kerberos, and submissions carry delegation tokens.
	sec   security.Config
	login *kerberos.Login
	// keytab is set when the login is from --principal/--keytab: the
	// keytab and krb5.conf are shipped to the AM (Krb5Conf resolved).
	keytab kerberos.Options
}

// New returns a Client; Close it when done.
func New(o Options) (*Client, error) {
	if o.Conf == nil {
		return nil, errors.New("yarnclient: no configuration")
	}
	c := &Client{conf: o.Conf, user: o.User, binary: o.Binary, hashCache: o.HashCache, rm: o.RM, dialFS: o.DialFS}
	if err := c.secure(o); err != nil {
		return nil, err
	}
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
		rc, err := o.Conf.RMConnect()
		if err != nil {
			return nil, err
		}
		addrs := o.Conf.RMAddresses()
		opts := append([]yarnrpc.Option{yarnrpc.WithTimeouts(connect, call)}, c.sec.RMOptions(c.login)...)
		opts = append(opts, RMConnectOptions(rc, len(addrs))...)
		rm := yarn.NewHAClient(addrs, c.user, opts...)
		rm.SetRetry(RMRetry(rc))
		rm.SetRetryLog(o.RMRetryLog)
		c.rm = rm
	}
	if c.dialFS == nil {
		retry, err := hdfsfs.ClientRetryFrom(o.Conf.Raw)
		if err != nil {
			return nil, err
		}
		c.dialFS = func() (Store, error) { return c.dialHDFS(o.Conf.DefaultFS(), retry, o.RMRetryLog) }
	}
	return c, nil
}

// RMRetry is the Retry the RM retry keys (conf.RMConnect) describe, for
// every client of the ResourceManager: the gateway's and the AM's.
func RMRetry(rc conf.RMConnect) yarn.Retry {
	return yarn.Retry{MaxWait: rc.MaxWait, Interval: rc.Interval, FailoverAttempts: rc.FailoverAttempts,
		FailoverBase: rc.FailoverBase, FailoverMax: rc.FailoverMax}
}

// RMConnectOptions are the yarnrpc options of a client of one of n RMs:
// under RM HA a connection to one RM is tried 1 + yarn.client.failover-retries
// times before the call fails over (Hadoop sets its IPC connect retries so).
func RMConnectOptions(rc conf.RMConnect, n int) []yarnrpc.Option {
	if n <= 1 {
		return nil
	}
	return []yarnrpc.Option{yarnrpc.WithRetry(1+rc.FailoverRetries, 0, 0)}
}

// loginTimeout bounds the Kerberos login and the HDFS handshake.
const loginTimeout = 30 * time.Second

// secure reads the cluster's security keys and, on a Kerberos cluster,
// logs in: the user is then the principal's short name.
func (c *Client) secure(o Options) error {
	sec, err := security.ConfigFrom(func(k string) string {
		v, _ := o.Conf.Raw(k)
		return v
	})
	if err != nil {
		return err
	}
	c.sec = sec
	if !sec.Kerberos {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), loginTimeout)
	defer cancel()
	login, err := sec.Login(ctx, o.Kerberos)
	if err != nil {
		return fmt.Errorf("the cluster uses Kerberos (%s=kerberos): %w", security.KeyAuthentication, err)
	}
	c.login = login
	if o.Kerberos.Keytab != "" {
		c.keytab = kerberos.Options{Principal: login.Principal(), Keytab: o.Kerberos.Keytab,
			Krb5Conf: kerberos.ConfigPath(o.Kerberos.Krb5Conf)}
	}
	if c.user == "" {
		c.user = login.ShortName()
	}
	return nil
}

// tokens are the delegation tokens an application on a secure cluster
// carries (nil on an insecure one), as a Credentials blob for the AM's
// launch context: the AM and its workers have no Kerberos ticket.
func (c *Client) tokens(ctx context.Context) ([]byte, error) {
	if c.login == nil {
		return nil, nil
	}
	creds, err := c.sec.ObtainTokens(ctx, c.login, c.conf.DefaultFS(), c.conf.RMAddress())
	if err != nil {
		return nil, err
	}
	return creds.MarshalWritable(), nil
}

// Close ends the connection to the ResourceManager.
func (c *Client) Close() error {
	if c.login != nil {
		c.login.Close()
	}
	return c.rm.Close()
}

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

// dialHDFS opens the staging file system under a gateway's retry policy
// (hdfsfs.ClientRetryFrom: as Hadoop's own client, one try unless
// dfs.client.retry.policy.enabled), as every call on it then is; log,
// when set, hears of each retry.
func (c *Client) dialHDFS(defaultFS string, retry hdfsfs.Retry, log func(format string, args ...any)) (Store, error) {
	told := func(what string, err error, next time.Duration) {
		if log != nil {
			log("%s", hdfsfs.RetryNote(what, err, next))
		}
	}
	fs, err := retry.Dial(context.Background(), defaultFS, func(ctx context.Context) (*hdfsfs.FS, error) {
		ctx, cancel := context.WithTimeout(ctx, loginTimeout)
		defer cancel()
		return c.sec.DialHDFS(ctx, defaultFS, c.login, nil, c.user)
	}, told)
	if err != nil {
		return nil, err
	}
	return fs, nil
}
