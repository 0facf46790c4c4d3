package kubeworld

import (
	"errors"
	"fmt"
	"os"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ErrNoCredentials: neither a kubeconfig nor the in-cluster service
// account is there to reach an API server with.
var ErrNoCredentials = errors.New("no Kubernetes credentials")

// Connect builds a client: from kubeconfig (mr3.k8s.client.config.file)
// when it is set; else inside a pod from its service account (as every
// pod of the cluster, the AM's); else from $KUBECONFIG or ~/.kube/config,
// as kubectl does. context names the kubeconfig's context ("": its
// current one).
func Connect(kubeconfig, context string) (kubernetes.Interface, *rest.Config, error) {
	cfg, err := restConfig(kubeconfig, context)
	if err != nil {
		return nil, nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("kubernetes: a client for %s: %w", cfg.Host, err)
	}
	return cs, cfg, nil
}

func restConfig(kubeconfig, context string) (*rest.Config, error) {
	if kubeconfig == "" && os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("kubernetes: the pod's service account: %w", err)
		}
		return cfg, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		if _, err := os.Stat(kubeconfig); err != nil {
			return nil, fmt.Errorf("%w: mr3.k8s.client.config.file=%s: %v", ErrNoCredentials, kubeconfig, err)
		}
		rules.ExplicitPath = kubeconfig
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	if clientcmd.IsEmptyConfig(err) {
		return nil, fmt.Errorf("%w: set mr3.k8s.client.config.file or $KUBECONFIG to a kubeconfig, or run inside a pod with a service account", ErrNoCredentials)
	}
	if err != nil {
		return nil, fmt.Errorf("kubernetes: kubeconfig: %w", err)
	}
	return cfg, nil
}
