package yarnclient

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/s3fs"
)

// SubmitOptions say what to submit.
type SubmitOptions struct {
	// DAGPath is a DAG for the AM to run; empty for a session.
	DAGPath string
	Queue   string
	// Name is the application's name; empty means the DAG's name, or
	// ebb-session.
	Name string
	// Output overrides the DAG's output.
	Output string
	// Overwrite replaces an output that already holds results, once the
	// DAG succeeds; without it (or the DAG's overwrite) such an output is
	// refused before anything is submitted.
	Overwrite bool
	// Session starts the AM as a session (tagged SessionTag so discovery
	// finds it): Submit sets mr3.am.session.mode=true in the Client's
	// configuration, which is what the AM is given.
	Session bool
	// Warn hears about a DAG that will not work well on a cluster (see
	// ClusterPathWarnings); nil ignores them.
	Warn func(string)
	// Progress hears what Submit did that the user may want to know (the
	// ebb binary uploaded, or reused); nil ignores it.
	Progress func(string)
}

// Submit stages the files and submits the application, whose AM is `ebb
// am` on the staged binary and configuration. Nothing is staged when the
// AM's container is larger than the cluster allows.
func (c *Client) Submit(ctx context.Context, o SubmitOptions) (yarn.AppID, error) {
	if err := c.conf.CheckYARNSite(); err != nil {
		return yarn.AppID{}, err
	}
	hash := c.hashBinary() // meanwhile: the DAG, the output, the RM
	var spec []byte
	var d *dag.Spec
	name := o.Name
	if o.DAGPath != "" {
		var err error
		if spec, err = os.ReadFile(o.DAGPath); err != nil {
			return yarn.AppID{}, err
		}
		if d, err = dag.Parse(o.DAGPath, spec); err != nil {
			return yarn.AppID{}, err
		}
		if name == "" {
			name = d.Name
		}
		if o.Warn != nil {
			for _, w := range ClusterPathWarnings(d, o.Output) {
				o.Warn(w)
			}
		}
		if err := c.checkOutput(d, o); err != nil {
			return yarn.AppID{}, err
		}
		if err := c.checkS3Inputs(d); err != nil {
			return yarn.AppID{}, err
		}
	}
	if err := c.checkHistoryDir(); err != nil {
		return yarn.AppID{}, err
	}
	if err := c.checkLabels(ctx, d, o.DAGPath); err != nil {
		return yarn.AppID{}, err
	}
	if o.Session {
		if err := c.conf.Set("mr3.am.session.mode", "true"); err != nil {
			return yarn.AppID{}, err
		}
	}
	if name == "" {
		name = "ebb-session"
	}
	id, max, err := c.rm.NewApp(ctx)
	if err != nil {
		return id, fmt.Errorf("asking the ResourceManager at %s for an application id: %w", c.conf.RMAddress(), err)
	}
	if amMB := AMContainerMB(c.conf); amMB > max.MemoryMB {
		key, what := "mr3.am.resource.memory.mb", ""
		if c.conf.Bool("ebb.am.uber.enabled") {
			key, what = "ebb.am.uber.memory.mb", fmt.Sprintf(" (with mr3.am.resource.memory.mb=%d: the AM's container of %d MB)", c.conf.Int64("mr3.am.resource.memory.mb"), amMB)
		}
		return id, c.conf.ErrorFor(key, fmt.Sprintf("at most the cluster's largest container, yarn.scheduler.maximum-allocation-mb=%d%s", max.MemoryMB, what))
	}
	if d != nil {
		// Other resource types beyond the largest container would never
		// be granted: refused here, before anything is staged.
		if err := d.CheckResources(yarn.ParseTypes(max.Types), "the cluster's largest container (the RM's maximum capability)"); err != nil {
			return id, fmt.Errorf("%s: %w", o.DAGPath, err)
		}
	}
	err = c.withFS(func(fs Store) error {
		app, inline, err := c.stage(fs, id, spec, o, hash)
		if err != nil {
			return err
		}
		app.Name = name
		tokens, err := c.tokens(ctx)
		if err != nil {
			return fmt.Errorf("delegation tokens for %s: %w", id, err)
		}
		if app.AM.Tokens, err = amCredentials(tokens, inline, S3Secrets(c.conf, nil)); err != nil {
			return err
		}
		if err := c.rm.Submit(ctx, app); err != nil {
			err = fmt.Errorf("submitting %s: %w", id, err)
			if rerr := fs.RemoveAll(StagingDir(c.user, id)); rerr != nil {
				err = fmt.Errorf("%w (and removing its staging directory: %v)", err, rerr)
			}
			return err
		}
		return nil
	})
	return id, err
}

// stage writes the effective configuration and the DAG to the
// application's staging directory, finds the shared ebb binary (placeBinary)
// and returns the application to submit, and the files that go in the
// AM's token file rather than as localized resources (InlineMaxBytes).
// hash is the binary's hash, started early (see placeBinary).
func (c *Client) stage(fs Store, id yarn.AppID, spec []byte, o SubmitOptions, hash func() binaryHash) (app yarn.AppSpec, inline map[string][]byte, err error) {
	say := o.Progress
	if say == nil {
		say = func(string) {}
	}
	// First: a bad ebb.lib.uri then leaves no staging directory behind.
	bin, err := c.placeBinary(fs, say, hash)
	if err != nil {
		return app, nil, err
	}
	say(fmt.Sprintf("NodeManagers localise it as %s: %s", bin.Resource.Visibility, bin.Why))
	staging := StagingDir(c.user, id)
	if err := fs.MkdirPrivate(staging); err != nil {
		return app, nil, err
	}
	// Named for `ebb clean --lib` (prune.go), not localised.
	if _, err := fs.WriteFile(staging+"/"+StagedBinaryRef, []byte(bin.Resource.URL+"\n"), 0o600); err != nil {
		return app, nil, fmt.Errorf("staging %s: %w", StagedBinaryRef, err)
	}
	res := map[string]yarn.LocalResource{StagedBinary: bin.Resource}
	// put writes data, or uploads the local file when data is nil.
	put := func(name string, mode os.FileMode, data []byte, local string) error {
		p := staging + "/" + name
		var err error
		var st hdfsfs.FileStamp
		if data == nil {
			st, err = fs.Upload(local, p, mode)
		} else {
			st, err = fs.WriteFile(p, data, mode)
		}
		if err != nil {
			return fmt.Errorf("staging %s: %w", name, err)
		}
		res[name] = yarn.LocalResource{URL: st.URL, Size: st.Size, Timestamp: st.ModTime}
		return nil
	}
	var xml bytes.Buffer
	if err := conf.WriteXML(&xml, withoutS3Secrets(c.conf.Effective())); err != nil {
		return app, nil, err
	}
	if err := put(StagedConf, 0o600, xml.Bytes(), ""); err != nil {
		return app, nil, err
	}
	if spec != nil {
		if err := put(StagedDAG, 0o600, spec, ""); err != nil {
			return app, nil, err
		}
	}
	if len(xml.Bytes())+len(spec) <= InlineMaxBytes {
		inline = map[string][]byte{StagedConf: xml.Bytes()}
		delete(res, StagedConf)
		if spec != nil {
			inline[StagedDAG] = spec
			delete(res, StagedDAG)
		}
	}
	env := map[string]string{"HADOOP_USER_NAME": c.user, "EBB_STAGING": fs.URL(staging),
		EnvBinary: bin.Resource.URL, EnvBinaryVisibility: bin.Resource.Visibility.String()}
	if c.keytab.Keytab != "" {
		// The AM's resources are its own (APPLICATION visibility, in a
		// 0700 directory): the workers never get the keytab. Only the
		// principal's name goes into the environment.
		if err := put(StagedKeytab, 0o600, nil, c.keytab.Keytab); err != nil {
			return app, nil, err
		}
		if err := put(StagedKrb5Conf, 0o600, nil, c.keytab.Krb5Conf); err != nil {
			return app, nil, err
		}
		env[EnvPrincipal] = c.keytab.Principal
	}
	app = yarn.AppSpec{
		ID: id, Queue: o.Queue, Type: AppType,
		Resource:    yarn.Resource{MemoryMB: AMContainerMB(c.conf), VCores: int32(c.conf.Int("mr3.am.resource.cpu.cores"))},
		MaxAttempts: c.conf.Int("mr3.am.max.app.attempts"),
		// A new AM attempt resumes DAGs with the workers of the old one
		// (they hold its outputs and run its attempts).
		KeepContainers: c.conf.Bool("mr3.dag.recovery.enabled"),
		RolledLogs:     c.conf.String("ebb.log.aggregation.rolled.include.pattern"),
		// A long-lived session loses its AM now and then: only recent
		// failures should end it.
		AttemptFailuresValidity: c.conf.Duration("ebb.am.attempt.failures.validity.interval.ms"),
		Priority:                priority(c.conf),
		NodeLabel:               c.conf.String(amLabelKey),
		AM: yarn.Launch{Resources: res, Command: []string{amCommand(spec != nil, o.DAGPath, o.Output, o.Overwrite)},
			Env: env},
	}
	if o.Session {
		app.Tags = []string{SessionTag}
	}
	return app, inline, nil
}

// amLabelKey names the AM container's node label.
const amLabelKey = "ebb.am.node.label.expression"

// checkLabels refuses, before an application is asked for, a node label
// the cluster does not have: the AM's (amLabelKey), which the RM would
// refuse only at submission, and the DAG's group's (d, read from path; nil for a session), whose
// asks it would refuse in every heartbeat. The labels are asked for only
// when one is named.
func (c *Client) checkLabels(ctx context.Context, d *dag.Spec, path string) error {
	am := c.conf.String(amLabelKey)
	if am == "" && (d == nil || d.Group.NodeLabel == "") {
		return nil
	}
	labels, err := c.rm.Labels(ctx)
	if err != nil {
		return fmt.Errorf("asking the ResourceManager at %s for its node labels: %w", c.conf.RMAddress(), err)
	}
	if labels.UnknownLabel(am) != "" {
		return c.conf.ErrorFor(amLabelKey, "a node label the cluster has ("+labels.String()+"), or none for the queue's default partition")
	}
	if d != nil {
		if err := labels.CheckGroupLabel(d); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

// priority is ebb.am.priority for the submission: nil (-1) leaves the
// application at its queue's default priority.
func priority(c *conf.Config) *int32 {
	p := c.Int("ebb.am.priority")
	if p < 0 {
		return nil
	}
	v := int32(p)
	return &v
}

// amCommand is the AM container's command line. exec: the container's
// process is ebb itself, so a SIGTERM (from the NM, or an operator)
// reaches the AM, which unregisters, rather than a bash whose exit would
// end the attempt first.
func amCommand(withDAG bool, dagPath, output string, overwrite bool) string {
	cmd := []string{"exec", "./ebb", "am", "--conf", StagedConf}
	if withDAG {
		// --dag-name: the AM's errors name the user's file, not the copy.
		cmd = append(cmd, "--dag", StagedDAG, "--dag-name", shellWord(dagPath))
	}
	if output != "" {
		cmd = append(cmd, "--output", shellWord(output))
	}
	if overwrite {
		cmd = append(cmd, "--overwrite")
	}
	cmd = append(cmd, "--log-dir", "<LOG_DIR>", "1><LOG_DIR>/stdout", "2><LOG_DIR>/stderr")
	return strings.Join(cmd, " ")
}

// checkOutput refuses, before an application is even asked for, an
// hdfs:// output that already holds results (unless overwrite): the AM
// would refuse it too, but only after YARN had started it. Other outputs
// are on the cluster's nodes, where only the AM can look.
func (c *Client) checkOutput(d *dag.Spec, o SubmitOptions) error {
	out := o.Output
	if out == "" {
		out = d.Output
	}
	if s3fs.IsS3(out) {
		// Refused here, before an application (and a container) is
		// asked for; the AM checks again when the DAG is submitted.
		st := s3fs.NewStore(c.conf.Raw)
		_, err := commit.New(st.Resolve).Check(out, o.Overwrite || d.Overwrite)
		return err
	}
	if !strings.HasPrefix(out, "hdfs://") {
		return nil
	}
	return c.withFS(func(fs Store) error {
		_, err := commit.New(fs.Resolve).Check(out, o.Overwrite || d.Overwrite)
		return err
	})
}

// checkS3Inputs refuses, before an application is asked for, a DAG whose
// s3:// input the gateway cannot read (a missing bucket, credentials the
// store refuses, a wrong endpoint): the AM, which lists the inputs, would
// find it only once YARN had started it. One call per input.
func (c *Client) checkS3Inputs(d *dag.Spec) error {
	var st *s3fs.Store
	for _, v := range d.Vertices {
		for _, in := range v.Inputs {
			if !s3fs.IsS3(in) {
				continue
			}
			loc, err := s3fs.Parse(in)
			if err != nil {
				return fmt.Errorf("vertex %s input: %w", v.Name, err)
			}
			if st == nil {
				st = s3fs.NewStore(c.conf.Raw)
			}
			if err := st.CheckReadable(context.Background(), loc); err != nil {
				return fmt.Errorf("vertex %s input: %w", v.Name, err)
			}
		}
	}
	return nil
}

// ClusterPathWarnings names the DAG's inputs and output that are not
// hdfs:// URLs: the AM and its workers run on the cluster's nodes, where a
// path on this machine means nothing (a relative one least of all).
func ClusterPathWarnings(d *dag.Spec, output string) []string {
	var out []string
	for _, v := range d.Vertices {
		for _, in := range v.Inputs {
			if !strings.HasPrefix(in, "hdfs://") && !s3fs.IsS3(in) {
				out = append(out, fmt.Sprintf("vertex %s input %q is not an hdfs:// URL: the AM lists it on a cluster node", v.Name, in))
			}
		}
	}
	if output == "" {
		output = d.Output
	}
	if output != "" && !strings.HasPrefix(output, "hdfs://") && !s3fs.IsS3(output) {
		out = append(out, fmt.Sprintf("output %q is not an hdfs:// URL: workers write it on the cluster nodes they run on", output))
	}
	return out
}

func shellWord(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// AMContainerMB is the AM container's memory: the AM's own
// (mr3.am.resource.memory.mb), and with small DAGs in the AM's container
// (ebb.am.uber.enabled) the in-AM worker's on top (ebb.am.uber.memory.mb),
// so that the NodeManager's memory check covers both processes.
func AMContainerMB(c *conf.Config) int64 {
	mb := c.Int64("mr3.am.resource.memory.mb")
	if c.Bool("ebb.am.uber.enabled") {
		mb += c.Int64("ebb.am.uber.memory.mb")
	}
	return mb
}
