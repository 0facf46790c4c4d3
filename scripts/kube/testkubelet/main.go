// Command testkubelet is the test cluster's kubelet: it runs the pods bound
// to the test nodes (kwok's, which testca makes) as local processes, with
// hostNetwork semantics (every pod's IP is 127.0.0.1), and reports their
// status as a kubelet does. There is no container runtime: a pod's image is
// mapped to a local binary (the images file), its volumes are local
// directories, and its first container is the only one run.
//
// Faults are injected through its control endpoint or an annotation on the
// pod (see docs/kubernetes.md, "The test cluster").
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/ebb-am/ebb/scripts/kube/internal/harness"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

func main() {
	var o options
	flag.StringVar(&o.kubeconfig, "kubeconfig", "", "the kubeconfig to use")
	flag.StringVar(&o.dir, "dir", "", "where pods' directories go (<namespace>_<name>/)")
	flag.StringVar(&o.images, "images", "", "the file of IMAGE=BINARY lines, read at each pod start")
	flag.StringVar(&o.caFile, "ca", "", "the cluster's CA certificate, written into pods' service-account volumes")
	flag.StringVar(&o.tlsCert, "tls-cert", "", "the kubelet API's serving certificate")
	flag.StringVar(&o.tlsKey, "tls-key", "", "its key")
	flag.StringVar(&o.listen, "listen", "127.0.0.1:10250", "the kubelet API (containerLogs) address")
	flag.StringVar(&o.control, "control", "127.0.0.1:0", "the control endpoint's address (faults, pods)")
	flag.Parse()
	if o.kubeconfig == "" || o.dir == "" || o.images == "" {
		fmt.Fprintln(os.Stderr, "testkubelet: --kubeconfig, --dir and --images are required")
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "testkubelet:", err)
		os.Exit(1)
	}
}

type options struct {
	kubeconfig, dir, images, caFile, tlsCert, tlsKey, listen, control string
}

func run(o options) error {
	cs, cfg, err := harness.Client(o.kubeconfig)
	if err != nil {
		return err
	}
	ca, err := os.ReadFile(o.caFile)
	if err != nil {
		return fmt.Errorf("--ca: %w", err)
	}
	k := newKubelet(cs, cfg.Host, ca, o)
	if err := k.serve(o); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	// Only bound pods; which of them are on test nodes is decided per pod.
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithTweakListOptions(func(lo *metav1.ListOptions) {
		lo.FieldSelector = fields.OneTermNotEqualSelector("spec.nodeName", "").String()
	}))
	nf := informers.NewSharedInformerFactory(cs, 0)
	k.nodes = nf.Core().V1().Nodes().Lister()
	_, err = f.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { k.observe(obj.(*corev1.Pod)) },
		UpdateFunc: func(_, obj any) { k.observe(obj.(*corev1.Pod)) },
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if p, ok := obj.(*corev1.Pod); ok {
				k.gone(p)
			}
		},
	})
	if err != nil {
		return err
	}
	nf.Core().V1().Nodes().Informer()
	nf.Start(ctx.Done())
	f.Start(ctx.Done())
	nf.WaitForCacheSync(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	k.log.Printf("watching pods bound to nodes labelled %s", harness.LabelNode)
	<-ctx.Done()
	k.log.Printf("stopping: ending every pod's process")
	k.stopAll()
	return nil
}
