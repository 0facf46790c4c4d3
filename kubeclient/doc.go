// Package kubeclient is `ebb submit`, `ebb kill` and the following of an
// application on Kubernetes: it makes the AM pod and what it needs (its
// ConfigMap, the worker Secret, a service account with the least rights
// the AM uses, a Service for the status UI), watches the AM pod to its
// end, and deletes them all. yarnclient is its counterpart on YARN.
package kubeclient
