package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// mount is a container's volumeMount: path inside the container, local
// the directory on this host it stands for.
type mount struct{ path, local string }

// rootCA is the ConfigMap a controller manager publishes in every
// namespace; the test cluster has none, so the cluster's CA stands in.
const rootCA = "kube-root-ca.crt"

// volumes materialises the pod's volumes under <pod dir>/volumes/<name>
// (a hostPath is the host's path itself) and returns c's mounts, longest
// path first, and whether a service-account token is among them.
func (r *podRun) volumes(ctx context.Context, p *corev1.Pod, c corev1.Container) ([]mount, bool, error) {
	local := map[string]string{}
	sa := false
	for _, v := range p.Spec.Volumes {
		d := filepath.Join(r.dir, "volumes", v.Name)
		var err error
		switch {
		case v.EmptyDir != nil:
			err = os.MkdirAll(d, 0o755) // kept across restarts, as an emptyDir is
		case v.HostPath != nil:
			d = v.HostPath.Path
		case v.ConfigMap != nil:
			err = r.configMapFiles(ctx, p.Namespace, d, v.ConfigMap.Name, v.ConfigMap.Items, v.ConfigMap.Optional)
		case v.Secret != nil:
			err = r.secretFiles(ctx, p.Namespace, d, v.Secret.SecretName, v.Secret.Items, v.Secret.Optional)
		case v.DownwardAPI != nil:
			err = downwardFiles(p, d, v.DownwardAPI.Items)
		case v.Projected != nil:
			var tok bool
			tok, err = r.projected(ctx, p, d, v.Projected.Sources)
			sa = sa || tok
		default:
			err = fmt.Errorf("volume %s: only emptyDir, hostPath, configMap, secret, downwardAPI and projected volumes are supported", v.Name)
		}
		if err != nil {
			return nil, false, fmt.Errorf("volume %s: %w", v.Name, err)
		}
		local[v.Name] = d
	}
	var mounts []mount
	for _, vm := range c.VolumeMounts {
		d, ok := local[vm.Name]
		if !ok {
			return nil, false, fmt.Errorf("volumeMount %s names no volume", vm.Name)
		}
		if vm.SubPath != "" {
			d = filepath.Join(d, vm.SubPath)
			if err := os.MkdirAll(d, 0o755); err != nil {
				return nil, false, err
			}
		}
		mounts = append(mounts, mount{path: filepath.Clean(vm.MountPath), local: d})
	}
	sort.Slice(mounts, func(i, j int) bool { return len(mounts[i].path) > len(mounts[j].path) })
	return mounts, sa, nil
}

func (r *podRun) configMapFiles(ctx context.Context, ns, dir, name string, items []corev1.KeyToPath, opt *bool) error {
	data := map[string][]byte{}
	cm, err := r.k.cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil:
		for k, v := range cm.Data {
			data[k] = []byte(v)
		}
		for k, v := range cm.BinaryData {
			data[k] = v
		}
	case apierrors.IsNotFound(err) && name == rootCA:
		data["ca.crt"] = r.k.ca
	default:
		if e := optional(opt, err); e != nil {
			return e
		}
	}
	return writeKeys(dir, data, items)
}

func (r *podRun) secretFiles(ctx context.Context, ns, dir, name string, items []corev1.KeyToPath, opt *bool) error {
	s, err := r.k.cs.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		if e := optional(opt, err); e != nil {
			return e
		}
		return os.MkdirAll(dir, 0o755)
	}
	return writeKeys(dir, s.Data, items)
}

// writeKeys writes each key (or each item's key to its path) as a file.
func writeKeys(dir string, data map[string][]byte, items []corev1.KeyToPath) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if len(items) == 0 {
		for k, v := range data {
			if err := writeFile(filepath.Join(dir, k), v, 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	for _, it := range items {
		v, ok := data[it.Key]
		if !ok {
			return fmt.Errorf("no key %s", it.Key)
		}
		if err := writeFile(filepath.Join(dir, it.Path), v, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func downwardFiles(p *corev1.Pod, dir string, items []corev1.DownwardAPIVolumeFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, it := range items {
		if it.FieldRef == nil {
			return fmt.Errorf("%s: only fieldRef items are supported", it.Path)
		}
		v, err := fieldValue(p, it.FieldRef.FieldPath)
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dir, it.Path), []byte(v), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// projected writes a projected volume's sources into dir; a
// serviceAccountToken source is a real token for the pod's service
// account (TokenRequest, bound to the pod), so RBAC applies to what the
// pod does, and it also gets <pod dir>/kubeconfig using that token.
func (r *podRun) projected(ctx context.Context, p *corev1.Pod, dir string, sources []corev1.VolumeProjection) (bool, error) {
	sa := false
	for _, s := range sources {
		var err error
		switch {
		case s.ConfigMap != nil:
			err = r.configMapFiles(ctx, p.Namespace, dir, s.ConfigMap.Name, s.ConfigMap.Items, s.ConfigMap.Optional)
		case s.Secret != nil:
			err = r.secretFiles(ctx, p.Namespace, dir, s.Secret.Name, s.Secret.Items, s.Secret.Optional)
		case s.DownwardAPI != nil:
			err = downwardFiles(p, dir, s.DownwardAPI.Items)
		case s.ServiceAccountToken != nil:
			err = r.token(ctx, p, dir, s.ServiceAccountToken)
			sa = true
		default:
			err = fmt.Errorf("unsupported projected source")
		}
		if err != nil {
			return false, err
		}
	}
	return sa, nil
}

func (r *podRun) token(ctx context.Context, p *corev1.Pod, dir string, src *corev1.ServiceAccountTokenProjection) error {
	sa := p.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	var aud []string
	if src.Audience != "" {
		aud = []string{src.Audience}
	}
	tr, err := r.k.cs.CoreV1().ServiceAccounts(p.Namespace).CreateToken(ctx, sa, &authv1.TokenRequest{
		Spec: authv1.TokenRequestSpec{Audiences: aud, ExpirationSeconds: src.ExpirationSeconds,
			BoundObjectRef: &authv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: p.Name, UID: p.UID}},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("token for service account %s/%s: %w", p.Namespace, sa, err)
	}
	tokenFile := filepath.Join(dir, src.Path)
	if err := writeFile(tokenFile, []byte(tr.Status.Token), 0o600); err != nil {
		return err
	}
	caFile := filepath.Join(r.dir, "ca.crt")
	if err := writeFile(caFile, r.k.ca, 0o644); err != nil {
		return err
	}
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: in-cluster
  cluster: {server: %q, certificate-authority: %q}
users:
- name: %s
  user: {tokenFile: %q}
contexts:
- name: in-cluster
  context: {cluster: in-cluster, user: %s, namespace: %q}
current-context: in-cluster
`, r.k.server, caFile, sa, tokenFile, sa, p.Namespace)
	return writeFile(filepath.Join(r.dir, "kubeconfig"), []byte(kc), 0o600)
}
