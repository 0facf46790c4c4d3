package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/kubeworld"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/kubeclient"
	"github.com/ebb-am/ebb/yarnclient"
	"github.com/ebb-am/ebb/yarnrpc"
)

// kubeApp is an application's name on Kubernetes: the DAG's (or
// --name), made a DNS label, with a random suffix so that two submits of
// one DAG do not meet.
func kubeApp(name string) (string, error) {
	s := strings.Trim(regexp.MustCompile(`[^a-z0-9-]+`).ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(s) > 30 {
		s = strings.Trim(s[:30], "-")
	}
	if s == "" {
		s = "ebb"
	}
	b := make([]byte, 3)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return s + "-" + hex.EncodeToString(b), nil
}

// runKubeSubmit is `ebb submit` with mr3.master.mode=kubernetes: it
// makes the AM pod and what it needs, then follows it to its end.
func runKubeSubmit(ctx context.Context, c *conf.Config, o submitOptions, out, errOut io.Writer) error {
	if err := c.CheckKubernetes(); err != nil {
		return err
	}
	so, err := kubeSubmitOptions(c, o)
	if err != nil {
		return err
	}
	cs, _, err := kubeworld.Connect(c.String("mr3.k8s.client.config.file"), "")
	if err != nil {
		return err
	}
	p := &printer{w: out}
	say := func(s string) { (&printer{w: errOut}).println("ebb submit:", s) }
	pod, err := kubeclient.Submit(ctx, cs, so, say)
	if err != nil {
		return err
	}
	p.printf("submitted application %s: pod %s in namespace %s; logs: kubectl logs -n %s %s; status UI: kubectl port-forward -n %s service/%s-am %d\n",
		so.App, pod.Name, so.Namespace, so.Namespace, pod.Name, so.Namespace, so.App, so.Port+1)
	if o.detach {
		return p.done(nil)
	}
	ok, line, err := kubeclient.Follow(ctx, cs, so.Namespace, pod.Name, say)
	if errors.Is(err, context.Canceled) {
		return p.done(fmt.Errorf("stopped following %s; the application keeps running: stop it with `ebb kill %s --master kubernetes`", so.App, so.App))
	}
	if err != nil {
		return p.done(err)
	}
	p.println(line)
	if !ok {
		return p.done(exitCode2(errors.New(line)))
	}
	return p.done(nil)
}

// kubeSubmitOptions are the application's objects' settings, from the
// keys and flags.
func kubeSubmitOptions(c *conf.Config, o submitOptions) (kubeclient.SubmitOptions, error) {
	var so kubeclient.SubmitOptions
	name := o.Name
	if o.DAGPath != "" {
		spec, err := os.ReadFile(o.DAGPath)
		if err != nil {
			return so, err
		}
		d, err := dag.Parse(o.DAGPath, spec)
		if err != nil {
			return so, err
		}
		if name == "" {
			name = d.Name
		}
		so.DAG, so.DAGName = spec, filepath.Base(o.DAGPath)
	}
	if name == "" {
		name = "ebb-session"
	}
	app, err := kubeApp(name)
	if err != nil {
		return so, err
	}
	secret, err := am.NewSecret()
	if err != nil {
		return so, err
	}
	var xml bytes.Buffer
	if err := conf.WriteXML(&xml, yarnclient.WithoutS3Secrets(c.Effective())); err != nil {
		return so, err
	}
	so = kubeclient.SubmitOptions{App: app, Namespace: c.String("mr3.k8s.namespace"), ConfXML: xml.Bytes(), DAG: so.DAG, DAGName: so.DAGName,
		Output: o.Output, Overwrite: o.Overwrite, Image: c.String("mr3.k8s.pod.master.image"), PullPolicy: c.String("mr3.k8s.pod.image.pull.policy"),
		MemoryMB: c.Int64("mr3.am.resource.memory.mb"), VCores: c.Int("mr3.am.resource.cpu.cores"), Port: c.Int("ebb.k8s.am.port"),
		Secret: secret, WorkerSecret: c.String("mr3.k8s.worker.secret"), AMServiceAccount: c.String("mr3.k8s.pod.master.serviceaccount"),
		PriorityClass: c.String("ebb.k8s.pod.worker.priority.class.name")}
	if so.WorkerSecret == "" {
		so.WorkerSecret = app + "-secret"
	}
	// The fs.s3a.* settings, and the caller's AWS credentials when they
	// name no access key, as on YARN (yarnclient.S3Secrets).
	if s3 := yarnclient.S3Secrets(c, nil); len(s3) > 0 {
		so.S3Credentials = (&yarnrpc.Credentials{Secrets: s3}).MarshalWritable()
	}
	if so.AMServiceAccount == "" {
		so.AMServiceAccount, so.OwnRBAC = app+"-am", true
	}
	return so, nil
}
