package amhost

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/amconf"
	"github.com/ebb-am/ebb/am/local"
	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/fsys"
	"github.com/ebb-am/ebb/packing"
	"github.com/ebb-am/ebb/scheduler"
	"github.com/ebb-am/ebb/yarnclient"
)

// LocalSession is written to <root>/am.json so `ebb dag` can reach a
// running local AM.
type LocalSession struct {
	Address    string `json:"address"`
	SecretFile string `json:"secretFile"`
	StatusURL  string `json:"statusURL"`
}

// LocalEnv is what a local AM takes from its process: the ebb binary its
// workers run (os.Executable, or EBB_EXECUTABLE when tests run the AM
// in-process with a built binary), read once by main.
type LocalEnv struct {
	Executable string
}

// StartLocal starts an AM with the local world on this machine, under
// root (its workers' directories, logs, history and am.json).
func StartLocal(ctx context.Context, c *conf.Config, env LocalEnv, log *logrus.Logger, root string) (*am.AM, *local.World, error) {
	secret, err := am.NewSecret()
	if err != nil {
		return nil, nil, err
	}
	core, err := amconf.CoreOptions(c, "local_")
	if err != nil {
		return nil, nil, err
	}
	s3 := S3Store(c, nil)
	history, dagHistory, err := localHistory(c, root, s3, log)
	if err != nil {
		return nil, nil, err
	}
	events, err := openEventLog(c, "local_", func() (io.WriteCloser, error) {
		return os.OpenFile(filepath.Join(root, "events.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	})
	if err != nil {
		return nil, nil, err
	}
	a, err := am.New(am.Options{
		Core: core, Listen: "127.0.0.1:0", StatusListen: "127.0.0.1:0", Secret: secret, Log: log,
		FS:   withS3(fsys.LocalFS{}, s3),
		Tick: 100 * time.Millisecond, WorkerHeartbeat: c.Duration("ebb.am.worker.heartbeat.interval.ms"),
		OutputRoot: filepath.Join(root, "output"), Committer: commit.New(newOutputFS(yarnclient.User(), s3).resolve).AfterStep(am.CommitStepLog(log, "none", 1)), UI: localUIOptions(c, root), History: history, DAGHistory: dagHistory,
		EventLog: events,
	})
	if err != nil {
		if events != nil {
			_ = events.Close() // nothing worth keeping was recorded
		}
		return nil, nil, err
	}
	// A local virtual node is the largest container; nothing rounds asks up.
	a.SetAllocation(scheduler.AllocationLimits{MaxMB: c.Int64("ebb.local.node.memory.mb")})
	alloc, err := packing.New(c.String("ebb.packing.scheme"), amconf.PackingOptions(c))
	if err != nil {
		return nil, nil, err
	}
	nodeTypes, err := localNodeTypes(c)
	if err != nil {
		return nil, nil, err
	}
	workerEnv, err := shipS3Settings(c, root)
	if err != nil {
		return nil, nil, err
	}
	w, err := local.New(local.Options{Env: workerEnv,
		Nodes: c.Int("ebb.local.nodes"), MaxNodes: c.Int("ebb.local.max.nodes"), NodeMB: c.Int64("ebb.local.node.memory.mb"),
		NodeVCores: c.Int("ebb.local.node.vcores"), NodeTypes: nodeTypes, ProvisionDelay: c.Duration("ebb.local.provision.delay.ms"),
		IdleNodeTime: c.Duration("ebb.local.node.idle.timeout.ms"), Executable: env.Executable, AMAddress: a.Addr(), Secret: secret,
		Root: root, LogRollKB: c.Int64("ebb.log.roll.size.kb"), LogRollCount: c.Int("ebb.log.roll.count"), Allocator: alloc, Log: log, Events: a.Loop(),
	}, time.Now())
	if err != nil {
		return nil, nil, err
	}
	a.SetWorld(w)
	if err := writeLocalSession(root, a, secret); err != nil {
		return nil, nil, err
	}
	return a, w, nil
}

// writeLocalSession writes the secret and am.json under root, for `ebb dag
// --session`.
func writeLocalSession(root string, a *am.AM, secret string) error {
	secretFile := filepath.Join(root, "secret")
	if err := os.WriteFile(secretFile, []byte(secret), 0o600); err != nil {
		return err
	}
	sess, _ := json.MarshalIndent(LocalSession{Address: a.Addr(), SecretFile: secretFile, StatusURL: "http://" + a.StatusAddr() + "/"}, "", "  ")
	return os.WriteFile(filepath.Join(root, "am.json"), sess, 0o600)
}

// LocalRoot is ebb.local.dir (made), or a new temporary directory.
func LocalRoot(c *conf.Config) (string, error) {
	if d := c.String("ebb.local.dir"); d != "" {
		return d, os.MkdirAll(d, 0o755)
	}
	return os.MkdirTemp("", "ebb-local-")
}

// CheckLocalOutput refuses an output that holds results (without
// overwrite) before an AM is started for nothing; the AM checks again when
// the DAG is submitted. base resolves the spec's relative output.
func CheckLocalOutput(c *conf.Config, spec *dag.Spec, base, output string, overwrite bool) error {
	if output == "" {
		output = spec.Output
		if p, ok := commit.LocalPath(output); ok && !filepath.IsAbs(p) && !strings.HasPrefix(output, "file://") {
			output = filepath.Join(base, p)
		}
	}
	_, err := commit.New(newOutputFS(yarnclient.User(), S3Store(c, nil)).resolve).Check(output, overwrite || spec.Overwrite)
	return err
}

// localNodeTypes reads ebb.local.node.resources: name=count pairs joined
// by commas (nil when empty).
func localNodeTypes(c *conf.Config) (map[string]int64, error) {
	const key = "ebb.local.node.resources"
	text := strings.TrimSpace(c.String(key))
	if text == "" {
		return nil, nil
	}
	out := map[string]int64{}
	for _, kv := range strings.Split(text, ",") {
		name, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		name = strings.TrimSpace(name)
		if !ok || err != nil || n < 0 || name == "" || name == "memory-mb" || name == "vcores" {
			return nil, c.ErrorFor(key, "name=count pairs joined by commas, counts 0 or more, other than memory-mb and vcores (yarn.io/gpu=1)")
		}
		out[name] = n
	}
	return out, nil
}
