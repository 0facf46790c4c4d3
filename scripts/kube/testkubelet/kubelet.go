package main

import (
	"log"
	"os"
	"path/filepath"
	"sync"

	"github.com/ebb-am/ebb/scripts/kube/internal/harness"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	listersv1 "k8s.io/client-go/listers/core/v1"
)

// AnnotationFault on a pod injects a fault once, as the control endpoint's
// /fault does: "oom", "evict" or "kill" (the process dies, SIGKILL, and
// the pod's restartPolicy decides).
const AnnotationFault = "testkubelet.ebb.io/fault"

type kubelet struct {
	cs     kubernetes.Interface
	server string // the apiserver's URL, for pods' kubeconfigs
	ca     []byte
	dir    string
	images string
	nodes  listersv1.NodeLister
	log    *log.Logger

	mu   sync.Mutex
	pods map[types.UID]*podRun
	wg   sync.WaitGroup
}

func newKubelet(cs kubernetes.Interface, server string, ca []byte, o options) *kubelet {
	return &kubelet{cs: cs, server: server, ca: ca, dir: o.dir, images: o.images,
		log: harness.Logger("testkubelet"), pods: map[types.UID]*podRun{}}
}

// ours: the pod is bound to a node this kubelet stands for. A node not yet
// in the cache is taken for one (every node of the test cluster is).
func (k *kubelet) ours(p *corev1.Pod) bool {
	if p.Spec.NodeName == "" {
		return false
	}
	if k.nodes == nil {
		return true
	}
	n, err := k.nodes.Get(p.Spec.NodeName)
	if err != nil {
		return true
	}
	return n.Labels[harness.LabelNode] == "true"
}

// observe is every watch event of a bound pod: a new one is started, a
// deleted one (deletionTimestamp) stopped, a fault annotation injected.
func (k *kubelet) observe(p *corev1.Pod) {
	if !k.ours(p) {
		return
	}
	k.mu.Lock()
	r := k.pods[p.UID]
	if r == nil {
		if p.DeletionTimestamp == nil && (p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed) {
			k.mu.Unlock()
			return // ended before this kubelet started: nothing to run
		}
		r = newPodRun(k, p)
		k.pods[p.UID] = r
		k.wg.Add(1)
		go func() {
			defer k.wg.Done()
			r.loop()
			k.mu.Lock()
			delete(k.pods, r.uid)
			k.mu.Unlock()
		}()
	}
	k.mu.Unlock()
	if p.DeletionTimestamp != nil {
		grace := int64(30)
		if p.DeletionGracePeriodSeconds != nil {
			grace = *p.DeletionGracePeriodSeconds
		}
		r.send(event{kind: evDelete, grace: grace})
	}
	if f := p.Annotations[AnnotationFault]; f != "" {
		r.send(event{kind: evFault, fault: f, message: "injected by the " + AnnotationFault + " annotation"})
	}
}

// gone: the pod object is no more; its process, if any, dies now.
func (k *kubelet) gone(p *corev1.Pod) {
	k.mu.Lock()
	r := k.pods[p.UID]
	k.mu.Unlock()
	if r != nil {
		r.send(event{kind: evGone})
	}
}

func (k *kubelet) find(ns, name string) *podRun {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, r := range k.pods {
		if r.ns == ns && r.name == name {
			return r
		}
	}
	return nil
}

func (k *kubelet) stopAll() {
	k.mu.Lock()
	for _, r := range k.pods {
		r.send(event{kind: evGone})
	}
	k.mu.Unlock()
	k.wg.Wait()
}

// podDir is where pod ns/name keeps its log and volumes.
func (k *kubelet) podDir(ns, name string) string {
	return filepath.Join(k.dir, ns+"_"+name)
}

func writeFile(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, mode)
}
