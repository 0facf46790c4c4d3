package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodIP is every pod's IP: processes share the host's network.
const PodIP = "127.0.0.1"

// launch is how to run a pod's first container here.
type launch struct {
	argv   []string
	env    []string
	image  string
	binary string
}

// prepare resolves the pod's first container into a local command: its
// image to a binary (the images file), its volumes to directories under
// the pod's, its environment (downward API, Secrets, ConfigMaps), with
// every mountPath in its arguments and environment rewritten to the
// volume's directory. The reason names what a kubelet would say.
func (r *podRun) prepare(ctx context.Context, p *corev1.Pod) (*launch, string, error) {
	c := p.Spec.Containers[0]
	binary, ok, err := lookupImage(r.k.images, c.Image)
	if err != nil {
		return nil, "ErrImagePull", err
	}
	if !ok {
		return nil, "ErrImagePull", fmt.Errorf("image %q is not in %s (add a line %s=/path/to/binary)", c.Image, r.k.images, c.Image)
	}
	mounts, sa, err := r.volumes(ctx, p, c)
	if err != nil {
		return nil, "CreateContainerConfigError", err
	}
	env, err := r.environment(ctx, p, c, sa)
	if err != nil {
		return nil, "CreateContainerConfigError", err
	}
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	var argv []string
	for _, a := range append(append([]string{}, c.Command...), c.Args...) {
		argv = append(argv, rewrite(expand(a, vars), mounts))
	}
	for i, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		env[i] = k + "=" + rewrite(v, mounts)
	}
	if len(argv) == 0 {
		if binary == "" {
			return nil, "CreateContainerConfigError", fmt.Errorf("no command, and image %q is mapped to no binary", c.Image)
		}
		argv = []string{binary}
	}
	switch {
	case binary != "" && filepath.Base(argv[0]) == filepath.Base(binary):
		argv[0] = binary
	default:
		path, err := exec.LookPath(argv[0])
		if err != nil {
			return nil, "CreateContainerError", fmt.Errorf("command %q: %w", argv[0], err)
		}
		argv[0] = path
	}
	return &launch{argv: argv, env: env, image: c.Image, binary: argv[0]}, "", nil
}

// lookupImage reads the images file: IMAGE=BINARY lines, the last for an
// image winning; an empty BINARY runs the pod's command from the host's
// PATH.
func lookupImage(file, image string) (string, bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", false, fmt.Errorf("the images file: %w", err)
	}
	defer func() { _ = f.Close() }()
	var binary string
	found := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && k == image {
			binary, found = v, true
		}
	}
	return binary, found, sc.Err()
}

// environment is the container's environment: a base a container runtime
// would give (PATH, HOME, HOSTNAME), the harness's EBB_KUBE_POD_DIR and
// EBB_KUBE_SERVER, KUBECONFIG when a service-account token is mounted
// (in-cluster credentials cannot be faked on a shared host),
// then envFrom and env in order, with $(VAR) expanded.
func (r *podRun) environment(ctx context.Context, p *corev1.Pod, c corev1.Container, sa bool) ([]string, error) {
	var order []string
	vars := map[string]string{}
	set := func(k, v string) {
		if _, ok := vars[k]; !ok {
			order = append(order, k)
		}
		vars[k] = v
	}
	set("PATH", os.Getenv("PATH"))
	set("HOME", r.dir)
	set("HOSTNAME", p.Name)
	set("EBB_KUBE_POD_DIR", r.dir)
	set("EBB_KUBE_SERVER", r.k.server)
	if sa {
		// Not KUBERNETES_SERVICE_HOST/_PORT: programs take them to mean
		// "in a pod, use rest.InClusterConfig", whose token path no pod
		// can have to itself here.
		set("KUBECONFIG", filepath.Join(r.dir, "kubeconfig"))
	}
	for _, ef := range c.EnvFrom {
		data, err := r.sourceData(ctx, p.Namespace, ef.ConfigMapRef, ef.SecretRef)
		if err != nil {
			return nil, err
		}
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			set(ef.Prefix+k, data[k])
		}
	}
	for _, e := range c.Env {
		v, err := r.envValue(ctx, p, c, e, vars)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", e.Name, err)
		}
		set(e.Name, v)
	}
	env := make([]string, 0, len(order))
	for _, k := range order {
		env = append(env, k+"="+vars[k])
	}
	return env, nil
}

func (r *podRun) envValue(ctx context.Context, p *corev1.Pod, c corev1.Container, e corev1.EnvVar, vars map[string]string) (string, error) {
	vf := e.ValueFrom
	switch {
	case vf == nil:
		return expand(e.Value, vars), nil
	case vf.FieldRef != nil:
		return fieldValue(p, vf.FieldRef.FieldPath)
	case vf.ResourceFieldRef != nil:
		return resourceValue(c, vf.ResourceFieldRef)
	case vf.SecretKeyRef != nil:
		s, err := r.k.cs.CoreV1().Secrets(p.Namespace).Get(ctx, vf.SecretKeyRef.Name, metav1.GetOptions{})
		if err != nil {
			return "", optional(vf.SecretKeyRef.Optional, err)
		}
		v, ok := s.Data[vf.SecretKeyRef.Key]
		if !ok {
			return "", optional(vf.SecretKeyRef.Optional, fmt.Errorf("secret %s has no key %s", s.Name, vf.SecretKeyRef.Key))
		}
		return string(v), nil
	case vf.ConfigMapKeyRef != nil:
		cm, err := r.k.cs.CoreV1().ConfigMaps(p.Namespace).Get(ctx, vf.ConfigMapKeyRef.Name, metav1.GetOptions{})
		if err != nil {
			return "", optional(vf.ConfigMapKeyRef.Optional, err)
		}
		v, ok := cm.Data[vf.ConfigMapKeyRef.Key]
		if !ok {
			return "", optional(vf.ConfigMapKeyRef.Optional, fmt.Errorf("configmap %s has no key %s", cm.Name, vf.ConfigMapKeyRef.Key))
		}
		return v, nil
	}
	return "", fmt.Errorf("unsupported valueFrom")
}

// optional: an optional reference that fails is an empty value (the
// kubelet's rule); a required one is an error.
func optional(opt *bool, err error) error {
	if opt != nil && *opt {
		return nil
	}
	return err
}

func (r *podRun) sourceData(ctx context.Context, ns string, cmRef *corev1.ConfigMapEnvSource, sRef *corev1.SecretEnvSource) (map[string]string, error) {
	out := map[string]string{}
	if cmRef != nil {
		cm, err := r.k.cs.CoreV1().ConfigMaps(ns).Get(ctx, cmRef.Name, metav1.GetOptions{})
		if err != nil {
			return out, optional(cmRef.Optional, err)
		}
		for k, v := range cm.Data {
			out[k] = v
		}
	}
	if sRef != nil {
		s, err := r.k.cs.CoreV1().Secrets(ns).Get(ctx, sRef.Name, metav1.GetOptions{})
		if err != nil {
			return out, optional(sRef.Optional, err)
		}
		for k, v := range s.Data {
			out[k] = string(v)
		}
	}
	return out, nil
}

// fieldValue is the downward API's value of path for pod p on this host.
func fieldValue(p *corev1.Pod, path string) (string, error) {
	switch path {
	case "metadata.name":
		return p.Name, nil
	case "metadata.namespace":
		return p.Namespace, nil
	case "metadata.uid":
		return string(p.UID), nil
	case "spec.nodeName":
		return p.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return p.Spec.ServiceAccountName, nil
	case "status.podIP", "status.podIPs", "status.hostIP", "status.hostIPs":
		return PodIP, nil
	}
	for _, pre := range []string{"metadata.labels", "metadata.annotations"} {
		if key, ok := strings.CutPrefix(path, pre+"['"); ok {
			key = strings.TrimSuffix(key, "']")
			if pre == "metadata.labels" {
				return p.Labels[key], nil
			}
			return p.Annotations[key], nil
		}
	}
	return "", fmt.Errorf("fieldPath %q is not supported by testkubelet", path)
}

// resourceValue is a resourceFieldRef's value: the container's limit (or
// request) in units of its divisor, rounded up, as the kubelet does.
func resourceValue(c corev1.Container, ref *corev1.ResourceFieldSelector) (string, error) {
	kind, name, ok := strings.Cut(ref.Resource, ".")
	if !ok {
		return "", fmt.Errorf("resource %q", ref.Resource)
	}
	list := c.Resources.Limits
	if kind == "requests" {
		list = c.Resources.Requests
	}
	q, ok := list[corev1.ResourceName(name)]
	if !ok {
		return "0", nil
	}
	div := ref.Divisor
	if div.IsZero() {
		div = resource.MustParse("1")
	}
	v := (q.MilliValue() + div.MilliValue() - 1) / div.MilliValue()
	return strconv.FormatInt(v, 10), nil
}

// expand replaces $(NAME) by the variable's value when it is defined
// ($$ escapes a $), as the kubelet expands command, args and env.
func expand(s string, vars map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+2 : i+end]
			if v, ok := vars[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+end+1])
			}
			i += end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}

// rewrite replaces a leading mountPath in s (the whole of s, or what
// follows a flag's '=') by the volume's local directory: all pods share
// the host's file system, so a mountPath cannot be where the volume is.
func rewrite(s string, mounts []mount) string {
	prefix := ""
	if k, v, ok := strings.Cut(s, "="); ok && strings.HasPrefix(v, "/") {
		prefix, s = k+"=", v
	}
	for _, m := range mounts {
		if s == m.path || strings.HasPrefix(s, m.path+"/") {
			return prefix + m.local + s[len(m.path):]
		}
	}
	return prefix + s
}
