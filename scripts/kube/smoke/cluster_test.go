// Package smoke tests the test cluster itself (start.sh's): real
// apiserver, scheduler and etcd, kwok's nodes, testkubelet and testca.
// It needs a started cluster: EBB_TEST_KUBE_DIR=$(scripts/kube/start.sh).
// Without one it skips, or fails under CI=true.
package smoke

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

type cluster struct {
	env map[string]string
	cs  *kubernetes.Clientset
	ns  string
}

// start finds the cluster and makes the test a namespace of its own,
// deleted at the end (testca finalizes it).
func start(t *testing.T) *cluster {
	t.Helper()
	dir := os.Getenv("EBB_TEST_KUBE_DIR")
	if dir == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("EBB_TEST_KUBE_DIR is not set (CI=true: the test cluster is required; scripts/kube/start.sh)")
		}
		t.Skip("EBB_TEST_KUBE_DIR is not set: start the cluster with scripts/kube/start.sh")
	}
	f, err := os.Open(filepath.Join(dir, "kube.env"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", env["KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{env: env, cs: cs, ns: fmt.Sprintf("smoke-%s-%d", strings.ToLower(t.Name()), time.Now().UnixNano()%100000)}
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: c.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), c.ns, metav1.DeleteOptions{})
	})
	// testca gives the namespace its default ServiceAccount; pods need it.
	c.until(t, "the namespace's default ServiceAccount", 30*time.Second, func() (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts(c.ns).Get(context.Background(), "default", metav1.GetOptions{})
		return err == nil, nil
	})
	return c
}

// until polls cond until it holds, failing the test at the deadline.
func (c *cluster) until(t *testing.T, what string, d time.Duration, cond func() (bool, error)) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, d, true,
		func(context.Context) (bool, error) { return cond() })
	if err != nil {
		t.Fatalf("waiting %v for %s: %v", d, what, err)
	}
}

// pod is a pod of busybox (the host's commands) running sh -c script,
// restartPolicy Never, with small requests.
func pod(name, script string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "main", Image: "busybox", Command: []string{"sh", "-c", script},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: mustQ("100m"), corev1.ResourceMemory: mustQ("64Mi")}}}},
		},
	}
}

func (c *cluster) create(t *testing.T, p *corev1.Pod) *corev1.Pod {
	t.Helper()
	out, err := c.cs.CoreV1().Pods(c.ns).Create(context.Background(), p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (c *cluster) get(t *testing.T, name string) *corev1.Pod {
	t.Helper()
	p, err := c.cs.CoreV1().Pods(c.ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// phase waits for pod name to reach phase.
func (c *cluster) phase(t *testing.T, name string, phase corev1.PodPhase, d time.Duration) *corev1.Pod {
	t.Helper()
	var p *corev1.Pod
	c.until(t, "pod "+name+" "+string(phase), d, func() (bool, error) {
		q, err := c.cs.CoreV1().Pods(c.ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		p = q
		return q.Status.Phase == phase, nil
	})
	return p
}

// fault asks testkubelet's control endpoint for a fault.
func (c *cluster) fault(t *testing.T, name, kind string) {
	t.Helper()
	q := url.Values{"namespace": {c.ns}, "pod": {name}, "kind": {kind}}
	resp, err := http.Post(c.env["EBB_KUBE_KUBELET"]+"/fault?"+q.Encode(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("fault %s on %s: %s", kind, name, resp.Status)
	}
}

func (c *cluster) deleted(t *testing.T, name string, d time.Duration) {
	t.Helper()
	c.until(t, "pod "+name+" gone", d, func() (bool, error) {
		_, err := c.cs.CoreV1().Pods(c.ns).Get(context.Background(), name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}
