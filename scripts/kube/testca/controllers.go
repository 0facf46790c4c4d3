package main

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// controllers registers the stand-ins for kube-controller-manager's
// controllers the test cluster needs (it has no controller manager: its
// build would pull in the kubelet's cgroup and cAdvisor code):
//   - serviceaccount: every namespace gets a "default" ServiceAccount
//     (without it the apiserver refuses pods that name none);
//   - garbage collector, for pods owned by pods: when a pod is deleted,
//     the pods naming it in an ownerReference are deleted (background);
//   - pod GC: pods bound to a node that is gone are deleted (orphans).
func (a *autoscaler) controllers(ctx context.Context, f informers.SharedInformerFactory) error {
	_, err := f.Core().V1().Namespaces().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if ns, ok := obj.(*corev1.Namespace); ok && ns.DeletionTimestamp == nil {
				a.defaultServiceAccount(ctx, ns.Name)
			}
		},
	})
	if err != nil {
		return err
	}
	_, err = f.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if p, ok := obj.(*corev1.Pod); ok {
				go a.collect(ctx, p.UID)
			}
		},
	})
	return err
}

func (a *autoscaler) defaultServiceAccount(ctx context.Context, ns string) {
	_, err := a.cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	switch {
	case err == nil:
		a.log.Printf("serviceaccount: made %s/default", ns)
	case !apierrors.IsAlreadyExists(err) && !apierrors.IsForbidden(err):
		a.log.Printf("serviceaccount: %s/default: %v", ns, err)
	}
}

// collect deletes the pods owned by the pod with uid (which is gone).
func (a *autoscaler) collect(ctx context.Context, uid types.UID) {
	pods, err := a.pods.List(labels.Everything())
	if err != nil {
		return
	}
	bg := metav1.DeletePropagationBackground
	for _, p := range pods {
		for _, ref := range p.OwnerReferences {
			if ref.UID != uid || p.DeletionTimestamp != nil {
				continue
			}
			err := a.cs.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{
				PropagationPolicy: &bg, Preconditions: &metav1.Preconditions{UID: &p.UID}})
			if err == nil {
				a.log.Printf("garbage collector: deleted %s/%s, its owner %s %s is gone", p.Namespace, p.Name, ref.Kind, ref.Name)
			}
		}
	}
}

// orphans deletes the pods still bound to node, which is gone: the active
// ones first get the DisruptionTarget condition the pod GC sets.
func (a *autoscaler) orphans(ctx context.Context, node string) {
	pods, err := a.cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		a.log.Printf("pod gc: listing pods of node %s: %v", node, err)
		return
	}
	zero := int64(0)
	for i := range pods.Items {
		p := &pods.Items[i]
		if active(p) {
			p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget,
				Status: corev1.ConditionTrue, Reason: "DeletionByPodGC", Message: "PodGC: node no longer exists",
				LastTransitionTime: metav1.Now()})
			p.Status.Phase = corev1.PodFailed
			if _, err := a.cs.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
				a.log.Printf("pod gc: %s/%s: %v", p.Namespace, p.Name, err)
			}
		}
		err := a.cs.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
		if err == nil {
			a.log.Printf("pod gc: deleted %s/%s, bound to node %s which is gone", p.Namespace, p.Name, node)
		}
	}
}
