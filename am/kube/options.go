package kube

import (
	"errors"
	"fmt"
	"regexp"
)

// Options are the worker pods' settings. The world fills them from the
// configuration; the names it will read are MR3's where MR3 has one
// (mr3.k8s.namespace, mr3.k8s.pod.worker.image,
// mr3.k8s.pod.image.pull.policy, mr3.k8s.pod.worker.serviceaccount,
// mr3.k8s.worker.secret) and ebb's own where it has none (the priority
// class and preemption policy of worker pods).
type Options struct {
	// App is the application's name: pod names start with it and
	// LabelApp carries it. A DNS-1123 label of at most 40 characters, so
	// that "<app>-w-<n>" stays a valid pod name.
	App       string
	Namespace string
	Owner     OwnerRef
	Image     string
	// PullPolicy: Always, IfNotPresent or Never ("": the API's default).
	PullPolicy     string
	ServiceAccount string
	// AMAddress is where workers reach the AM (its Service).
	AMAddress string
	// SecretName is the Secret holding the application secret under the
	// key "secret"; workers read it as $EBB_SECRET.
	SecretName string
	// PriorityClassName and PreemptionPolicy go on every worker pod as
	// given ("": none, the cluster's defaults).
	PriorityClassName string
	PreemptionPolicy  string
	// OutputDir is the emptyDir's mount path (default /ebb/work).
	OutputDir string
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// maxAppLen leaves room for "-w-" and a sequence number within a pod
// name's 63-character label limit (pod names are used as hostnames).
const maxAppLen = 40

// Validate says what is wrong with o, naming the field.
func (o Options) Validate() error {
	var errs []error
	if !dnsLabel.MatchString(o.App) || len(o.App) > maxAppLen {
		errs = append(errs, fmt.Errorf("application name %q: want lower-case letters, digits and '-', at most %d characters, starting and ending with a letter or digit", o.App, maxAppLen))
	}
	if o.Namespace == "" {
		errs = append(errs, errors.New("namespace: empty"))
	}
	if o.Image == "" {
		errs = append(errs, errors.New("worker image: empty"))
	}
	if o.Owner.Name == "" || o.Owner.UID == "" {
		errs = append(errs, errors.New("owner: the AM pod's name and uid are needed (workers are deleted with it)"))
	}
	switch o.PullPolicy {
	case "", "Always", "IfNotPresent", "Never":
	default:
		errs = append(errs, fmt.Errorf("image pull policy %q: want Always, IfNotPresent or Never", o.PullPolicy))
	}
	switch o.PreemptionPolicy {
	case "", PreemptLowerPriority, PreemptNever:
	default:
		errs = append(errs, fmt.Errorf("preemption policy %q: want %s or %s", o.PreemptionPolicy, PreemptLowerPriority, PreemptNever))
	}
	return errors.Join(errs...)
}
