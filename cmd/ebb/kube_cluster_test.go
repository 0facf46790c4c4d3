package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
// be the test's own.
func TestKubeWordCount(t *testing.T) {
	k := newKubeTest(t)
	out := filepath.Join(t.TempDir(), "out")
	text, err := k.submit(wordcountDAG(t), "--output", out)
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
	t.Logf("ebb submit printed:\n%s", text)
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
