package amhost

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/amconf"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/recovery"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/internal/rolllog"
	"github.com/ebb-am/ebb/recoverylog"
	"github.com/ebb-am/ebb/security"
	"github.com/ebb-am/ebb/yarnclient"
	"github.com/ebb-am/ebb/yarnrpc"
)

// YarnOptions are `ebb am`'s flags.
type YarnOptions struct {
	// ConfPath: the configuration ebb submit shipped.
	ConfPath string
	// DAGPath: a DAG to run (the AM ends with it unless it is a
	// session); DAGName: its file's name as the user gave it.
	DAGPath, DAGName string
	// Output overrides the DAG's; Overwrite replaces one that holds
	// results once the DAG succeeds.
	Output    string
	Overwrite bool
	// LogDir: the container's log dir, for am.log (empty: stderr only).
	LogDir string
}

// YarnAM is one AM attempt in its container.
type YarnAM struct {
	o       YarnOptions
	log     *logrus.Logger
	c       *conf.Config
	a       *am.AM
	world   *yarn.World
	fs      *hdfsfs.FS
	staging string // path in HDFS
	start   time.Time
	// last: this is the application's last attempt (MAX_APP_ATTEMPTS), so
	// nothing will need the staging directory after it, however it ends.
	last bool
	rec  *recovery.Recorder
	// resumed: the DAGs of earlier attempts, in the order accepted (the
	// first is the one `ebb submit` started the application with).
	resumed []string
	// stopRefresh ends the delegation tokens' refresher (a no-op without
	// a keytab).
	stopRefresh func()
}

// yarnStart is what StartYarn's steps hand each other.
type yarnStart struct {
	o       YarnOptions
	env     YarnEnv
	log     *logrus.Logger
	start   time.Time
	cid     yarn.ContainerID
	creds   *yarnrpc.Credentials
	c       *conf.Config
	user    string
	fs      *hdfsfs.FS
	toks    *hdfsfs.Tokens // the AM's own HDFS tokens (nil: SIMPLE)
	workerT []byte         // the HDFS tokens workers get
	staging string
	last    bool
	secret  string
	rec     *am.Recovery
	records []recoverylog.Record
	a       *am.AM
	ui      *yarnUIState
	minMB   int64 // yarn.scheduler.minimum-allocation-mb
	host    string
	w       *yarn.World
	// tracking, amAddr, nodes: for the registration's log line.
	tracking, amAddr string
	nodes            int
	stopRefreshFn    func()
}

// StartYarn starts this AM attempt in its YARN container, one named step
// after another; start is when the process started (for the log). An
// attempt that fails before it registers removes the staging directory
// when it was the application's last.
func StartYarn(ctx context.Context, o YarnOptions, env YarnEnv, log *logrus.Logger, start time.Time) (*YarnAM, error) {
	s := &yarnStart{o: o, env: env, log: log, start: start}
	if err := s.readConfiguration(); err != nil {
		return nil, err
	}
	if err := s.openStaging(ctx); err != nil {
		return nil, err
	}
	err := s.afterStaging(ctx)
	if err != nil {
		s.abandon()
		return nil, err
	}
	return &YarnAM{o: o, log: log, c: s.c, a: s.a, world: s.w, fs: s.fs, staging: s.staging, start: start, last: s.last,
		rec: s.rec.Recorder, resumed: resumedDAGs(s.records), stopRefresh: s.stopRefreshFn}, nil
}

// afterStaging runs the steps that need the staging directory open.
func (s *yarnStart) afterStaging(ctx context.Context) error {
	if err := s.openRecovery(); err != nil {
		return err
	}
	for _, step := range []func(context.Context) error{s.buildAM, s.buildWorld, s.registerAndRecover, s.startTokenRefresh} {
		if err := step(ctx); err != nil {
			_ = s.rec.Recorder.Close() // nothing was recorded by an attempt that did not start
			return err
		}
	}
	s.a.SetWorld(s.w)
	s.w.Start()
	return nil
}

// abandon: this attempt fails before it could register; the RM starts
// another unless it was the last, and then nobody needs the binary, the
// configuration or the secret any more.
func (s *yarnStart) abandon() {
	if s.last {
		if rerr := s.fs.RemoveAll(s.staging); rerr != nil {
			s.log.Warnf("ebb am: the last attempt failed and could not remove %s: %v", s.staging, rerr)
		}
	}
	_ = s.fs.Close() // this attempt is over; nothing is open on it
}

// readConfiguration reads the container id, the AM's tokens and the
// configuration (a small one comes inline in the token file), and rolls
// the log into am.log as the configuration says.
func (s *yarnStart) readConfiguration() error {
	cid, err := yarn.ParseContainerID(s.env.ContainerID)
	if err != nil {
		return fmt.Errorf("CONTAINER_ID: %w", err)
	}
	s.cid = cid
	if s.creds, err = yarnrpc.ReadCredentialsFile(s.env.TokenFile); err != nil {
		return fmt.Errorf("reading the AM's tokens: %w", err)
	}
	// A small configuration and DAG come in the token file, not localized
	// (yarnclient.InlineMaxBytes): into the container's directory, where
	// --conf and --dag name them.
	if _, err := yarnclient.WriteInlineFiles(s.creds, "."); err != nil {
		return err
	}
	c, warns, err := conf.Load(conf.LoadOptions{ConfPath: s.o.ConfPath})
	if err != nil {
		return err
	}
	s.c = c
	if s.o.LogDir != "" {
		roll := rolllog.Roll{MaxBytes: c.Int64("ebb.log.roll.size.kb") * 1024, Keep: c.Int("ebb.log.roll.count")}
		// Not closed: writes are unbuffered and the process's exit closes it.
		if _, err := rolllog.Attach(s.log, s.o.LogDir, rolllog.AMFile, roll, os.Stderr); err != nil {
			return err
		}
	}
	for _, w := range warns {
		s.log.Warn(w.String())
	}
	if _, ok := s.creds.TokenOfKind(yarnrpc.KindAMRMToken); !ok {
		return errors.New("no AMRMToken (kind YARN_AM_RM_TOKEN) in $HADOOP_TOKEN_FILE_LOCATION")
	}
	s.user = yarnclient.User()
	return nil
}

// openStaging opens HDFS and the staging directory, and takes the
// application's secret from it (or makes the first attempt's).
func (s *yarnStart) openStaging(ctx context.Context) error {
	fs, toks, workerTokens, err := amHDFS(ctx, s.c, s.creds, s.user)
	if err != nil {
		return err
	}
	if err := setHDFSRetry(fs, s.c, s.log); err != nil {
		_ = fs.Close() // not used
		return err
	}
	s.fs, s.toks, s.workerT = fs, toks, workerCredentials(workerTokens, s.creds)
	staging, err := fs.Path(s.env.Staging)
	if err != nil || staging == "" {
		staging = yarnclient.StagingDir(s.user, s.cid.Attempt.App)
	}
	s.staging = staging
	s.last = lastAttempt(s.cid.Attempt.Attempt, s.env.MaxAttempts, s.c)
	if s.secret, err = appSecret(fs, staging, s.log); err != nil {
		s.abandon()
		return err
	}
	return nil
}

// openRecovery reads what earlier attempts recorded and starts this
// attempt's recorder after it.
func (s *yarnStart) openRecovery() error {
	var err error
	s.rec, s.records, err = openRecoveryLog(s.fs, s.staging, s.c, s.log)
	return err
}

// buildAM builds the AM: the core's options, its UI, history, committer
// and recovery log.
func (s *yarnStart) buildAM(context.Context) error {
	coreOpts, err := amconf.CoreOptions(s.c, "")
	if err != nil {
		return err
	}
	if s.minMB, err = s.c.MinAllocationMB(); err != nil {
		return err
	}
	uiOpts, uiState := yarnUIOptions(s.c, s.cid, s.user, s.secret)
	s.ui = uiState
	s3 := S3Store(s.c, s.creds)
	history, dagHist, createEvents, err := s.historyParts(s3)
	if err != nil {
		return err
	}
	events, err := openEventLog(s.c, "", createEvents)
	if err != nil {
		return err
	}
	confirmWithin, err := confirmBound(s.c)
	if err != nil {
		return err
	}
	s.a, err = am.New(am.Options{
		Core: coreOpts, Listen: ":0", StatusListen: ":0", Secret: s.secret, Log: s.log,
		Tick: 250 * time.Millisecond, WorkerHeartbeat: s.c.Duration("ebb.am.worker.heartbeat.interval.ms"),
		FS: withS3(hdfsfs.Lister{FS: s.fs}, s3), OutputRoot: s.fs.URL("/user/" + s.user + "/ebb-output"), DefaultFS: s.fs.URL(""), UI: uiOpts,
		Committer: commit.New(withS3Resolver(s.fs.Resolve, s3)).AfterStep(am.CommitStepLog(s.log, s.c.String("ebb.fault.commit.hold.after"), int(s.cid.Attempt.Attempt))),
		History:   history, HistoryEvery: s.c.Duration("ebb.history.checkpoint.interval.secs"), DAGHistory: dagHist,
		Recovery: s.rec, EventLog: events, HoldAt: firstAttemptOnly(s.c.String("ebb.fault.am.hold.at"), int(s.cid.Attempt.Attempt)),
		ConfirmWithin: confirmWithin, CommitRetry: s.fs.Do,
	})
	if err != nil && events != nil {
		_ = events.Close() // nothing worth keeping was recorded
	}
	return err
}

// buildWorld publishes the secret and the AM's address in the staging
// directory, lists the cluster's nodes and builds the YARN world.
func (s *yarnStart) buildWorld(ctx context.Context) error {
	c, fs, app := s.c, s.fs, s.cid.Attempt.App
	s.host = s.env.NMHost
	if s.host == "" {
		s.host, _ = os.Hostname()
	}
	port, statusPort := portOf(s.a.Addr()), portOf(s.a.StatusAddr())
	tracking := "http://" + net.JoinHostPort(s.host, strconv.Itoa(statusPort)) + "/"
	// Clients read the secret here; workers get it in their containers'
	// token files.
	if _, err := fs.WriteFile(s.staging+"/"+yarnclient.StagedSecret, []byte(s.secret), 0o600); err != nil {
		return fmt.Errorf("writing the secret for clients: %w", err)
	}
	// The shared binary the client gave this container, for the workers.
	binary, err := yarnclient.WorkerBinary(fs, s.env.binaryEnv)
	if err != nil {
		return err
	}
	connect, call, err := c.RPCTimeouts()
	if err != nil {
		return err
	}
	timeouts := yarnrpc.WithTimeouts(connect, call)
	rc, err := c.RMConnect()
	if err != nil {
		return err
	}
	nodes, labels, err := clusterNodes(ctx, c, s.creds, s.user, rc, timeouts, s.log)
	if err != nil {
		return err
	}
	s.ui.setNodes(nodes)
	s.nodes = len(nodes)
	includePort, _ := c.Raw("yarn.scheduler.include-port-in-node-name")
	retrySpec, err := hdfsRetrySpec(c)
	if err != nil {
		return err
	}
	amAddr := net.JoinHostPort(s.host, strconv.Itoa(port))
	s.amAddr, s.tracking = amAddr, tracking
	// Workers (this attempt's and those of an earlier one that YARN kept)
	// find the current attempt here.
	amFile := s.staging + "/" + stagedAMAddress
	if _, err := fs.WriteFile(amFile, []byte(amAddr+"\n"), 0o600); err != nil {
		return fmt.Errorf("publishing the AM's address: %w", err)
	}
	amrm, _ := s.creds.TokenOfKind(yarnrpc.KindAMRMToken)
	a := s.a
	s.w = yarn.New(yarn.Options{
		RM:        yarn.NewHARMPort(amrmClients(c.RMSchedulerAddresses(), amrm, rc, timeouts), yarnclient.RMRetry(rc)).Logging(s.log.Warnf),
		NM:        yarn.NewNMPort(timeouts),
		Heartbeat: c.Duration("mr3.am.rm.heartbeat.interval.ms"), InitialAllocation: c.Duration("ebb.am.rm.heartbeat.initial.interval.ms"),
		Host: s.host, Port: int32(port), TrackingURL: tracking,
		FinalTrackingURL: yarn.FinalTrackingURL(RMWebapp(c), app),
		Worker: yarn.WorkerLaunch{Binary: binary,
			AMAddress: amAddr, Secret: s.secret, Env: map[string]string{"HADOOP_USER_NAME": s.user}, AMFile: fs.URL(amFile),
			Tokens: s.workerT, LogRollKB: c.Int64("ebb.log.roll.size.kb"), LogRollCount: c.Int("ebb.log.roll.count"),
			HDFSRetrySpec: retrySpec},
		InAM:  s.inAM(),
		Nodes: nodes, Labels: labels, IncludePort: strings.TrimSpace(includePort) == "true", Log: s.log, Events: a.Loop(),
		OnShutdown: func(reason string) { a.Stop(reason) },
	})
	s.ui.setWorld(s.w)
	return nil
}

// inAM is the AM's own container, where small DAGs' in-AM worker runs
// (ebb.am.uber.enabled): this binary, node and directories.
func (s *yarnStart) inAM() yarn.InAM {
	exe, err := os.Executable()
	if err != nil {
		s.log.Warnf("ebb am: no in-AM worker for small DAGs: %v", err)
		return yarn.InAM{}
	}
	dir, _ := os.Getwd()
	node := ""
	if s.env.NMPort != "" {
		node = net.JoinHostPort(s.host, s.env.NMPort)
	}
	return yarn.InAM{Executable: exe, ContainerID: s.cid.String(), Node: node, Host: s.host, Dir: dir, LogDir: s.o.LogDir}
}

// clusterNodes lists the cluster's NodeManagers and node labels once, at
// start. Labels that cannot be listed are not known: nothing is then
// refused for its label (the RM still refuses an unknown one).
func clusterNodes(ctx context.Context, c *conf.Config, creds *yarnrpc.Credentials, user string, rc conf.RMConnect, timeouts yarnrpc.Option, log *logrus.Logger) ([]yarn.NodeReport, yarn.Labels, error) {
	addrs := c.RMAddresses()
	rmc := yarn.NewHAClient(addrs, user, append(yarnclient.RMConnectOptions(rc, len(addrs)), timeouts)...)
	rmc.SetRetry(yarnclient.RMRetry(rc))
	if rmTok, ok := creds.TokenOfKind(yarnrpc.KindRMDelegationToken); ok {
		// A secure cluster: no Kerberos here, the client's RM token instead.
		rmc = yarn.NewTokenClient(addrs, rmTok, append(yarnclient.RMConnectOptions(rc, len(addrs)), timeouts)...)
		rmc.SetRetry(yarnclient.RMRetry(rc))
	}
	defer func() { _ = rmc.Close() }() // only these two lists go over it
	nodes, err := rmc.Nodes(ctx)
	if err != nil {
		return nil, yarn.Labels{}, fmt.Errorf("listing the cluster's nodes: %w", err)
	}
	labels, err := rmc.Labels(ctx)
	if err != nil {
		log.Warnf("ebb am: listing the cluster's node labels: %v (a group's unknown nodeLabel is then left to the RM)", err)
	}
	return nodes, labels, nil
}

// registerAndRecover registers with the RM and recovers the DAGs of the
// earlier attempts from the recovery log.
func (s *yarnStart) registerAndRecover(ctx context.Context) error {
	reg, err := s.w.Register(ctx)
	if err != nil {
		return err
	}
	s.ui.setQueue(reg.Queue)
	app := s.cid.Attempt.App
	// Groups whose DAG leaves the worker size to ebb are sized within
	// what the RM grants: asks round up to the minimum allocation.
	s.a.SetAllocation(core.AllocationLimits{MinMB: s.minMB, MaxMB: reg.Max.MemoryMB})
	s.log.Infof("ebb am: history goes to %s/%s.json (ebb history %s)", HistoryDir(s.c, s.user), app, app)
	s.log.Infof("ebb am: %s registered after %s (since the process started) at %s, tracking URL %s; largest container %d MB / %d vcores; %d nodes",
		app, time.Since(s.start).Round(time.Millisecond), s.amAddr, s.tracking, reg.Max.MemoryMB, reg.Max.VCores, s.nodes)
	// Workers of earlier attempts that YARN kept (containers from previous
	// attempts) are given the recovery window to come back with the
	// outputs they hold; without any there is nothing to wait for.
	window := time.Duration(0)
	var expect []string
	if len(reg.Previous) > 0 {
		window = workerReturnWindow
	}
	for _, pc := range reg.Previous {
		expect = append(expect, pc.ID.String())
	}
	if err := s.a.Recover(s.records, core.RecoverOptions{Window: window, Off: !s.c.Bool("mr3.dag.recovery.enabled"), Expect: expect, AMAttempt: int(s.cid.Attempt.Attempt)}); err != nil {
		return fmt.Errorf("recovering the DAGs of the earlier attempt: %w", err)
	}
	return nil
}

// startTokenRefresh starts the delegation tokens' refresher (a keytab
// was shipped) or says when HDFS access ends (none was).
func (s *yarnStart) startTokenRefresh(context.Context) error {
	sec, err := amSecurity(s.c)
	if err != nil {
		return err
	}
	s.stopRefreshFn, err = startTokenRefresh(s.log, s.c, sec, s.creds, s.env.Principal, tokenUsers{hdfs: s.toks, am: s.a, world: s.w, s3: s3Secrets(s.creds)})
	return err
}

// amHDFS opens HDFS for the AM: on a secure cluster with the HDFS
// delegation token the client put in the AM's credentials (the AM has no
// Kerberos ticket), through replaceable Tokens (a keytab's refresher
// replaces them), and returns the tokens its workers get (the HDFS tokens
// only: never the AMRMToken); SIMPLE as user otherwise.
func amHDFS(ctx context.Context, c *conf.Config, creds *yarnrpc.Credentials, user string) (*hdfsfs.FS, *hdfsfs.Tokens, []byte, error) {
	sec, err := amSecurity(c)
	if err != nil {
		return nil, nil, nil, err
	}
	if !sec.Kerberos {
		fs, err := hdfsfs.Dial(c.DefaultFS(), user)
		return fs, nil, nil, err
	}
	toks := hdfsfs.NewTokens(creds)
	fs, err := hdfsfs.DialTokens(ctx, c.DefaultFS(), toks)
	if err != nil {
		return nil, nil, nil, err
	}
	return fs, toks, hdfsTokens(creds).MarshalWritable(), nil
}

// amSecurity is the security part of the AM's configuration.
func amSecurity(c *conf.Config) (security.Config, error) {
	return security.ConfigFrom(func(k string) string {
		v, _ := c.Raw(k)
		return v
	})
}

// lastAttempt says whether attempt is the application's last: the NM
// tells the AM container the RM's effective maximum (MAX_APP_ATTEMPTS,
// which yarn.resourcemanager.am.max-attempts may have lowered); without it
// the configured mr3.am.max.app.attempts counts.
func lastAttempt(attempt int32, maxEnv string, c *conf.Config) bool {
	maxAttempts, err := strconv.Atoi(maxEnv)
	if err != nil || maxAttempts <= 0 {
		maxAttempts = c.Int("mr3.am.max.app.attempts")
	}
	return int(attempt) >= maxAttempts
}

// amrmClients is one ApplicationMasterProtocol client per RM (several
// under RM HA); the AMRMToken is valid at each.
func amrmClients(addrs []string, amrm yarnrpc.Token, rc conf.RMConnect, opts ...yarnrpc.Option) []*yarnrpc.AMRMClient {
	opts = append(yarnclient.RMConnectOptions(rc, len(addrs)), opts...)
	out := make([]*yarnrpc.AMRMClient, 0, len(addrs))
	for _, a := range addrs {
		out = append(out, yarnrpc.NewAMRMClient(a, amrm, opts...))
	}
	return out
}

// RMWebapp is the RM's web address (yarn.resourcemanager.webapp.address,
// else yarn.resourcemanager.hostname with the default port 8088).
func RMWebapp(c *conf.Config) string {
	if v, ok := c.Raw("yarn.resourcemanager.webapp.address"); ok && strings.TrimSpace(v) != "" {
		return v
	}
	if h, ok := c.Raw("yarn.resourcemanager.hostname"); ok && strings.TrimSpace(h) != "" {
		return net.JoinHostPort(strings.TrimSpace(h), "8088")
	}
	return ""
}

func portOf(addr string) int {
	_, p, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(p)
	return n
}

// firstAttemptOnly is a fault hold point for the application's first AM
// attempt; later attempts must never hold, or recovery would stop too.
func firstAttemptOnly(holdAt string, attempt int) string {
	if attempt != 1 {
		return ""
	}
	return holdAt
}

// confirmBound bounds the AM's wait, before a promotion, for the RM to
// confirm the attempt is current (am.Options.ConfirmWithin): the RM's
// liveness bound (yarn.am.liveness-monitor.expiry-interval-ms), or the
// RM client's own (yarn.resourcemanager.connect.max-wait.ms) when longer,
// since an RM that restarts recovers the attempt and does not expire it
// for its time away.
func confirmBound(c *conf.Config) (time.Duration, error) {
	liveness, err := c.AMLiveness()
	if err != nil {
		return 0, err
	}
	rc, err := c.RMConnect()
	if err != nil {
		return 0, err
	}
	return max(liveness, rc.MaxWait), nil
}

// hdfsRetrySpec is dfs.client.retry.policy.spec as the AM's configuration
// says ("" when unset: the workers use Hadoop's default), checked here so
// that a bad one fails the AM with the key named, not every worker.
func hdfsRetrySpec(c *conf.Config) (string, error) {
	v, ok := c.Raw(hdfsfs.RetrySpecKey)
	if !ok || strings.TrimSpace(v) == "" {
		return "", nil
	}
	if _, err := hdfsfs.ParseRetry(v); err != nil {
		return "", err
	}
	return strings.TrimSpace(v), nil
}

// setHDFSRetry makes the AM's HDFS calls (the recovery log, the
// history, listing inputs, promotions) wait out a NameNode that does not
// answer within dfs.client.retry.policy.spec (Hadoop's default when
// unset), each retry told in the AM's log.
func setHDFSRetry(fs *hdfsfs.FS, c *conf.Config, log *logrus.Logger) error {
	r, err := hdfsfs.RetryFrom(c.Raw)
	if err != nil {
		return err
	}
	fs.SetRetry(r, func(what string, err error, next time.Duration) {
		log.Warn(hdfsfs.RetryNote(what, err, next))
	})
	return nil
}
