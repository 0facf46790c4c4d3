package kubeworld

import (
	"context"
	"errors"
	"strings"
	"testing"

	authv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	schedv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// rbac answers SelfSubjectAccessReviews as an RBAC authorizer granting
// exactly allowed ("verb resource", cluster-wide ones with a "*" prefix).
func rbac(cs *fake.Clientset, allowed map[string]bool) {
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authv1.SelfSubjectAccessReview)
		ra := r.Spec.ResourceAttributes
		key := ra.Verb + " " + ra.Resource
		if ra.Namespace == "" {
			key = "*" + key
		}
		r.Status.Allowed = allowed[key]
		return true, r, nil
	})
}

func allAccess() map[string]bool {
	m := map[string]bool{}
	for _, a := range WorkerAccess {
		k := a.Verb + " " + a.Resource
		if a.ClusterWide {
			k = "*" + k
		}
		m[k] = true
	}
	return m
}

func TestPreflight(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "batch"}}
	pc := &schedv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "batch-low"}, Value: 10}
	ctx := context.Background()

	cs := fake.NewClientset(ns, pc)
	rbac(cs, allAccess())
	if err := Preflight(ctx, cs, "batch", "batch-low", WorkerAccess); err != nil {
		t.Errorf("everything there: %v", err)
	}
	if err := Preflight(ctx, cs, "nosuch", "", WorkerAccess); !errors.Is(err, ErrNoNamespace) || !strings.Contains(err.Error(), "mr3.k8s.namespace=nosuch") {
		t.Errorf("missing namespace: %v", err)
	}
	if err := Preflight(ctx, cs, "batch", "nosuch", WorkerAccess); !errors.Is(err, ErrNoPriorityClass) ||
		!strings.Contains(err.Error(), "ebb.k8s.pod.worker.priority.class.name=nosuch") {
		t.Errorf("missing PriorityClass: %v", err)
	}
	without := allAccess()
	delete(without, "*watch nodes")
	delete(without, "patch pods")
	cs = fake.NewClientset(ns, pc)
	rbac(cs, without)
	err := Preflight(ctx, cs, "batch", "", WorkerAccess)
	if !errors.Is(err, ErrForbidden) || !strings.Contains(err.Error(), "may not patch pods, watch nodes (cluster-wide) in namespace batch") {
		t.Fatalf("missing verbs: %v", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("not one line: %q", err)
	}
}
