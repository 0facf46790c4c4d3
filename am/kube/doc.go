// Package kube is the pure half of ebb's Kubernetes world: the Book that
// turns the core's wishes ("group G wants N workers, prefer these nodes,
// avoid those") into worker pod specs, deletions of surplus Pending pods
// and label and annotation patches, and turns what the pod and node
// watches report into the core's events. It is ebb's own types throughout:
// no client-go, no IO, no clock (an import test holds it); the world that
// talks to the API server (not yet written) renders a PodSpec into a
// v1.Pod at the edge, as am/yarn's world renders its Book's asks into
// protobuf.
//
// A worker pod is one `ebb worker` process: requests equal limits (the
// group's memory and vcores, Guaranteed QoS, so the kubelet's OOM killer
// and evictions order it last among equals), restartPolicy Never (a worker
// that exits is replaced by the core's decision, not by the kubelet), an
// ownerReference to the AM pod (deleting the AM deletes its workers) that
// is not a controller reference, labels naming the application and the
// group (kubectl get pods -l ebb.io/group=G), its outputs in an emptyDir.
// "Prefer" becomes preferred node affinity on kubernetes.io/hostname (the
// analogue of YARN's strict node-level ask, but soft: the scheduler may
// place elsewhere), "avoid" a required NotIn on the draining nodes (YARN's
// blacklist). A worker holding an output that a running DAG needs carries
// cluster-autoscaler.kubernetes.io/safe-to-evict: "false", so the cluster
// autoscaler never removes its node; ebb empties nodes itself and a
// drained node ends with no ebb pod, which is what lets the autoscaler
// take it (docs/kubernetes.md).
package kube
