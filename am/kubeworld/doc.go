// Package kubeworld is ebb's Kubernetes world: the edge where the pure
// Book of package am/kube meets the API server through client-go. It
// renders the Book's PodSpecs into v1.Pods and creates, deletes and
// patches them; it watches the application's pods and the cluster's nodes
// (informers) and hands what they report to the Book, whose answers go to
// the AM's loop as the core's events; it shows a group whose pods the
// scheduler cannot place with the scheduler's own message, and fails the
// group when that lasts longer than mr3.k8s.pod.creation.timeout.ms. Its
// preflight refuses, before any pod exists, what would only fail later: no
// credentials, a namespace that does not exist, an RBAC verb the AM lacks,
// a PriorityClass that does not exist.
//
// client-go's types stop here: the Book and the core never see them.
package kubeworld
