package main

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// namespaces finishes deleting the namespaces being deleted, as the
// namespace controller would for the kinds ebb and its tests make: their
// pods are deleted (testkubelet ends them), then, once none is left, the
// ConfigMaps, Secrets, ServiceAccounts, Services, Roles and RoleBindings,
// and the namespace is finalized. Other kinds are left in etcd.
func (a *autoscaler) namespaces(ctx context.Context) {
	nss, err := a.namespaceLister.List(labels.Everything())
	if err != nil {
		return
	}
	for _, ns := range nss {
		if ns.DeletionTimestamp == nil || len(ns.Spec.Finalizers) == 0 {
			continue
		}
		a.finishNamespace(ctx, ns)
	}
}

func (a *autoscaler) finishNamespace(ctx context.Context, ns *corev1.Namespace) {
	name := ns.Name
	all := metav1.ListOptions{}
	pods, err := a.cs.CoreV1().Pods(name).List(ctx, all)
	if err != nil {
		return
	}
	if len(pods.Items) > 0 {
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil {
				_ = a.cs.CoreV1().Pods(name).Delete(ctx, p.Name, metav1.DeleteOptions{})
			}
		}
		return // next scan, once testkubelet has ended them
	}
	del := metav1.DeleteOptions{}
	core, rbac := a.cs.CoreV1(), a.cs.RbacV1()
	errs := []error{
		core.ConfigMaps(name).DeleteCollection(ctx, del, all),
		core.Secrets(name).DeleteCollection(ctx, del, all),
		core.ServiceAccounts(name).DeleteCollection(ctx, del, all),
		rbac.Roles(name).DeleteCollection(ctx, del, all),
		rbac.RoleBindings(name).DeleteCollection(ctx, del, all),
	}
	svcs, err := core.Services(name).List(ctx, all)
	if err == nil {
		for _, s := range svcs.Items {
			errs = append(errs, core.Services(name).Delete(ctx, s.Name, del))
		}
	}
	for _, err := range errs {
		if err != nil {
			a.log.Printf("namespace: emptying %s: %v", name, err)
			return
		}
	}
	ns = ns.DeepCopy()
	ns.Spec.Finalizers = nil
	if _, err := core.Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil {
		a.log.Printf("namespace: finalizing %s: %v", name, err)
		return
	}
	a.log.Printf("namespace: %s emptied and finalized", name)
}
