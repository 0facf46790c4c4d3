package kubeworld

import (
	"encoding/json"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ebb-am/ebb/am/kube"
)

// workerContainer is the name of the one container of a worker pod.
const workerContainer = "worker"

// outputVolume is the emptyDir holding a worker's outputs.
const outputVolume = "work"

// render turns the Book's PodSpec into the API's Pod.
func render(s kube.PodSpec) *corev1.Pod {
	res := corev1.ResourceList{
		corev1.ResourceMemory: *resource.NewQuantity(s.MemoryMB<<20, resource.BinarySI),
		corev1.ResourceCPU:    *resource.NewMilliQuantity(s.MilliCPU, resource.DecimalSI),
	}
	c := corev1.Container{
		Name: workerContainer, Image: s.Image, ImagePullPolicy: corev1.PullPolicy(s.PullPolicy),
		Command:      s.Args[:1],
		Args:         s.Args[1:],
		Env:          env(s),
		Resources:    corev1.ResourceRequirements{Requests: res, Limits: res.DeepCopy()},
		VolumeMounts: []corev1.VolumeMount{{Name: outputVolume, MountPath: s.OutputDir}},
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, Labels: s.Labels, Annotations: s.Annotations,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: s.Owner.APIVersion, Kind: s.Owner.Kind, Name: s.Owner.Name,
				UID: types.UID(s.Owner.UID)}}},
		Spec: corev1.PodSpec{
			RestartPolicy:      corev1.RestartPolicyNever,
			ServiceAccountName: s.ServiceAccount,
			Containers:         []corev1.Container{c},
			Volumes: []corev1.Volume{{Name: outputVolume,
				VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			PriorityClassName: s.PriorityClassName,
			Affinity:          affinity(s),
		},
	}
	if s.PreemptionPolicy != "" {
		pp := corev1.PreemptionPolicy(s.PreemptionPolicy)
		p.Spec.PreemptionPolicy = &pp
	}
	return p
}

// env is the container's environment, sorted by name so a pod's spec does
// not change from one render to the next.
func env(s kube.PodSpec) []corev1.EnvVar {
	var out []corev1.EnvVar
	for k, v := range s.Env {
		out = append(out, corev1.EnvVar{Name: k, Value: v})
	}
	for k, path := range s.FieldEnv {
		out = append(out, corev1.EnvVar{Name: k, ValueFrom: &corev1.EnvVarSource{
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}})
	}
	for k, ref := range s.SecretEnv {
		out = append(out, corev1.EnvVar{Name: k, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: ref.Secret}, Key: ref.Key}}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// affinity is "prefer" as preferred node affinity (weight 100 each) and
// "avoid" as a required NotIn.
func affinity(s kube.PodSpec) *corev1.Affinity {
	if len(s.PreferNodes) == 0 && len(s.AvoidNodes) == 0 {
		return nil
	}
	na := &corev1.NodeAffinity{}
	for _, n := range s.PreferNodes {
		na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.PreferredSchedulingTerm{Weight: 100, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: kube.HostnameKey, Operator: corev1.NodeSelectorOpIn, Values: []string{n}}}}})
	}
	if len(s.AvoidNodes) > 0 {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
			{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: kube.HostnameKey, Operator: corev1.NodeSelectorOpNotIn, Values: s.AvoidNodes}}}}}
	}
	return &corev1.Affinity{NodeAffinity: na}
}

// mergePatch is a Patch as a JSON merge patch of the pod's metadata: a
// value "" removes its key (null in a merge patch).
func mergePatch(p kube.Patch) ([]byte, error) {
	meta := map[string]any{}
	if len(p.Labels) > 0 {
		meta["labels"] = nullable(p.Labels)
	}
	if len(p.Annotations) > 0 {
		meta["annotations"] = nullable(p.Annotations)
	}
	return json.Marshal(map[string]any{"metadata": meta})
}

func nullable(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if v == "" {
			out[k] = nil
		} else {
			out[k] = v
		}
	}
	return out
}
