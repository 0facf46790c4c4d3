package kubeclient

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ebb-am/ebb/am/kube"
	"github.com/ebb-am/ebb/am/kubeworld"
)

// Paths in the AM pod, and the Secret's key for the S3 settings.
const (
	confMount  = "/etc/ebb"
	stateMount = "/ebb/state"
	s3Mount    = "/etc/ebb-s3"
	s3Key      = "s3-credentials"
)

// labels are on everything an application makes: `ebb kill` deletes by
// them, `kubectl get all -l ebb.io/app=APP` lists them.
func labels(app, role string) map[string]string {
	return map[string]string{kube.LabelApp: app, kube.LabelRole: role}
}

func meta(o SubmitOptions, name, role string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: o.Namespace, Labels: labels(o.App, role)}
}

// amPod is the AM's pod: `ebb am --master kubernetes`, the configuration
// and DAG from the ConfigMap, the secret (and the S3 settings, as a
// credentials file, when there are some) from the Secret, its own name,
// uid and IP from the downward API, an emptyDir that outlives the
// container's restarts (restartPolicy OnFailure) for the recovery log.
func amPod(o SubmitOptions) *corev1.Pod {
	res := corev1.ResourceList{
		corev1.ResourceMemory: *resource.NewQuantity(o.MemoryMB<<20, resource.BinarySI),
		corev1.ResourceCPU:    *resource.NewQuantity(int64(o.VCores), resource.DecimalSI),
	}
	args := []string{"am", "--master", "kubernetes", "--app", o.App, "--conf", confMount + "/mr3-site.xml", "--state-dir", stateMount}
	if len(o.DAG) > 0 {
		args = append(args, "--dag", confMount+"/dag.yaml", "--dag-name", o.DAGName)
	}
	if o.Output != "" {
		args = append(args, "--output", o.Output)
	}
	if o.Overwrite {
		args = append(args, "--overwrite")
	}
	field := func(name, path string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
	}
	c := corev1.Container{
		Name: "am", Image: o.Image, ImagePullPolicy: corev1.PullPolicy(o.PullPolicy), Command: []string{"ebb"}, Args: args,
		Env: []corev1.EnvVar{field("EBB_POD_NAME", "metadata.name"), field("EBB_POD_UID", "metadata.uid"), field("EBB_POD_IP", "status.podIP"),
			{Name: "EBB_SECRET", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: o.WorkerSecret}, Key: "secret"}}}},
		Ports:        []corev1.ContainerPort{{Name: "am", ContainerPort: int32(o.Port)}, {Name: "ui", ContainerPort: int32(o.Port + 1)}},
		Resources:    corev1.ResourceRequirements{Requests: res, Limits: res.DeepCopy()},
		VolumeMounts: []corev1.VolumeMount{{Name: "conf", MountPath: confMount, ReadOnly: true}, {Name: "state", MountPath: stateMount}},
	}
	vols := []corev1.Volume{
		{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: o.App + "-conf"}}}},
		{Name: "state", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	if len(o.S3Credentials) > 0 {
		mode := int32(0o400)
		vols = append(vols, corev1.Volume{Name: "s3", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: o.WorkerSecret, Items: []corev1.KeyToPath{{Key: s3Key, Path: "credentials"}}, DefaultMode: &mode}}})
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "s3", MountPath: s3Mount, ReadOnly: true})
		c.Env = append(c.Env, corev1.EnvVar{Name: "HADOOP_TOKEN_FILE_LOCATION", Value: s3Mount + "/credentials"})
	}
	return &corev1.Pod{
		ObjectMeta: meta(o, o.App+"-am", "am"),
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyOnFailure, ServiceAccountName: o.AMServiceAccount, Containers: []corev1.Container{c},
			Volumes: vols,
		},
	}
}

// owned makes m owned by the AM pod: deleting the pod deletes it (with a
// garbage collector).
func owned(m *metav1.ObjectMeta, pod *corev1.Pod) {
	m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID}}
}

func configMap(o SubmitOptions) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: meta(o, o.App+"-conf", "am"), Data: map[string]string{"mr3-site.xml": string(o.ConfXML)}}
	if len(o.DAG) > 0 {
		cm.Data["dag.yaml"] = string(o.DAG)
	}
	return cm
}

func secret(o SubmitOptions) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: meta(o, o.WorkerSecret, "am"), StringData: map[string]string{"secret": o.Secret}}
	if len(o.S3Credentials) > 0 {
		s.Data = map[string][]byte{s3Key: o.S3Credentials}
	}
	return s
}

func service(o SubmitOptions) *corev1.Service {
	return &corev1.Service{ObjectMeta: meta(o, o.App+"-am", "am"), Spec: corev1.ServiceSpec{
		Selector: labels(o.App, "am"),
		Ports: []corev1.ServicePort{{Name: "am", Port: int32(o.Port), TargetPort: intstr.FromInt32(int32(o.Port))},
			{Name: "ui", Port: int32(o.Port + 1), TargetPort: intstr.FromInt32(int32(o.Port + 1))}},
	}}
}

// rules are kubeworld.WorkerAccess as RBAC rules: the namespaced ones for
// the Role, the cluster-wide ones for the ClusterRole.
func rules(clusterWide bool) []rbacv1.PolicyRule {
	byRes := map[string][]string{}
	var order []string
	for _, a := range kubeworld.WorkerAccess {
		if a.ClusterWide != clusterWide {
			continue
		}
		if _, ok := byRes[a.Resource]; !ok {
			order = append(order, a.Resource)
		}
		byRes[a.Resource] = append(byRes[a.Resource], a.Verb)
	}
	var out []rbacv1.PolicyRule
	for _, r := range order {
		out = append(out, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{r}, Verbs: byRes[r]})
	}
	return out
}

// rbacObjects are the AM's service account, its Role and ClusterRole and
// their bindings. The ClusterRole (nodes) is named for the namespace too:
// cluster-wide names are shared by every namespace.
func rbacObjects(o SubmitOptions) (*corev1.ServiceAccount, *rbacv1.Role, *rbacv1.RoleBinding, *rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding) {
	sa := &corev1.ServiceAccount{ObjectMeta: meta(o, o.AMServiceAccount, "am")}
	subj := []rbacv1.Subject{{Kind: "ServiceAccount", Name: o.AMServiceAccount, Namespace: o.Namespace}}
	role := &rbacv1.Role{ObjectMeta: meta(o, o.App+"-am", "am"), Rules: rules(false)}
	rb := &rbacv1.RoleBinding{ObjectMeta: meta(o, o.App+"-am", "am"), Subjects: subj,
		RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: role.Name}}
	cname := o.Namespace + "-" + o.App + "-am"
	cm := metav1.ObjectMeta{Name: cname, Labels: labels(o.App, "am")}
	cm.Labels["ebb.io/namespace"] = o.Namespace
	cr := &rbacv1.ClusterRole{ObjectMeta: cm, Rules: rules(true)}
	crb := &rbacv1.ClusterRoleBinding{ObjectMeta: *cm.DeepCopy(), Subjects: subj,
		RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: cname}}
	return sa, role, rb, cr, crb
}
