package amhost

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/client-go/kubernetes"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/amconf"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/am/kube"
	"github.com/ebb-am/ebb/am/kubeworld"
	"github.com/ebb-am/ebb/am/recovery"
	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/fsys"
	"github.com/ebb-am/ebb/recoverylog"
	"github.com/ebb-am/ebb/yarnclient"
	"github.com/ebb-am/ebb/yarnrpc"
)

// The Kubernetes world is a World, and the loop finds its optional parts
// by type assertion: a signature that drifted would go silently unused.
var (
	_ am.World           = (*kubeworld.World)(nil)
	_ am.WorkerViewer    = (*kubeworld.World)(nil)
	_ am.PendingReporter = (*kubeworld.World)(nil)
	_ am.SpecChecker     = (*kubeworld.World)(nil)
	_ am.WorkerKiller    = (*kubeworld.World)(nil)
)

// KubeOptions are `ebb am --master kubernetes`'s flags.
type KubeOptions struct {
	App string
	// ConfPath: the effective mr3-site.xml (the AM's ConfigMap).
	ConfPath         string
	DAGPath, DAGName string
	Output           string
	Overwrite        bool
	// StateDir is the AM pod's emptyDir: it outlives the AM container's
	// restarts (not the pod), so the recovery log there lets a restarted
	// AM resume its DAG.
	StateDir string
}

// KubeEnv is what the AM pod's environment says (the downward API and
// the worker Secret).
type KubeEnv struct {
	PodName, PodUID, PodIP, Secret string
	// TokenFile: HADOOP_TOKEN_FILE_LOCATION, the S3 settings `ebb
	// submit` put in the Secret ("" when there were none).
	TokenFile string
}

// ReadKubeEnv reads the AM pod's environment once.
func ReadKubeEnv(getenv func(string) string) KubeEnv {
	return KubeEnv{PodName: getenv("EBB_POD_NAME"), PodUID: getenv("EBB_POD_UID"), PodIP: getenv("EBB_POD_IP"), Secret: getenv("EBB_SECRET"),
		TokenFile: getenv("HADOOP_TOKEN_FILE_LOCATION")}
}

// KubeAM is the AM in its pod.
type KubeAM struct {
	o     KubeOptions
	log   *logrus.Logger
	c     *conf.Config
	a     *am.AM
	world *kubeworld.World
	rec   *recovery.Recorder
	// resumed: the DAGs an earlier run of this container accepted.
	resumed []string
	// cs, ns and pod: the AM's own pod, which its DAG's outcome is
	// written on (kube.AnnotationOutcome).
	cs      kubernetes.Interface
	ns, pod string
	// failed: the AM did not run to its end (its server failed); its
	// container exits non-zero and is restarted.
	failed bool
}

// StartKube builds the AM in its pod: the configuration, the preflight
// (nothing is created before it passes), the recovery log on the pod's
// emptyDir, the world (which lists the nodes and adopts live worker pods)
// and the recovery of what an earlier run of the container recorded.
func StartKube(ctx context.Context, o KubeOptions, env KubeEnv, log *logrus.Logger) (*KubeAM, error) {
	c, _, err := conf.Load(conf.LoadOptions{ConfPath: o.ConfPath})
	if err != nil {
		return nil, err
	}
	if err := c.CheckKubernetes(); err != nil {
		return nil, err
	}
	if env.PodName == "" || env.PodUID == "" || env.PodIP == "" || env.Secret == "" {
		return nil, fmt.Errorf("ebb am: EBB_POD_NAME, EBB_POD_UID, EBB_POD_IP and EBB_SECRET must be set (the AM pod `ebb submit` makes sets them)")
	}
	cs, _, err := kubeworld.Connect(c.String("mr3.k8s.client.config.file"), "")
	if err != nil {
		return nil, err
	}
	ns, pc := c.String("mr3.k8s.namespace"), c.String("ebb.k8s.pod.worker.priority.class.name")
	if err := kubeworld.Preflight(ctx, cs, ns, pc, kubeworld.WorkerAccess); err != nil {
		return nil, err
	}
	attempt, err := nextAttempt(o.StateDir)
	if err != nil {
		return nil, err
	}
	rec, records, err := openLocalRecovery(filepath.Join(o.StateDir, "recovery"), c, log)
	if err != nil {
		return nil, err
	}
	k := &KubeAM{o: o, log: log, c: c, rec: rec.Recorder, resumed: resumedDAGs(records), cs: cs, ns: ns, pod: env.PodName}
	if err := k.build(ctx, env, cs, rec); err != nil {
		_ = rec.Recorder.Close() // nothing worth keeping was recorded
		return nil, err
	}
	// The worker pods the first list found running are the earlier run's
	// workers: they rejoin in place, and the recovery waits for them (the
	// outputs they hold, the attempts they run) before it queues anything
	// again. Without any, no worker can come back: nothing to wait for.
	expect := k.world.Adopted()
	if len(expect) > 0 {
		log.Infof("ebb am: adopted the running worker pods %s", strings.Join(expect, ", "))
	}
	if err := k.a.Recover(records, core.RecoverOptions{Window: recoverWindow(records, expect), Off: !c.Bool("mr3.dag.recovery.enabled"),
		Expect: expect, AMAttempt: attempt}); err != nil {
		return nil, fmt.Errorf("recovering the DAGs of the AM's earlier run: %w", err)
	}
	log.Infof("ebb am: %s (run %d of its pod %s) listening on %s, status UI on %s", o.App, attempt, env.PodName, k.a.Addr(), k.a.StatusAddr())
	return k, nil
}

// recoverWindow: with a log to resume and live worker pods, wait a while
// for their workers to come back.
func recoverWindow(records []recoverylog.Record, live []string) time.Duration {
	if len(records) == 0 || len(live) == 0 {
		return 0
	}
	return workerReturnWindow
}

// build makes the AM and its world.
func (k *KubeAM) build(ctx context.Context, env KubeEnv, cs kubernetes.Interface, rec *am.Recovery) error {
	c := k.c
	coreOpts, err := amconf.CoreOptions(c, "")
	if err != nil {
		return err
	}
	port := c.Int("ebb.k8s.am.port")
	var world *kubeworld.World
	uiOpts := ui.Options{App: ui.AppInfo{ID: k.o.App, Name: k.o.App, World: "kubernetes", Queue: c.String("mr3.k8s.namespace")},
		PackingHighPercent: c.Int("ebb.packing.high.threshold.percent"),
		PendingReasons:     func() map[string]string { return world.PendingReasons() }}
	var creds *yarnrpc.Credentials
	if env.TokenFile != "" {
		if creds, err = yarnrpc.ReadCredentialsFile(env.TokenFile); err != nil {
			return fmt.Errorf("reading the S3 settings from the Secret (HADOOP_TOKEN_FILE_LOCATION): %w", err)
		}
	}
	s3 := S3Store(c, creds)
	history, dagHistory, err := localHistory(c, k.o.StateDir, s3, k.log)
	if err != nil {
		return err
	}
	k.a, err = am.New(am.Options{
		Core: coreOpts, Listen: net.JoinHostPort("", strconv.Itoa(port)), StatusListen: net.JoinHostPort("", strconv.Itoa(port+1)),
		Secret: env.Secret, Log: k.log, Tick: 250 * time.Millisecond, WorkerHeartbeat: c.Duration("ebb.am.worker.heartbeat.interval.ms"),
		FS: withS3(fsys.LocalFS{}, s3), OutputRoot: filepath.Join(k.o.StateDir, "output"),
		Committer: commit.New(newOutputFS(yarnclient.User(), s3).resolve).AfterStep(am.CommitStepLog(k.log, "none", 1)),
		UI:        uiOpts, History: history, DAGHistory: dagHistory, Recovery: rec,
	})
	if err != nil {
		return err
	}
	world, err = kubeworld.New(kubeworld.Options{Client: cs, Pods: k.podOptions(env, port), Log: k.log, Events: k.a.Loop(),
		PendingTimeout: c.Duration("mr3.k8s.pod.creation.timeout.ms")})
	if err != nil {
		return err
	}
	if err := world.Start(ctx); err != nil {
		return err
	}
	k.world = world
	k.a.SetWorld(world)
	k.a.SetAllocation(core.AllocationLimits{MaxMB: world.LargestNodeMB()})
	return nil
}

// podOptions are the worker pods' settings from the keys.
func (k *KubeAM) podOptions(env KubeEnv, port int) kube.Options {
	c := k.c
	secret := c.String("mr3.k8s.worker.secret")
	if secret == "" {
		secret = k.o.App + "-secret"
	}
	return kube.Options{App: k.o.App, Namespace: c.String("mr3.k8s.namespace"),
		Owner: kube.OwnerRef{APIVersion: "v1", Kind: "Pod", Name: env.PodName, UID: env.PodUID},
		Image: c.String("mr3.k8s.pod.worker.image"), PullPolicy: c.String("mr3.k8s.pod.image.pull.policy"),
		ServiceAccount: c.String("mr3.k8s.pod.worker.serviceaccount"),
		// The pod's IP, not the Service's name: it stays the AM's across
		// the container's restarts, and needs no cluster DNS.
		AMAddress: net.JoinHostPort(env.PodIP, strconv.Itoa(port)), SecretName: secret,
		PriorityClassName: c.String("ebb.k8s.pod.worker.priority.class.name"),
		PreemptionPolicy:  c.String("ebb.k8s.pod.worker.preemption.policy"),
		OutputDir:         c.String("mr3.k8s.pod.worker.emptydirs")}
}

// nextAttempt counts the AM container's runs in its pod (a file in the
// emptyDir): recovered tasks number their new attempts past the earlier
// runs'.
func nextAttempt(dir string) (int, error) {
	p := filepath.Join(dir, "am-attempt")
	n := 0
	if b, err := os.ReadFile(p); err == nil {
		n, _ = strconv.Atoi(strings.TrimSpace(string(b))) // unreadable: start again from 1
	}
	n++
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	return n, os.WriteFile(p, []byte(strconv.Itoa(n)), 0o600)
}

// openLocalRecovery is the recovery log in a local directory (made).
func openLocalRecovery(dir string, c *conf.Config, log *logrus.Logger) (*am.Recovery, []recoverylog.Record, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	return openRecoveryIn(recovery.LocalFS{}, dir, c, log)
}
