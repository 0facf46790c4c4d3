package kube

// Labels and annotations ebb puts on its worker pods.
const (
	// LabelApp names the application (the AM) a pod belongs to.
	LabelApp = "ebb.io/app"
	// LabelGroup names the ContainerGroup the worker serves (a sanitised
	// form when the name is not a valid label value; AnnotationGroup
	// always has it whole).
	LabelGroup = "ebb.io/group"
	// LabelRole is "worker" on worker pods.
	LabelRole = "ebb.io/role"
	// AnnotationGroup is the group's name as the core knows it.
	AnnotationGroup = "ebb.io/group"
	// AnnotationSafeToEvict is the cluster autoscaler's: "false" keeps
	// it from evicting the pod and so from removing its node
	// (cluster-autoscaler FAQ, "What types of pods can prevent CA from
	// removing a node?").
	AnnotationSafeToEvict = "cluster-autoscaler.kubernetes.io/safe-to-evict"
	// HostnameKey is the node label node affinity names nodes by.
	HostnameKey = "kubernetes.io/hostname"
)

// Preemption policies a PriorityClass or pod may have (the API's values).
const (
	PreemptLowerPriority = "PreemptLowerPriority"
	PreemptNever         = "Never"
)

// Pod phases, as the API names them.
const (
	PhasePending   = "Pending"
	PhaseRunning   = "Running"
	PhaseSucceeded = "Succeeded"
	PhaseFailed    = "Failed"
)

// Reasons of a pod's DisruptionTarget condition: the cluster, not the
// pod's own process, ends it (Kubernetes, "Pod disruption conditions").
const (
	DisruptionPreemption = "PreemptionByScheduler"
	DisruptionEviction   = "EvictionByEvictionAPI"
	DisruptionKubelet    = "TerminationByKubelet"
	DisruptionTaint      = "DeletionByTaintManager"
	DisruptionPodGC      = "DeletionByPodGC"
)

// ReasonOOMKilled is a terminated container's reason when the kernel
// killed it at its memory limit; ReasonEvicted a pod's when the kubelet
// evicted it (with the DisruptionTarget condition TerminationByKubelet on
// a kubelet that sets it).
const (
	ReasonOOMKilled = "OOMKilled"
	ReasonEvicted   = "Evicted"
)

// OwnerRef is the AM pod, every worker pod's owner.
type OwnerRef struct {
	APIVersion, Kind, Name, UID string
}

// PodSpec is one worker pod as ebb wants it, in ebb's types; the world
// renders it into the API's Pod.
type PodSpec struct {
	Name, Namespace string
	Labels          map[string]string
	Annotations     map[string]string
	Owner           OwnerRef
	Image           string
	PullPolicy      string
	ServiceAccount  string
	// Args is the container's command line; $(NODE_NAME) and $(POD_IP)
	// are the API's expansion of FieldEnv.
	Args []string
	Env  map[string]string
	// FieldEnv: environment variables from the pod's own fields
	// (name → fieldPath, the downward API).
	FieldEnv map[string]string
	// SecretEnv: environment variables from a Secret (name → secret/key).
	SecretEnv map[string]SecretKey
	// MemoryMB and MilliCPU are both the requests and the limits.
	MemoryMB int64
	MilliCPU int64
	// PreferNodes: preferred node affinity (weight 100) on HostnameKey.
	PreferNodes []string
	// AvoidNodes: required node affinity, HostnameKey NotIn these.
	AvoidNodes        []string
	PriorityClassName string
	PreemptionPolicy  string
	// OutputDir is where the emptyDir holding the worker's outputs is
	// mounted.
	OutputDir string
}

// SecretKey is one key of a Secret.
type SecretKey struct{ Secret, Key string }

// Patch changes a live pod's labels and annotations; a value "" removes
// the key.
type Patch struct {
	Pod         string
	Labels      map[string]string
	Annotations map[string]string
}

// Actions are what the world must do with the API server after a Plan.
type Actions struct {
	Create []PodSpec
	Delete []string // pod names
	Patch  []Patch
}

// PodStatus is what the pod watch reports of one of the application's
// pods.
type PodStatus struct {
	Name string
	// Deleted: the watch's DELETED event.
	Deleted bool
	Phase   string
	Node    string
	// Unschedulable: the scheduler's message while the pod's PodScheduled
	// condition is False with reason Unschedulable.
	Unschedulable string
	// Disruption: the reason of its DisruptionTarget condition, when True.
	Disruption string
	// Reason and Message: the pod's own (status.reason, status.message):
	// Evicted when the kubelet evicted it.
	Reason, Message string
	// Terminated: the worker container's end, when it ended.
	Terminated *Terminated
}

// Terminated is a container's end.
type Terminated struct {
	Reason   string
	ExitCode int
}

// NodeStatus is what the node watch reports of one node.
type NodeStatus struct {
	Name          string
	Deleted       bool
	AllocatableMB int64
}
