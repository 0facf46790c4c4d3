package kubeclient

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ebb-am/ebb/am/kubeworld"
)

// SubmitOptions are one application's: its name and what its AM pod runs.
type SubmitOptions struct {
	App, Namespace string
	// ConfXML is the effective mr3-site.xml; DAG the DAG file (none: a
	// session).
	ConfXML, DAG     []byte
	DAGName, Output  string
	Overwrite        bool
	Image            string
	PullPolicy       string
	MemoryMB         int64
	VCores           int
	Port             int
	Secret           string
	WorkerSecret     string
	AMServiceAccount string
	// OwnRBAC: make AMServiceAccount and its Role and ClusterRole (else
	// the admin made them).
	OwnRBAC bool
	// PriorityClass of the worker pods, checked before anything is made.
	PriorityClass string
	// S3Credentials: the gateway's fs.s3a.* settings, credentials
	// included, as a Hadoop credentials file (yarnrpc.Credentials); nil:
	// none. They go in the Secret, mounted into the AM pod where
	// HADOOP_TOKEN_FILE_LOCATION names them, as a NodeManager hands a
	// container its tokens; never in the ConfigMap.
	S3Credentials []byte
}

// rbacGroup is RBAC's API group.
const rbacGroup = "rbac.authorization.k8s.io"

// submitAccess is what the caller of `ebb submit` must be allowed: to
// make each object, and (RBAC refuses to grant more than the granter
// holds) what the AM's Role and ClusterRole grant.
func submitAccess(ownRBAC bool) []kubeworld.Access {
	need := []kubeworld.Access{{Verb: "create", Resource: "pods"}, {Verb: "create", Resource: "configmaps"},
		{Verb: "create", Resource: "secrets"}, {Verb: "create", Resource: "services"}, {Verb: "watch", Resource: "pods"}}
	if !ownRBAC {
		return need
	}
	need = append(need, kubeworld.Access{Verb: "create", Resource: "serviceaccounts"},
		kubeworld.Access{Verb: "create", Group: rbacGroup, Resource: "roles"}, kubeworld.Access{Verb: "create", Group: rbacGroup, Resource: "rolebindings"},
		kubeworld.Access{Verb: "create", Group: rbacGroup, Resource: "clusterroles", ClusterWide: true},
		kubeworld.Access{Verb: "create", Group: rbacGroup, Resource: "clusterrolebindings", ClusterWide: true})
	return append(need, kubeworld.WorkerAccess...)
}

// Submit checks everything it can first (the namespace, the caller's
// rights, the PriorityClass: one line naming what is missing, before any
// object exists), then makes the AM's service account and roles, the AM
// pod, and the ConfigMap, Secret and Service owned by the pod. progress
// hears each step.
func Submit(ctx context.Context, cs kubernetes.Interface, o SubmitOptions, progress func(string)) (*corev1.Pod, error) {
	if err := kubeworld.Preflight(ctx, cs, o.Namespace, o.PriorityClass, submitAccess(o.OwnRBAC)); err != nil {
		return nil, err
	}
	if _, err := cs.CoreV1().Pods(o.Namespace).Get(ctx, o.App+"-am", metav1.GetOptions{}); err == nil {
		return nil, fmt.Errorf("application %s already exists in namespace %s (its pod %s-am): `ebb kill %s --master kubernetes` it, or name another with --name", o.App, o.Namespace, o.App, o.App)
	}
	if o.OwnRBAC {
		if err := makeRBAC(ctx, cs, o); err != nil {
			return nil, err
		}
	}
	pod, err := cs.CoreV1().Pods(o.Namespace).Create(ctx, amPod(o), metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating the AM pod: %w", err)
	}
	progress(fmt.Sprintf("created pod %s in namespace %s", pod.Name, o.Namespace))
	cm, sec, svc := configMap(o), secret(o), service(o)
	owned(&cm.ObjectMeta, pod)
	owned(&sec.ObjectMeta, pod)
	owned(&svc.ObjectMeta, pod)
	_, err = cs.CoreV1().ConfigMaps(o.Namespace).Create(ctx, cm, metav1.CreateOptions{})
	if err == nil {
		_, err = cs.CoreV1().Secrets(o.Namespace).Create(ctx, sec, metav1.CreateOptions{})
	}
	if err == nil {
		_, err = cs.CoreV1().Services(o.Namespace).Create(ctx, svc, metav1.CreateOptions{})
	}
	if err != nil {
		_, _ = Kill(context.WithoutCancel(ctx), cs, o.Namespace, o.App) // best effort: the error below is what matters
		return nil, fmt.Errorf("creating the AM's ConfigMap, Secret and Service: %w", err)
	}
	return pod, nil
}

func makeRBAC(ctx context.Context, cs kubernetes.Interface, o SubmitOptions) error {
	sa, role, rb, cr, crb := rbacObjects(o)
	steps := []func() error{
		func() error {
			_, err := cs.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, sa, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.RbacV1().Roles(o.Namespace).Create(ctx, role, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cs.RbacV1().RoleBindings(o.Namespace).Create(ctx, rb, metav1.CreateOptions{})
			return err
		},
		func() error { _, err := cs.RbacV1().ClusterRoles().Create(ctx, cr, metav1.CreateOptions{}); return err },
		func() error {
			_, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{})
			return err
		},
	}
	for _, s := range steps {
		if err := s(); err != nil && !apierrors.IsAlreadyExists(err) {
			_, _ = Kill(context.WithoutCancel(ctx), cs, o.Namespace, o.App) // best effort: the error below is what matters
			return fmt.Errorf("creating the AM's service account and roles: %w", err)
		}
	}
	return nil
}

// Kill deletes everything application app made in namespace ns (its pods,
// ConfigMap, Secret, Service, service account and roles) by its label;
// deleting the AM pod alone would leave the rest to a garbage collector.
// It returns what it deleted, kind/name.
func Kill(ctx context.Context, cs kubernetes.Interface, ns, app string) ([]string, error) {
	sel := metav1.ListOptions{LabelSelector: "ebb.io/app=" + app}
	var gone []string
	var errs []error
	del := func(kind string, list func() ([]string, error), one func(string) error) {
		names, err := list()
		if err != nil {
			errs = append(errs, fmt.Errorf("listing %s: %w", kind, err))
			return
		}
		for _, n := range names {
			if err := one(n); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("deleting %s/%s: %w", kind, n, err))
				continue
			}
			gone = append(gone, kind+"/"+n)
		}
	}
	for _, k := range killers(ctx, cs, ns, sel) {
		del(k.kind, k.list, k.one)
	}
	return gone, errors.Join(errs...)
}
