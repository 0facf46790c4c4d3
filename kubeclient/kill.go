package kubeclient

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

type killer struct {
	kind string
	list func() ([]string, error)
	one  func(string) error
}

// names lists the names of a list's items.
func names[T any](items []T, name func(*T) string) []string {
	out := make([]string, 0, len(items))
	for i := range items {
		out = append(out, name(&items[i]))
	}
	return out
}

// killers are, in order, the kinds an application makes: the AM pod
// first (its workers stop with it), the cluster-wide roles last.
func killers(ctx context.Context, cs kubernetes.Interface, ns string, sel metav1.ListOptions) []killer {
	del := metav1.DeleteOptions{}
	core, rbac := cs.CoreV1(), cs.RbacV1()
	return []killer{
		{"pod", func() ([]string, error) {
			l, err := core.Pods(ns).List(ctx, sel)
			if err != nil {
				return nil, err
			}
			return names(l.Items, func(p *corev1Pod) string { return p.Name }), nil
		}, func(n string) error { return core.Pods(ns).Delete(ctx, n, del) }},
		{"configmap", func() ([]string, error) {
			l, err := core.ConfigMaps(ns).List(ctx, sel)
			if err != nil {
				return nil, err
			}
			return names(l.Items, func(p *corev1ConfigMap) string { return p.Name }), nil
		}, func(n string) error { return core.ConfigMaps(ns).Delete(ctx, n, del) }},
		{"secret", func() ([]string, error) {
			l, err := core.Secrets(ns).List(ctx, sel)
			if err != nil {
				return nil, err
			}
			return names(l.Items, func(p *corev1Secret) string { return p.Name }), nil
		}, func(n string) error { return core.Secrets(ns).Delete(ctx, n, del) }},
		{"service", func() ([]string, error) {
			l, err := core.Services(ns).List(ctx, sel)
			if err != nil {
				return nil, err
			}
			return names(l.Items, func(p *corev1Service) string { return p.Name }), nil
		}, func(n string) error { return core.Services(ns).Delete(ctx, n, del) }},
		{"serviceaccount", func() ([]string, error) {
			l, err := core.ServiceAccounts(ns).List(ctx, sel)
			if err != nil {
				return nil, err
			}
			return names(l.Items, func(p *corev1ServiceAccount) string { return p.Name }), nil
		}, func(n string) error { return core.ServiceAccounts(ns).Delete(ctx, n, del) }},
		{"role", func() ([]string, error) {
			l, err := rbac.Roles(ns).List(ctx, sel)
			if err != nil {
				return nil, err
			}
			return names(l.Items, func(p *rbacv1Role) string { return p.Name }), nil
		}, func(n string) error { return rbac.Roles(ns).Delete(ctx, n, del) }},
		{"rolebinding", func() ([]string, error) {
			l, err := rbac.RoleBindings(ns).List(ctx, sel)
			if err != nil {
				return nil, err
			}
			return names(l.Items, func(p *rbacv1RoleBinding) string { return p.Name }), nil
		}, func(n string) error { return rbac.RoleBindings(ns).Delete(ctx, n, del) }},
		{"clusterrole", func() ([]string, error) {
			l, err := rbac.ClusterRoles().List(ctx, nsSel(sel, ns))
			if err != nil {
				return nil, err
			}
			return names(l.Items, func(p *rbacv1ClusterRole) string { return p.Name }), nil
		}, func(n string) error { return rbac.ClusterRoles().Delete(ctx, n, del) }},
		{"clusterrolebinding", func() ([]string, error) {
			l, err := rbac.ClusterRoleBindings().List(ctx, nsSel(sel, ns))
			if err != nil {
				return nil, err
			}
			return names(l.Items, func(p *rbacv1ClusterRoleBinding) string { return p.Name }), nil
		}, func(n string) error { return rbac.ClusterRoleBindings().Delete(ctx, n, del) }},
	}
}

// nsSel narrows a cluster-wide list to the application's namespace.
func nsSel(sel metav1.ListOptions, ns string) metav1.ListOptions {
	sel.LabelSelector += ",ebb.io/namespace=" + ns
	return sel
}
