package conf

import (
	"fmt"
	"sort"
	"strings"
)

// unsupportedK8s are MR3's Kubernetes keys that ebb does not carry out and
// that would change what runs where: each is refused by name, with why,
// whatever ebb.conf.unknown.keys says (ignoring one would silently run
// the pods elsewhere or otherwise than the admin asked).
var unsupportedK8s = map[string]string{
	"mr3.k8s.pod.worker.hostpaths":                   "worker outputs go to an emptyDir (mr3.k8s.pod.worker.emptydirs), which the cluster autoscaler counts as local storage",
	"mr3.k8s.pod.worker.additional.hostpaths":        "worker pods mount no hostPath",
	"mr3.k8s.pod.master.hostpaths":                   "the AM pod mounts no hostPath",
	"mr3.k8s.pod.worker.node.selector":               "worker pods carry no node selector (ebb places them by node affinity)",
	"mr3.k8s.pod.master.node.selector":               "the AM pod carries no node selector",
	"mr3.k8s.pod.worker.toleration.specs":            "worker pods carry no tolerations",
	"mr3.k8s.pod.master.toleration.specs":            "the AM pod carries no tolerations",
	"mr3.k8s.worker.persistentvolumeclaim.mounts":    "worker pods mount no PersistentVolumeClaim",
	"mr3.k8s.master.persistentvolumeclaim.mounts":    "the AM pod mounts no PersistentVolumeClaim",
	"mr3.k8s.pod.image.pull.secrets":                 "pods carry no imagePullSecrets (give the service accounts them)",
	"mr3.k8s.host.aliases":                           "pods carry no hostAliases",
	"mr3.k8s.pod.worker.security.context.sysctls":    "worker pods set no sysctls",
	"mr3.k8s.api.server.url":                         "the API server is the kubeconfig's (mr3.k8s.client.config.file)",
	"mr3.k8s.master.pod.affinity.match.label":        "the AM pod carries no pod affinity",
	"mr3.k8s.pod.master.emptydirs":                   "the AM pod's one emptyDir holds its recovery log",
	"mr3.k8s.worker.command":                         "worker pods run `ebb worker`",
	"mr3.k8s.master.command":                         "the AM pod runs `ebb am`",
	"mr3.k8s.conf.dir.configmap":                     "`ebb submit` creates the AM's ConfigMap (<application>-conf)",
	"mr3.k8s.keytab.secret":                          "ebb on Kubernetes has no Kerberos",
	"mr3.k8s.pod.master.user":                        "pods run as the image's user",
	"mr3.k8s.pod.worker.user":                        "pods run as the image's user",
	"mr3.k8s.shuffle.process.ports":                  "workers serve their outputs themselves",
	"mr3.k8s.pod.worker.init.container.image":        "worker pods have no init container",
	"mr3.k8s.pod.worker.init.container.command":      "worker pods have no init container",
	"mr3.k8s.pod.master.resource.memory.mb":          "the AM pod's memory is mr3.am.resource.memory.mb",
	"mr3.k8s.worker.total.max.memory.gb":             "the workers' total is the cluster's (and the cluster autoscaler's)",
	"mr3.k8s.worker.total.max.cpu.cores":             "the workers' total is the cluster's (and the cluster autoscaler's)",
	"mr3.k8s.use.daemon.shuffle.handler":             "workers serve their outputs themselves",
	"mr3.k8s.nodes.polling.interval.ms":              "ebb watches nodes instead of polling them",
	"mr3.k8s.pods.polling.interval.ms":               "ebb watches pods instead of polling them",
	"mr3.k8s.service.account.token.path":             "in a pod, client-go reads the service account's token where Kubernetes mounts it",
	"mr3.k8s.service.account.token.ca.cert.path":     "in a pod, client-go reads the service account's CA where Kubernetes mounts it",
	"mr3.k8s.service.account.use.token.ca.cert.path": "in a pod, client-go reads the service account's CA where Kubernetes mounts it",
}

// CheckKubernetes refuses what the Kubernetes world cannot do as asked:
// one of MR3's Kubernetes keys ebb does not carry out (by name, with why),
// or more than one worker emptyDir.
func (c *Config) CheckKubernetes() error {
	var set []string
	for _, k := range c.Keys() {
		if _, ok := unsupportedK8s[k]; ok {
			set = append(set, k)
		}
	}
	sort.Strings(set)
	if len(set) > 0 {
		k := set[0]
		return fmt.Errorf("%s: %s is MR3's but not supported by ebb: %s; remove it", c.Origin(k), k, unsupportedK8s[k])
	}
	if d := c.String("mr3.k8s.pod.worker.emptydirs"); strings.Contains(d, ",") || !strings.HasPrefix(d, "/") {
		return c.ErrorFor("mr3.k8s.pod.worker.emptydirs", "one absolute directory (ebb keeps a worker's outputs in one)")
	}
	return nil
}
