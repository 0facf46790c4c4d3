package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/ebb-am/ebb/am/kubeworld"
)

// kubeTest is one test's view of the test Kubernetes cluster
// (scripts/kube/start.sh, EBB_TEST_KUBE_DIR): a namespace of its own, the
// image ebb:test mapped to this tree's binary, and the settings `ebb
// submit --master kubernetes` needs to run there.
type kubeTest struct {
	t          *testing.T
	dir        string
	kubeconfig string
	cs         kubernetes.Interface
	ns         string
}

func newKubeTest(t *testing.T) *kubeTest {
	t.Helper()
	dir := os.Getenv("EBB_TEST_KUBE_DIR")
	if dir == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("EBB_TEST_KUBE_DIR is not set (CI=true: the test cluster is required; scripts/kube/start.sh)")
		}
		t.Skip("EBB_TEST_KUBE_DIR is not set: start the cluster with scripts/kube/start.sh")
	}
	k := &kubeTest{t: t, dir: dir, kubeconfig: filepath.Join(dir, "kubeconfig")}
	cs, _, err := kubeworld.Connect(k.kubeconfig, "")
	if err != nil {
		t.Fatal(err)
	}
	k.cs = cs
	// The image map: the last line for an image wins, so this test's
	// binary is ebb:test from now on.
	f, err := os.OpenFile(filepath.Join(dir, "images"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(f, "ebb:test=%s\n", ebbBin); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	k.ns = fmt.Sprintf("t%d", time.Now().UnixNano()%1e9)
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: k.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), k.ns, metav1.DeleteOptions{}) // testca empties and finalizes it
	})
	return k
}

// freeKubePort is a port free on loopback for the AM and the next one
// for its UI (pods share the host's network here).
func freeKubePort(t *testing.T) int {
	t.Helper()
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if l2, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p+1)); err == nil {
			_ = l2.Close()
			return p
		}
	}
	t.Fatal("no two free ports in a row")
	return 0
}

// submit runs `ebb submit --master kubernetes` with the test's settings.
func (k *kubeTest) submit(args ...string) (string, error) {
	k.t.Helper()
	sets := []string{"--master", "kubernetes", "--set", "mr3.k8s.client.config.file=" + k.kubeconfig, "--set", "mr3.k8s.namespace=" + k.ns,
		"--set", "mr3.k8s.pod.master.image=ebb:test", "--set", "mr3.k8s.pod.worker.image=ebb:test",
		"--set", "mr3.am.resource.memory.mb=512", "--set", fmt.Sprintf("ebb.k8s.am.port=%d", freeKubePort(k.t))}
	cmd := exec.Command(ebbBin, append(append([]string{"submit"}, sets...), args...)...)
	cmd.Env = append(os.Environ(), "EBB_CONF_DIR=", "HADOOP_CONF_DIR=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// wordcountDAG is examples/wordcount.yaml with its input's absolute path
// (the AM reads the DAG from its ConfigMap, far from examples/).
func wordcountDAG(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../examples/wordcount.yaml")
	if err != nil {
		t.Fatal(err)
	}
	input, err := filepath.Abs("../../examples/wordcount-input.txt")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "wordcount.yaml")
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "[wordcount-input.txt]", "["+input+"]")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestKubeWordCount runs the word count DAG end to end on the test
// cluster as a user would: `ebb submit --master kubernetes` makes the AM
// pod, whose world makes worker pods on the kwok nodes; the counts must
// be the test's own. It is given S3 settings (unused: the DAG is local):
// the credential is in the Secret, which the AM pod mounts and reads,
// and not in the ConfigMap.
func TestKubeWordCount(t *testing.T) {
	k := newKubeTest(t)
	out := filepath.Join(t.TempDir(), "out")
	const s3Key = "AKIAKUBEWORDCOUNT"
	text, err := k.submit(wordcountDAG(t), "--output", out, "--set", "fs.s3a.endpoint=http://127.0.0.1:9",
		"--set", "fs.s3a.access.key="+s3Key, "--set", "fs.s3a.secret.key=not-used")
	if err != nil {
		t.Fatalf("ebb submit: %v\n%s\nAM log:\n%s", err, text, k.amLog())
	}
	if !strings.Contains(text, "SUCCEEDED") {
		t.Fatalf("ebb submit printed:\n%s", text)
	}
	want := countWords(t, "../../examples/wordcount-input.txt")
	got := readCounts(t, out)
	if len(got) != len(want) {
		t.Fatalf("%d words counted, want %d", len(got), len(want))
	}
	for w, n := range want {
		if got[w] != n {
			t.Errorf("%q: %d, want %d", w, got[w], n)
		}
	}
	k.checkS3InSecretOnly(s3Key)
	t.Logf("ebb submit printed:\n%s", text)
}

// checkS3InSecretOnly: the application's ConfigMap does not hold key, its
// Secret's s3-credentials does.
func (k *kubeTest) checkS3InSecretOnly(key string) {
	k.t.Helper()
	ctx := context.Background()
	cms, err := k.cs.CoreV1().ConfigMaps(k.ns).List(ctx, metav1.ListOptions{LabelSelector: "ebb.io/role=am"})
	if err != nil || len(cms.Items) != 1 {
		k.t.Fatalf("the AM's ConfigMap: %v %v", cms, err)
	}
	if strings.Contains(cms.Items[0].Data["mr3-site.xml"], key) {
		k.t.Errorf("the ConfigMap holds the S3 access key")
	}
	secs, err := k.cs.CoreV1().Secrets(k.ns).List(ctx, metav1.ListOptions{LabelSelector: "ebb.io/role=am"})
	if err != nil || len(secs.Items) != 1 || !strings.Contains(string(secs.Items[0].Data["s3-credentials"]), key) {
		k.t.Errorf("the AM's Secret lacks the S3 access key in s3-credentials: %v", err)
	}
}

// amLog is the AM pod's log (testkubelet keeps each pod's).
func (k *kubeTest) amLog() string {
	ms, _ := filepath.Glob(filepath.Join(k.dir, "pods", k.ns+"_*-am", "log"))
	var b strings.Builder
	for _, m := range ms {
		f, err := os.Open(m)
		if err != nil {
			continue
		}
		s := bufio.NewScanner(f)
		for s.Scan() {
			b.WriteString(s.Text() + "\n")
		}
		_ = f.Close() // read only
	}
	return b.String()
}

// kubeconfigFor writes a kubeconfig that speaks as service account sa of
// the test's namespace (a token from the TokenRequest API).
func (k *kubeTest) kubeconfigFor(sa string) string {
	k.t.Helper()
	ctx := context.Background()
	if _, err := k.cs.CoreV1().ServiceAccounts(k.ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
		k.t.Fatal(err)
	}
	tok, err := k.cs.CoreV1().ServiceAccounts(k.ns).CreateToken(ctx, sa, &authnv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		k.t.Fatal(err)
	}
	env := map[string]string{}
	b, err := os.ReadFile(filepath.Join(k.dir, "kube.env"))
	if err != nil {
		k.t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if key, v, ok := strings.Cut(l, "="); ok {
			env[key] = v
		}
	}
	p := filepath.Join(k.t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: %q, certificate-authority: %q}}]
users: [{name: %s, user: {token: %q}}]
contexts: [{name: test, context: {cluster: test, user: %s, namespace: %s}}]
current-context: test
`, env["EBB_KUBE_SERVER"], env["EBB_KUBE_CA"], sa, tok.Status.Token, sa, k.ns)
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		k.t.Fatal(err)
	}
	return p
}

// TestKubeSubmitRefusesMissingRBAC: a user whose Role grants everything
// `ebb submit` does but "watch" on nodes is refused in one line naming
// it, before anything is created, by the real API server's RBAC.
func TestKubeSubmitRefusesMissingRBAC(t *testing.T) {
	k := newKubeTest(t)
	ctx := context.Background()
	all := []string{"create", "get", "list", "watch", "patch", "delete", "deletecollection"}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: k.ns + "-submitter"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods", "configmaps", "secrets", "services", "serviceaccounts"}, Verbs: all},
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"roles", "rolebindings", "clusterroles", "clusterrolebindings"}, Verbs: all},
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list"}}, // no watch
	}}
	if _, err := k.cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = k.cs.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
	})
	crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "submitter", Namespace: k.ns}},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name}}
	if _, err := k.cs.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = k.cs.RbacV1().ClusterRoleBindings().Delete(context.Background(), crb.Name, metav1.DeleteOptions{})
	})
	kc := k.kubeconfigFor("submitter")
	k.kubeconfig = kc
	text, err := k.submit(wordcountDAG(t))
	if err == nil {
		t.Fatalf("ebb submit accepted a caller that may not watch nodes:\n%s", text)
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "may not watch nodes (cluster-wide)") {
		t.Errorf("ebb submit printed %q, want one line naming watch nodes", text)
	}
	pods, err := k.cs.CoreV1().Pods(k.ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) != 0 {
		t.Errorf("pods after the refusal: %v %v", pods, err)
	}
	t.Logf("ebb submit printed: %s", text)
}

// TestKubePreemptedWorkerIsNotAFailure: a higher-priority pod that needs
// a whole node preempts ebb's workers (PriorityClass -10, below the AM
// pod's 0, so the scheduler takes workers, not the AM) mid-DAG, and one
// worker the preemption spared is then evicted (testkubelet's eviction:
// phase Failed, reason Evicted, DisruptionTarget TerminationByKubelet);
// their attempts run again elsewhere (testca adds a node) and the DAG
// succeeds with 0 failed attempts, the workers counted as preempted and
// the one as evicted, though each connection closed before the pod's
// status said why.
func TestKubePreemptedWorkerIsNotAFailure(t *testing.T) {
	k := newKubeTest(t)
	ctx := context.Background()
	for name, v := range map[string]int32{k.ns + "-low": -10, k.ns + "-high": 1000} {
		pc := &schedv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: v}
		if _, err := k.cs.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = k.cs.SchedulingV1().PriorityClasses().Delete(context.Background(), name, metav1.DeleteOptions{})
		})
	}
	spec := filepath.Join(t.TempDir(), "sleep.yaml")
	if err := os.WriteFile(spec, []byte(`name: sleepers
containerGroup: {name: sleepers, workerMemoryMB: 1024, workerVCores: 1}
vertices: [{name: sleep, command: [sh, -c, "sleep 8"], parallelism: 4, memoryMB: 1024}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := k.submitInBackground(spec, "--set", "ebb.k8s.pod.worker.priority.class.name="+k.ns+"-low")
	k.waitRunningWorkers(4)
	high := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "high", Namespace: k.ns}, Spec: corev1.PodSpec{
		PriorityClassName: k.ns + "-high", RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"sleep", "60"},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}}}}}
	if _, err := k.cs.CoreV1().Pods(k.ns).Create(ctx, high, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	evicted := k.evictSparedWorker()
	<-sub.done
	text, err := sub.text, sub.err
	log := k.amLog()
	// The AM's own last line (ebb submit prints it too, from the pod's
	// log, when the pod is still there to read it from).
	m := regexp.MustCompile(`SUCCEEDED \((\d+)/4 tasks, 0 failed attempts, [^,]*, worker pods taken by the cluster: (\d+) preempted, (\d+) evicted\)`).FindStringSubmatch(log)
	if err != nil || m == nil {
		t.Fatalf("ebb submit: %v\n%s\nAM log:\n%s", err, text, log)
	}
	hp, err := k.cs.CoreV1().Pods(k.ns).Get(ctx, "high", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lost := regexp.MustCompile(`worker \S+ lost \(`).FindAllString(log, -1)
	if hp.Spec.NodeName == "" || len(lost) == 0 {
		t.Fatalf("the high-priority pod (on node %q) took no worker's place; AM log:\n%s", hp.Spec.NodeName, log)
	}
	// Every worker lost was preempted (the high pod's node held them) but
	// the one evicted; a worker the AM was already stopping is counted
	// without a line.
	pre, _ := strconv.Atoi(m[2])
	if m[1] != "4" || pre < 1 || m[3] != "1" || pre+1 < len(lost) {
		t.Fatalf("%s/4 tasks; %d workers lost, counted as %d preempted and %s evicted; want 4/4, all preempted but %s, evicted; AM log:\n%s",
			m[1], len(lost), pre, m[3], evicted, log)
	}
	t.Logf("%d workers lost, %d counted as preempted, %s as evicted (%s); ebb submit printed:\n%s", len(lost), pre, m[3], evicted, text)
}

// evictSparedWorker waits, up to a deadline, for the pod "high" to be
// bound, then has testkubelet evict a running worker pod on another node
// (its fault annotation); it returns the pod's name.
func (k *kubeTest) evictSparedWorker() string {
	k.t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		hp, err := k.cs.CoreV1().Pods(k.ns).Get(ctx, "high", metav1.GetOptions{})
		if err != nil {
			k.t.Fatal(err)
		}
		if hp.Spec.NodeName != "" {
			l, err := k.cs.CoreV1().Pods(k.ns).List(ctx, metav1.ListOptions{LabelSelector: "ebb.io/role=worker"})
			if err != nil {
				k.t.Fatal(err)
			}
			for _, p := range l.Items {
				if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil && p.Spec.NodeName != hp.Spec.NodeName {
					patch := []byte(`{"metadata":{"annotations":{"testkubelet.ebb.io/fault":"evict"}}}`)
					if _, err := k.cs.CoreV1().Pods(k.ns).Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
						k.t.Fatal(err)
					}
					return p.Name
				}
			}
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("no running worker beside the high-priority pod (node %q) within 2 min", hp.Spec.NodeName)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitRunningWorkers waits, up to a deadline, for n running worker pods.
func (k *kubeTest) waitRunningWorkers(n int) {
	k.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		l, err := k.cs.CoreV1().Pods(k.ns).List(context.Background(), metav1.ListOptions{LabelSelector: "ebb.io/role=worker"})
		if err != nil {
			k.t.Fatal(err)
		}
		running := 0
		for _, p := range l.Items {
			if p.Status.Phase == corev1.PodRunning {
				running++
			}
		}
		if running >= n {
			return
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("%d worker pods running after 2 min, want %d", running, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// submission is an `ebb submit` the test follows from another goroutine:
// done closes when it returns, and then text and err are what it gave.
type submission struct {
	done chan struct{}
	text string
	err  error
}

// submitInBackground starts `ebb submit args...` and returns at once, so
// the test can act on the cluster while the DAG runs.
func (k *kubeTest) submitInBackground(args ...string) *submission {
	s := &submission{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.text, s.err = k.submit(args...)
	}()
	return s
}
