package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ebb-am/ebb/scripts/kube/internal/harness"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// NodePrefix names testca's nodes: kwok-node-1, kwok-node-2, ...
const NodePrefix = "kwok-node-"

// template is a new node of the node group's shape, named name; kwok makes
// it Ready, testkubelet runs its pods (its kubelet endpoint).
func (a *autoscaler) template(name string) *corev1.Node {
	res := corev1.ResourceList{corev1.ResourceCPU: a.o.nodeCPU, corev1.ResourceMemory: a.o.nodeMemory,
		corev1.ResourcePods: resource.MustParse("110")}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{corev1.LabelHostname: name, corev1.LabelOSStable: "linux",
				corev1.LabelArchStable: "amd64", harness.LabelType: "kwok", harness.LabelNode: "true"},
			Annotations: map[string]string{harness.AnnotationKwok: "fake"}},
		Status: corev1.NodeStatus{Capacity: res, Allocatable: res.DeepCopy(),
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"},
				{Type: corev1.NodeHostName, Address: name}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(a.o.kubeletPort)}}},
	}
}

// group is the node group: the nodes testca made.
func (a *autoscaler) group() []*corev1.Node {
	ns, err := a.nodes.List(labels.SelectorFromSet(labels.Set{harness.LabelNode: "true"}))
	if err != nil {
		return nil
	}
	return ns
}

func (a *autoscaler) addNode(ctx context.Context) (string, error) {
	next := 1
	for _, n := range a.group() {
		if i, err := strconv.Atoi(strings.TrimPrefix(n.Name, NodePrefix)); err == nil && i >= next {
			next = i + 1
		}
	}
	if next < a.nextNode {
		next = a.nextNode
	}
	a.nextNode = next + 1
	name := NodePrefix + strconv.Itoa(next)
	if _, err := a.cs.CoreV1().Nodes().Create(ctx, a.template(name), metav1.CreateOptions{}); err != nil {
		return "", fmt.Errorf("creating node %s: %w", name, err)
	}
	return name, nil
}

func (a *autoscaler) initialNodes(ctx context.Context) error {
	for have := len(a.group()); have < a.o.nodes; have++ {
		name, err := a.addNode(ctx)
		if err != nil {
			return err
		}
		a.log.Printf("start: made node %s (%d of --nodes=%d)", name, have+1, a.o.nodes)
	}
	return nil
}
