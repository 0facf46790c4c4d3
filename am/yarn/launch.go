package yarn

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ebb-am/ebb/yarnrpc"
)

// launch starts `ebb worker` in a kept container, off the heartbeat
// goroutine (an NM call must not delay the next allocate).
func (w *World) launch(p Placed) {
	l, err := w.workerLaunch(p)
	if err != nil {
		w.mu.Lock()
		w.stats.LaunchFailed++
		w.book.Release(p.Container.ID)
		w.mu.Unlock()
		w.o.Log.Errorf("yarn: launching worker in %s on %s: %v", p.Container.ID, p.Container.Node, err)
		return
	}
	w.launches.Add(1)
	go func() {
		defer w.launches.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err := w.o.NM.Start(ctx, p.Container, l)
		w.mu.Lock()
		defer w.mu.Unlock()
		if err != nil {
			w.stats.LaunchFailed++
			w.book.Release(p.Container.ID)
			w.o.Log.Errorf("yarn: launching worker in %s on %s: %v", p.Container.ID, p.Container.Node, err)
			return
		}
		w.stats.Launched++
		w.o.Log.Infof("yarn: launched worker %s (group %s, %d MB) on %s", p.Container.ID, p.Group.Name, p.Container.Resource.MemoryMB, p.Container.Node)
	}()
}

// shellQuote makes s one word for the NM's bash.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		safe := r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == '=' || r == ',' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		return !safe
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// workerLaunch is the container's launch context: ./ebb worker with its
// work dir in the container's directory, logs in the container's log dir
// (<LOG_DIR>, so the YARN UI and `yarn logs` show them) and the NM's host
// as the address other workers fetch outputs from.
func (w *World) workerLaunch(p Placed) (Launch, error) {
	id := p.Container.ID.String()
	g := p.Group
	vcores := max(g.VCores, 1)
	// exec: the container's process (the one the NM signals and waits
	// for) is the worker itself, not a bash around it.
	args := []string{"exec", "./ebb", "worker",
		"--am", shellQuote(w.o.Worker.AMAddress),
		"--worker-id", shellQuote(id),
		"--group", shellQuote(g.Name),
		"--node", shellQuote(p.Container.Node),
		"--memory-mb", strconv.FormatInt(g.MemoryMB, 10),
		"--vcores", strconv.Itoa(vcores),
		"--container-id", shellQuote(id),
		"--work-dir", "$PWD/work",
		"--log-dir", "<LOG_DIR>",
		"--advertise-host", "$NM_HOST"}
	if w.o.Worker.AMFile != "" {
		args = append(args, "--am-file", shellQuote(w.o.Worker.AMFile))
	}
	if w.o.Worker.LogRollKB > 0 {
		args = append(args, "--log-roll-kb", strconv.FormatInt(w.o.Worker.LogRollKB, 10),
			"--log-roll-count", strconv.Itoa(w.o.Worker.LogRollCount))
	}
	if w.o.Worker.HDFSRetrySpec != "" {
		args = append(args, "--hdfs-retry-spec", shellQuote(w.o.Worker.HDFSRetrySpec))
	}
	args = append(args, "1><LOG_DIR>/stdout", "2><LOG_DIR>/stderr")
	env := map[string]string{}
	for k, v := range w.o.Worker.Env {
		env[k] = v
	}
	for k, v := range g.Env {
		env[k] = v
	}
	tokens, err := w.workerCredentials()
	if err != nil {
		return Launch{}, err
	}
	res := map[string]LocalResource{"ebb": w.o.Worker.Binary}
	return Launch{Resources: res, Env: env, Command: []string{strings.Join(args, " ")}, Tokens: tokens}, nil
}

// SecretAlias names the application secret among the secret keys of a
// worker container's token file ($HADOOP_TOKEN_FILE_LOCATION), where
// `ebb worker` looks for it.
const SecretAlias = "ebb.application.secret"

// workerCredentials is a worker container's token file: the delegation
// tokens workers hold (on a secure cluster) and the application secret as
// a secret key under SecretAlias, as MapReduce hands its tasks the
// shuffle secret. The NodeManager writes it to a file only the
// container's user reads ($HADOOP_TOKEN_FILE_LOCATION): the secret is
// neither in the environment nor in launch_container.sh. (It used to be a
// file localized from the staging directory; that cost every worker a
// NodeManager localizer run, 70 ms on an idle test cluster and 250 ms on
// a busy one, where the binary alone is PUBLIC and already cached.)
func (w *World) workerCredentials() ([]byte, error) {
	creds := &yarnrpc.Credentials{}
	if blob := w.workerTokens(); len(blob) > 0 {
		var err error
		if creds, err = yarnrpc.ReadCredentials(bytes.NewReader(blob)); err != nil {
			return nil, fmt.Errorf("the workers' delegation tokens: %w", err)
		}
	}
	creds.Secrets = append(creds.Secrets, yarnrpc.NamedSecret{Alias: SecretAlias, Secret: []byte(w.o.Worker.Secret)})
	return creds.MarshalWritable(), nil
}
