// Package harness holds what the test cluster's own programs (testkubelet,
// testca) share: the client from a kubeconfig, the test nodes' marks, and
// a logger that says which rule did what.
package harness

import (
	"fmt"
	"log"
	"os"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// The marks of a node testca made: kwok manages nodes with AnnotationKwok
// (start.sh's --manage-nodes-with-annotation-selector), testkubelet runs
// the pods bound to nodes with LabelNode.
const (
	AnnotationKwok = "kwok.x-k8s.io/node"
	LabelNode      = "ebb.io/test-node"
	LabelType      = "type"
)

// Client is a clientset for kubeconfig's current context.
func Client(kubeconfig string) (*kubernetes.Clientset, *rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, nil, fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	return cs, cfg, nil
}

// Logger logs to stderr (start.sh sends it to the program's log) with
// microsecond times.
func Logger(prefix string) *log.Logger {
	return log.New(os.Stderr, prefix+": ", log.LstdFlags|log.Lmicroseconds|log.LUTC)
}
