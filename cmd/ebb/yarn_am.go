package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/recovery"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/internal/rolllog"
	"github.com/ebb-am/ebb/security"
	"github.com/ebb-am/ebb/yarnclient"
	"github.com/ebb-am/ebb/yarnrpc"
)

func newYarnAMCmd() *cobra.Command {
	var o yarnAMOptions
	cmd := &cobra.Command{
		Use:    "am",
		Short:  "Run as the ApplicationMaster in a YARN container (started by `ebb submit`, not by people)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			return runYarnAM(ctx, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.confPath, "conf", yarnclient.StagedConf, "the configuration shipped by ebb submit")
	f.StringVar(&o.dagPath, "dag", "", "a DAG to run (the AM ends with it unless it is a session)")
	f.StringVar(&o.dagName, "dag-name", "", "the DAG file's name as the user gave it, for messages (default: --dag)")
	f.StringVar(&o.output, "output", "", "override the DAG's output")
	f.BoolVar(&o.overwrite, "overwrite", false, "replace an output that already holds results, once the DAG succeeds")
	f.StringVar(&o.logDir, "log-dir", "", "write the log to am.log here, rolled as ebb.log.roll.* say; stderr keeps warnings and errors")
	return cmd
}

type yarnAMOptions struct {
	confPath, dagPath, dagName, output string
	// logDir: the container's log dir, for am.log (empty: stderr only).
	logDir    string
	overwrite bool
}

// yarnAM is one AM attempt in its container.
type yarnAM struct {
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

func runYarnAM(ctx context.Context, o yarnAMOptions) error {
	start := time.Now()
	// stderr until the configuration says how am.log rolls; then am.log,
	// with warnings and errors on stderr too (startYarnAM).
	log := newLogger("info", "", "")
	y, err := startYarnAM(ctx, o, log, start)
	if err != nil {
		log.Errorf("ebb am: %v", err)
		return err
	}
	status, diag := y.run(ctx, o)
	return y.finish(status, diag)
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
func lastAttempt(attempt int32, c *conf.Config) bool {
	maxAttempts, err := strconv.Atoi(os.Getenv("MAX_APP_ATTEMPTS"))
	if err != nil || maxAttempts <= 0 {
		maxAttempts = c.Int("mr3.am.max.app.attempts")
	}
	return int(attempt) >= maxAttempts
}

func startYarnAM(ctx context.Context, o yarnAMOptions, log *logrus.Logger, start time.Time) (y *yarnAM, err error) {
	cid, err := yarn.ParseContainerID(os.Getenv("CONTAINER_ID"))
	if err != nil {
		return nil, fmt.Errorf("CONTAINER_ID: %w", err)
	}
	app := cid.Attempt.App
	creds, err := yarnrpc.ReadCredentialsFile(os.Getenv("HADOOP_TOKEN_FILE_LOCATION"))
	if err != nil {
		return nil, fmt.Errorf("reading the AM's tokens: %w", err)
	}
	// A small configuration and DAG come in the token file, not localized
	// (yarnclient.InlineMaxBytes): into the container's directory, where
	// --conf and --dag name them.
	if _, err := yarnclient.WriteInlineFiles(creds, "."); err != nil {
		return nil, err
	}
	c, warns, err := conf.Load(conf.LoadOptions{ConfPath: o.confPath})
	if err != nil {
		return nil, err
	}
	if o.logDir != "" {
		roll := rolllog.Roll{MaxBytes: c.Int64("ebb.log.roll.size.kb") * 1024, Keep: c.Int("ebb.log.roll.count")}
		// Not closed: writes are unbuffered and the process's exit closes it.
		if _, err := rolllog.Attach(log, o.logDir, rolllog.AMFile, roll, os.Stderr); err != nil {
			return nil, err
		}
	}
	for _, w := range warns {
		log.Warn(w.String())
	}
	amrm, ok := creds.TokenOfKind(yarnrpc.KindAMRMToken)
	if !ok {
		return nil, errors.New("no AMRMToken (kind YARN_AM_RM_TOKEN) in $HADOOP_TOKEN_FILE_LOCATION")
	}
	user := yarnclient.User()
	fs, hdfsToks, workerTokens, err := amHDFS(ctx, c, creds, user)
	if err != nil {
		return nil, err
	}
	staging, err := fs.Path(os.Getenv("EBB_STAGING"))
	if err != nil || staging == "" {
		staging = yarnclient.StagingDir(user, app)
	}
	last := lastAttempt(cid.Attempt.Attempt, c)
	defer func() {
		if err == nil {
			return
		}
		// This attempt fails before it could register; the RM starts
		// another unless it was the last, and then nobody needs the
		// binary, the configuration or the secret any more.
		if last {
			if rerr := fs.RemoveAll(staging); rerr != nil {
				log.Warnf("ebb am: the last attempt failed and could not remove %s: %v", staging, rerr)
			}
		}
		_ = fs.Close() // this attempt is over; nothing is open on it
	}()
	secret, err := appSecret(fs, staging, log)
	if err != nil {
		return nil, err
	}
	rec, records, err := openRecoveryLog(fs, staging, c, log)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = rec.Recorder.Close() // nothing was recorded by an attempt that did not start
		}
	}()
	coreOpts, err := coreOptions(c, "")
	if err != nil {
		return nil, err
	}
	minMB, err := c.MinAllocationMB()
	if err != nil {
		return nil, err
	}
	uiOpts, uiState := yarnUIOptions(c, cid, user, secret)
	histDir, err := fs.Path(historyDir(c, user))
	if err != nil {
		return nil, err
	}
	dagHist := &hdfsDAGHistory{fs: fs, dir: histDir + "/" + app.String()}
	events, err := openEventLog(c, "", func() (io.WriteCloser, error) { return dagHist.createEventLog(cid.Attempt.Attempt) })
	if err != nil {
		return nil, err
	}
	a, err := am.New(am.Options{
		Core: coreOpts, Listen: ":0", StatusListen: ":0", Secret: secret, Log: log,
		Tick: 250 * time.Millisecond, WorkerHeartbeat: c.Duration("ebb.am.worker.heartbeat.interval.ms"),
		FS: hdfsfs.Lister{FS: fs}, OutputRoot: fs.URL("/user/" + user + "/ebb-output"), UI: uiOpts,
		Committer: commit.New(fs.Resolve).AfterStep(am.CommitStepLog(log, c.String("ebb.fault.commit.hold.after"), int(cid.Attempt.Attempt))),
		History:   hdfsHistory(c, fs, user, app.String(), log), HistoryEvery: time.Minute, DAGHistory: dagHist,
		Recovery: rec, EventLog: events,
	})
	if err != nil {
		if events != nil {
			_ = events.Close() // nothing worth keeping was recorded
		}
		return nil, err
	}
	host := os.Getenv("NM_HOST")
	if host == "" {
		host, _ = os.Hostname()
	}
	port, statusPort := portOf(a.Addr()), portOf(a.StatusAddr())
	tracking := "http://" + net.JoinHostPort(host, strconv.Itoa(statusPort)) + "/"
	// Clients read the secret here; workers get it in their containers'
	// token files.
	if _, err := fs.WriteFile(staging+"/"+yarnclient.StagedSecret, []byte(secret), 0o600); err != nil {
		return nil, fmt.Errorf("writing the secret for clients: %w", err)
	}
	// The shared binary the client gave this container, for the workers.
	binary, err := yarnclient.WorkerBinary(fs, os.Getenv)
	if err != nil {
		return nil, err
	}
	connect, call, err := c.RPCTimeouts()
	if err != nil {
		return nil, err
	}
	timeouts := yarnrpc.WithTimeouts(connect, call)
	rmc := yarn.NewHAClient(c.RMAddresses(), user, timeouts)
	if rmTok, ok := creds.TokenOfKind(yarnrpc.KindRMDelegationToken); ok {
		// A secure cluster: no Kerberos here, the client's RM token instead.
		rmc = yarn.NewTokenClient(c.RMAddress(), rmTok, timeouts)
	}
	nodes, err := rmc.Nodes(ctx)
	_ = rmc.Close() // the node list is in; nothing else went over it
	if err != nil {
		return nil, fmt.Errorf("listing the cluster's nodes: %w", err)
	}
	uiState.setNodes(nodes)
	includePort, _ := c.Raw("yarn.scheduler.include-port-in-node-name")
	amAddr := net.JoinHostPort(host, strconv.Itoa(port))
	// Workers (this attempt's and those of an earlier one that YARN kept)
	// find the current attempt here.
	amFile := staging + "/" + stagedAMAddress
	if _, err := fs.WriteFile(amFile, []byte(amAddr+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("publishing the AM's address: %w", err)
	}
	w := yarn.New(yarn.Options{
		RM: yarn.NewHARMPort(amrmClients(c.RMSchedulerAddresses(), amrm, timeouts)), NM: yarn.NewNMPort(timeouts),
		Heartbeat: c.Duration("mr3.am.rm.heartbeat.interval.ms"), InitialAllocation: c.Duration("ebb.am.rm.heartbeat.initial.interval.ms"),
		Host: host, Port: int32(port), TrackingURL: tracking,
		FinalTrackingURL: yarn.FinalTrackingURL(rmWebapp(c), app),
		Worker: yarn.WorkerLaunch{Binary: binary,
			AMAddress: amAddr, Secret: secret, Env: map[string]string{"HADOOP_USER_NAME": user}, AMFile: fs.URL(amFile),
			Tokens: workerTokens, LogRollKB: c.Int64("ebb.log.roll.size.kb"), LogRollCount: c.Int("ebb.log.roll.count")},
		Nodes: nodes, IncludePort: strings.TrimSpace(includePort) == "true", Log: log, Events: a.Loop(),
		OnShutdown: func(reason string) { a.Stop(reason) },
	})
	uiState.setWorld(w)
	reg, err := w.Register(ctx)
	if err != nil {
		return nil, err
	}
	// Groups whose DAG leaves the worker size to ebb are sized within
	// what the RM grants: asks round up to the minimum allocation.
	a.SetAllocation(core.AllocationLimits{MinMB: minMB, MaxMB: reg.Max.MemoryMB})
	log.Infof("ebb am: history goes to %s/%s.json (ebb history %s)", historyDir(c, user), app, app)
	log.Infof("ebb am: %s registered after %s (since the process started) at %s, tracking URL %s; largest container %d MB / %d vcores; %d nodes",
		cid.Attempt.App, time.Since(start).Round(time.Millisecond), amAddr, tracking, reg.Max.MemoryMB, reg.Max.VCores, len(nodes))
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
	if err := a.Recover(records, core.RecoverOptions{Window: window, Off: !c.Bool("mr3.dag.recovery.enabled"), Expect: expect}); err != nil {
		return nil, fmt.Errorf("recovering the DAGs of the earlier attempt: %w", err)
	}
	sec, err := amSecurity(c)
	if err != nil {
		return nil, err
	}
	stopRefresh, err := startTokenRefresh(log, c, sec, creds, tokenUsers{hdfs: hdfsToks, am: a, world: w})
	if err != nil {
		return nil, err
	}
	a.SetWorld(w)
	w.Start()
	return &yarnAM{log: log, c: c, a: a, world: w, fs: fs, staging: staging, start: start, last: last,
		rec: rec.Recorder, resumed: resumedDAGs(records), stopRefresh: stopRefresh}, nil
}

// amrmClients is one ApplicationMasterProtocol client per RM (several
// under RM HA); the AMRMToken is valid at each.
func amrmClients(addrs []string, amrm yarnrpc.Token, opts ...yarnrpc.Option) []*yarnrpc.AMRMClient {
	out := make([]*yarnrpc.AMRMClient, 0, len(addrs))
	for _, a := range addrs {
		out = append(out, yarnrpc.NewAMRMClient(a, amrm, opts...))
	}
	return out
}

// rmWebapp is the RM's web address (yarn.resourcemanager.webapp.address,
// else yarn.resourcemanager.hostname with the default port 8088).
func rmWebapp(c *conf.Config) string {
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

// run serves until the DAG ends (or, in a session, until it has been idle
// too long), a signal or the RM's shutdown order, and returns the final
// status.
func (y *yarnAM) run(ctx context.Context, o yarnAMOptions) (yarn.FinalStatus, string) {
	runCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- y.a.Run(runCtx) }()
	stop := func(s yarn.FinalStatus, diag string) (yarn.FinalStatus, string) {
		y.a.Stop(diag)
		// The loop closed the world: workers stopped, containers released.
		if err := <-done; err != nil {
			y.log.Warnf("ebb am: %v", err)
		}
		return s, diag
	}
	session := y.c.Bool("mr3.am.session.mode")
	if o.dagPath != "" {
		st, diag, ok := y.runDAG(ctx, o, done)
		if !ok {
			return stop(yarn.Killed, diag)
		}
		if !session {
			return stop(st, diag)
		}
	}
	idleMax := y.c.Duration("ebb.session.idle.timeout.secs")
	lastBusy := time.Now()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			y.log.Warn("ebb am: SIGTERM: stopping the workers and unregistering")
			return stop(yarn.Killed, "the AM was terminated (SIGTERM)")
		case err := <-done:
			done <- err
			return stop(yarn.Killed, "the AM stopped: "+y.stopReason(err))
		case now := <-t.C:
			// Idle since the last DAG ended (or is running now): DAGs
			// shorter than this check's period count too.
			act, err := am.Query(ctx, y.a.Loop(), core.ActivityQuery{})
			if err != nil {
				continue // the loop ended or a signal came: the next select says which
			}
			switch {
			case act.Busy:
				lastBusy = now
			case act.LastFinish.After(lastBusy):
				lastBusy = act.LastFinish
			}
			if idleMax > 0 && now.Sub(lastBusy) >= idleMax {
				return stop(yarn.Succeeded, fmt.Sprintf("session idle for %s (ebb.session.idle.timeout.secs)", now.Sub(lastBusy).Round(time.Second)))
			}
		}
	}
}

func (y *yarnAM) stopReason(err error) string {
	if err != nil {
		return err.Error()
	}
	return "ordered by the ResourceManager"
}

// runDAG submits the DAG the AM was started with and waits for its end.
// ok is false when the AM was stopped first.
func (y *yarnAM) runDAG(ctx context.Context, o yarnAMOptions, done chan error) (yarn.FinalStatus, string, bool) {
	spec, err := os.ReadFile(o.dagPath)
	if err != nil {
		return yarn.Failed, err.Error(), true
	}
	name := o.dagName
	if name == "" {
		name = o.dagPath
	}
	if err := checkFits(name, spec, y.world.Max()); err != nil {
		y.log.Errorf("ebb am: %v", err)
		return yarn.Failed, err.Error(), true
	}
	var id string
	if len(y.resumed) > 0 {
		// An earlier attempt accepted the application's DAG: it resumes
		// under its own id instead of starting again.
		id = y.resumed[0]
		y.log.Infof("ebb am: resuming DAG %s of the earlier attempt", id)
	} else if id, err = y.a.Submit(ctx, am.SubmitRequest{Spec: spec, SpecName: name, Output: o.output, Overwrite: o.overwrite, Client: "ebb submit"}); err != nil {
		y.log.Errorf("ebb am: %v", err)
		return yarn.Failed, err.Error(), true
	}
	type result struct {
		s   core.DAGStatus
		err error
	}
	res := make(chan result, 1)
	go func() {
		s, err := y.a.WaitDAG(ctx, id)
		res <- result{s, err}
	}()
	select {
	case r := <-res:
		if r.err != nil {
			y.log.Warn("ebb am: SIGTERM: stopping the workers and unregistering")
			return yarn.Killed, "the AM was terminated (SIGTERM)", false
		}
		s := r.s
		y.log.Infof("ebb am: DAG %s (%s) %s after %s: %s", s.ID, s.Name, s.State, s.Finish.Sub(s.Submit).Round(time.Millisecond), s.Diagnostics)
		// The diagnostics are the client's last line: they carry the counts.
		counts := fmt.Sprintf("%d/%d tasks, %d failed attempts, %s", s.Succeeded, s.TotalTasks, s.Failed, s.Finish.Sub(s.Submit).Round(time.Millisecond))
		switch s.State {
		case core.DAGSucceeded:
			return yarn.Succeeded, fmt.Sprintf("DAG %s (%s) succeeded (%s); output %s", s.ID, s.Name, counts, s.Output), true
		case core.DAGKilled:
			return yarn.Killed, fmt.Sprintf("DAG %s (%s) killed (%s): %s", s.ID, s.Name, counts, s.Diagnostics), true
		default:
			return yarn.Failed, fmt.Sprintf("DAG %s (%s) failed (%s): %s", s.ID, s.Name, counts, s.Diagnostics), true
		}
	case err := <-done:
		done <- err
		return yarn.Killed, "the AM stopped: " + y.stopReason(err), false
	}
}

// checkFits fails a DAG whose workers cannot exist on this cluster: a
// worker container larger than yarn.scheduler.maximum-allocation-mb would
// be asked for forever.
func checkFits(name string, data []byte, max yarn.Resource) error {
	spec, err := dag.Parse(name, data)
	if err != nil {
		return err
	}
	if max.MemoryMB <= 0 {
		return nil
	}
	for _, v := range spec.Vertices {
		if v.MemoryMB > max.MemoryMB {
			return fmt.Errorf("DAG %s: vertex %s asks %d MB per task, more than the cluster's largest container (yarn.scheduler.maximum-allocation-mb=%d)",
				spec.Name, v.Name, v.MemoryMB, max.MemoryMB)
		}
	}
	if spec.Group.WorkerMemoryMB > max.MemoryMB {
		return fmt.Errorf("DAG %s: container group %s asks %d MB workers, more than the cluster's largest container (yarn.scheduler.maximum-allocation-mb=%d)",
			spec.Name, spec.Group.Name, spec.Group.WorkerMemoryMB, max.MemoryMB)
	}
	return nil
}

// finish unregisters with the final status and then removes the staging
// directory. An AM that could not unregister leaves it unless this is the
// last attempt: the RM may start another attempt, which needs the binary,
// the configuration and the secret again (and `ebb submit`, `ebb clean`
// remove it once the application has ended).
func (y *yarnAM) finish(status yarn.FinalStatus, diag string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Every file was closed by the call that wrote it; the connection
	// holds nothing more.
	defer func() { _ = y.fs.Close() }()
	y.stopRefresh()
	if err := y.rec.Close(); err != nil {
		y.log.Warnf("ebb am: %v", err)
	}
	if err := y.world.Finish(ctx, status, diag); err != nil {
		y.log.Errorf("ebb am: %v", err)
		if y.last {
			if rerr := y.fs.RemoveAll(y.staging); rerr != nil {
				y.log.Warnf("ebb am: %v", rerr)
			}
		}
		return err
	}
	if err := y.fs.RemoveAll(y.staging); err != nil {
		y.log.Warnf("ebb am: %v", err)
	}
	y.log.Infof("ebb am: finished %s after %s", status, time.Since(y.start).Round(time.Millisecond))
	return nil
}
