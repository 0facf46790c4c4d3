package yarn

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/ebb-am/ebb/am/core"
)

// InAM is where the AM's own container is, for the in-AM worker of small
// DAGs (core.StartAMWorker): it runs the AM's binary as `ebb worker` in
// the AM's container, on the AM's node, its files under the container's
// directory and its logs beside am.log. The NodeManager counts it in the
// AM container's memory, which ebb submit enlarged by
// ebb.am.uber.memory.mb (yarnclient), and ends it with the container.
type InAM struct {
	// Executable is the AM's own ebb binary.
	Executable string
	// ContainerID and Node are the AM's container and its NodeId
	// (NM_HOST:NM_PORT), the in-AM worker's node as the Core names nodes.
	ContainerID string
	Node        string
	// Host is the NM's host, where other workers fetch its outputs.
	Host string
	// Dir is the container's working directory; LogDir its log directory.
	Dir, LogDir string
}

// AMWorkerCommand (am.AMWorkerLauncher; this package does not import am,
// so that the gateway compiles none of the AM) is the in-AM worker's process: the same flags as a
// worker container's (workerLaunch), its token file (the workers' tokens
// and the application secret, never the AM's AMRMToken) written into the
// AM's container directory, readable by its user only.
func (w *World) AMWorkerCommand(a core.StartAMWorker) (*exec.Cmd, error) {
	in := w.o.InAM
	if in.Executable == "" || in.Node == "" {
		return nil, fmt.Errorf("the AM does not know its own container (node %q)", in.Node)
	}
	work := filepath.Join(in.Dir, "amworker", a.Worker)
	if err := os.MkdirAll(work, 0o700); err != nil {
		return nil, err
	}
	tokens, err := w.workerCredentials()
	if err != nil {
		return nil, err
	}
	tokenFile := filepath.Join(in.Dir, "amworker", a.Worker+".tokens")
	if err := os.WriteFile(tokenFile, tokens, 0o600); err != nil {
		return nil, err
	}
	logDir := in.LogDir
	if logDir == "" {
		logDir = work
	}
	args := []string{"worker", "--am", w.o.Worker.AMAddress, "--worker-id", a.Worker, "--group", a.Group.Name,
		"--node", in.Node, "--memory-mb", strconv.FormatInt(a.MemoryMB, 10), "--vcores", strconv.Itoa(max(a.Group.VCores, 1)),
		"--container-id", in.ContainerID, "--work-dir", work, "--log-dir", logDir, "--advertise-host", in.Host}
	if w.o.Worker.LogRollKB > 0 {
		args = append(args, "--log-roll-kb", strconv.FormatInt(w.o.Worker.LogRollKB, 10),
			"--log-roll-count", strconv.Itoa(w.o.Worker.LogRollCount))
	}
	if w.o.Worker.HDFSRetrySpec != "" {
		args = append(args, "--hdfs-retry-spec", w.o.Worker.HDFSRetrySpec)
	}
	cmd := exec.Command(in.Executable, args...)
	// The AM's environment (the container's), then the workers' and the
	// group's; the token file replaces the AM's own (last value wins).
	cmd.Env = os.Environ()
	for k, v := range w.o.Worker.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, v := range a.Group.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "HADOOP_TOKEN_FILE_LOCATION="+tokenFile)
	out, err := os.Create(filepath.Join(logDir, "amworker-"+a.Worker+".out"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Dir = work
	return cmd, nil
}
