package kubeclient

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	authv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	goruntime "runtime"

	"github.com/ebb-am/ebb/am/kubeworld"
)

// rbac answers SelfSubjectAccessReviews: everything is allowed but deny
// ("verb resource").
func rbac(cs *fake.Clientset, deny ...string) {
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authv1.SelfSubjectAccessReview)
		r.Status.Allowed = !slices.Contains(deny, r.Spec.ResourceAttributes.Verb+" "+r.Spec.ResourceAttributes.Resource)
		return true, r, nil
	})
}

func testOptions() SubmitOptions {
	return SubmitOptions{App: "wc-1a2b3c", Namespace: "batch", ConfXML: []byte("<configuration/>"), DAG: []byte("name: wc"), DAGName: "wc.yaml",
		Image: "ebb:test", PullPolicy: "Never", MemoryMB: 1024, VCores: 1, Port: 7000, Secret: "s3cr3t", WorkerSecret: "wc-1a2b3c-secret",
		AMServiceAccount: "wc-1a2b3c-am", OwnRBAC: true}
}

func newCluster() *fake.Clientset {
	return fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "batch"}})
}

// Submit makes the AM pod and what it needs, labelled for kill; the
// Role grants exactly the world's verbs; kill deletes them all.
func TestSubmitMakesTheAMAndKillDeletesIt(t *testing.T) {
	ctx := context.Background()
	cs := newCluster()
	rbac(cs)
	pod, err := Submit(ctx, cs, testOptions(), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	c := pod.Spec.Containers[0]
	if pod.Spec.RestartPolicy != corev1.RestartPolicyOnFailure || pod.Spec.ServiceAccountName != "wc-1a2b3c-am" ||
		strings.Join(c.Args, " ") != "am --master kubernetes --app wc-1a2b3c --conf /etc/ebb/mr3-site.xml --state-dir /ebb/state --dag /etc/ebb/dag.yaml --dag-name wc.yaml" {
		t.Errorf("AM pod: restart %s, account %s, args %v", pod.Spec.RestartPolicy, pod.Spec.ServiceAccountName, c.Args)
	}
	cm, err := cs.CoreV1().ConfigMaps("batch").Get(ctx, "wc-1a2b3c-conf", metav1.GetOptions{})
	if err != nil || cm.Data["mr3-site.xml"] != "<configuration/>" || cm.Data["dag.yaml"] != "name: wc" {
		t.Errorf("ConfigMap: %v %v", cm, err)
	}
	role, err := cs.RbacV1().Roles("batch").Get(ctx, "wc-1a2b3c-am", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(role.Rules[0].Verbs, ","); len(role.Rules) != 1 || role.Rules[0].Resources[0] != "pods" ||
		got != "create,get,list,watch,patch,delete,deletecollection" {
		t.Errorf("Role rules %+v: want the pods verbs of kubeworld.WorkerAccess only", role.Rules)
	}
	cr, err := cs.RbacV1().ClusterRoles().Get(ctx, "batch-wc-1a2b3c-am", metav1.GetOptions{})
	if err != nil || strings.Join(cr.Rules[0].Verbs, ",") != "list,watch" || cr.Rules[0].Resources[0] != "nodes" {
		t.Errorf("ClusterRole %+v %v: want list and watch nodes", cr, err)
	}
	// A second submit of the same name is refused.
	if _, err := Submit(ctx, cs, testOptions(), func(string) {}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second submit: %v", err)
	}
	gone, err := Kill(ctx, cs, "batch", "wc-1a2b3c")
	if err != nil {
		t.Fatal(err)
	}
	want := "pod/wc-1a2b3c-am configmap/wc-1a2b3c-conf secret/wc-1a2b3c-secret service/wc-1a2b3c-am serviceaccount/wc-1a2b3c-am role/wc-1a2b3c-am rolebinding/wc-1a2b3c-am clusterrole/batch-wc-1a2b3c-am clusterrolebinding/batch-wc-1a2b3c-am"
	if strings.Join(gone, " ") != want {
		t.Errorf("killed %v\nwant %s", gone, want)
	}
}

// RBAC missing a verb is refused in one line naming it, before anything
// is created.
func TestSubmitRefusesMissingRBACBeforeCreatingAnything(t *testing.T) {
	ctx := context.Background()
	cs := newCluster()
	rbac(cs, "watch nodes")
	_, err := Submit(ctx, cs, testOptions(), func(string) {})
	if !errors.Is(err, kubeworld.ErrForbidden) || !strings.Contains(err.Error(), "may not watch nodes (cluster-wide) in namespace batch") {
		t.Fatalf("Submit: %v", err)
	}
	for _, a := range cs.Actions() {
		if a.GetVerb() == "create" && a.GetResource().Resource != "selfsubjectaccessreviews" {
			t.Errorf("created %s before the refusal", a.GetResource().Resource)
		}
	}
}

// Follow reports the pod's changes and ends with its termination message.
func TestFollowEndsWithTheTerminationMessage(t *testing.T) {
	ctx := context.Background()
	cs := newCluster()
	rbac(cs)
	pod, err := Submit(ctx, cs, testOptions(), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	done := make(chan struct{})
	var ok bool
	var line string
	go func() {
		defer close(done)
		ok, line, err = Follow(ctx, cs, "batch", pod.Name, func(s string) { said = append(said, s) })
	}()
	// The watch starts before the updates only once Follow has called it.
	for {
		// One copy of the actions: the fake records more while Follow runs.
		a := cs.Actions()
		if len(a) > 0 && a[len(a)-1].GetVerb() == "watch" {
			break
		}
		goruntime.Gosched()
	}
	pod.Status.Phase = corev1.PodSucceeded
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "am", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		Message: "DAG dag_1 (wc) SUCCEEDED (4/4 tasks, 0 failed attempts, 3s); output /out"}}}}
	if _, err := cs.CoreV1().Pods("batch").UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	<-done
	if err != nil || !ok || !strings.HasPrefix(line, "DAG dag_1 (wc) SUCCEEDED") || len(said) == 0 || said[len(said)-1] != "pod wc-1a2b3c-am Succeeded" {
		t.Errorf("Follow: %v %v %q, said %q", ok, err, line, said)
	}
}
