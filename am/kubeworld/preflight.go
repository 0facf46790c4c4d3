package kubeworld

import (
	"context"
	"errors"
	"fmt"
	"strings"

	authv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Access is one thing a caller must be allowed to do: a verb on a
// resource (of an API group: "" is the core group), in the namespace
// checked or, when ClusterWide, in all of them.
type Access struct {
	Verb, Group, Resource string
	ClusterWide           bool
}

func (a Access) String() string {
	r := a.Resource
	if a.Group != "" {
		r += "." + a.Group
	}
	if a.ClusterWide {
		return a.Verb + " " + r + " (cluster-wide)"
	}
	return a.Verb + " " + r
}

// WorkerAccess is what the AM does with the API server: create, watch,
// patch and delete its worker pods in its namespace, and watch the nodes
// (their allocatable memory, which come and go). It is the Role and
// ClusterRole `ebb submit` gives the AM's service account.
var WorkerAccess = []Access{
	{Verb: "create", Resource: "pods"}, {Verb: "get", Resource: "pods"}, {Verb: "list", Resource: "pods"},
	{Verb: "watch", Resource: "pods"}, {Verb: "patch", Resource: "pods"}, {Verb: "delete", Resource: "pods"},
	{Verb: "deletecollection", Resource: "pods"},
	{Verb: "list", Resource: "nodes", ClusterWide: true}, {Verb: "watch", Resource: "nodes", ClusterWide: true},
}

// ErrNoNamespace, ErrForbidden and ErrNoPriorityClass are the preflight's
// refusals, wrapped with what to do.
var (
	ErrNoNamespace     = errors.New("namespace does not exist")
	ErrForbidden       = errors.New("not allowed by RBAC")
	ErrNoPriorityClass = errors.New("PriorityClass does not exist")
)

// Preflight refuses, before anything is created, what would only fail
// later: a namespace that does not exist, an access the caller lacks (one
// SelfSubjectAccessReview each: RBAC says yes or no for the caller itself,
// whoever it is), a PriorityClass that does not exist. A check the caller
// may not make (reading a namespace or a PriorityClass is cluster-wide) is
// skipped: the creation then says so itself.
func Preflight(ctx context.Context, cs kubernetes.Interface, namespace, priorityClass string, need []Access) error {
	if _, err := cs.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		return fmt.Errorf("%w: mr3.k8s.namespace=%s; create it (kubectl create namespace %s) or name another", ErrNoNamespace, namespace, namespace)
	} else if err != nil && !apierrors.IsForbidden(err) {
		return fmt.Errorf("kubernetes: reading namespace %s: %w", namespace, err)
	}
	var missing []string
	for _, a := range need {
		ok, err := allowed(ctx, cs, namespace, a)
		if err != nil {
			return err
		}
		if !ok {
			missing = append(missing, a.String())
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: the caller may not %s in namespace %s; grant them (docs/kubernetes.md, \"RBAC\")", ErrForbidden, strings.Join(missing, ", "), namespace)
	}
	if priorityClass == "" {
		return nil
	}
	_, err := cs.SchedulingV1().PriorityClasses().Get(ctx, priorityClass, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%w: ebb.k8s.pod.worker.priority.class.name=%s; create it (kubectl create priorityclass %s --value=N) or name another (kubectl get priorityclasses)", ErrNoPriorityClass, priorityClass, priorityClass)
	case err != nil && !apierrors.IsForbidden(err):
		return fmt.Errorf("kubernetes: reading PriorityClass %s: %w", priorityClass, err)
	}
	return nil
}

// allowed asks the API server whether the caller may do a.
func allowed(ctx context.Context, cs kubernetes.Interface, namespace string, a Access) (bool, error) {
	ra := &authv1.ResourceAttributes{Verb: a.Verb, Group: a.Group, Resource: a.Resource}
	if !a.ClusterWide {
		ra.Namespace = namespace
	}
	r, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx,
		&authv1.SelfSubjectAccessReview{Spec: authv1.SelfSubjectAccessReviewSpec{ResourceAttributes: ra}}, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("kubernetes: asking whether the caller may %s: %w", a, err)
	}
	return r.Status.Allowed, nil
}
