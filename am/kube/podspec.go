package kube

import (
	"maps"
	"slices"
	"strconv"

	"github.com/ebb-am/ebb/am/core"
)

// spec is pod p's full spec: `ebb worker` for group g, preferring node
// (none when ""), kept off the draining nodes.
func (b *Book) spec(p *pod, g core.GroupInfo, node string) PodSpec {
	vcores := max(g.VCores, 1)
	s := PodSpec{
		Name: p.name, Namespace: b.o.Namespace, Owner: b.o.Owner,
		Labels:      map[string]string{LabelApp: b.o.App, LabelGroup: groupLabel(g.Name), LabelRole: "worker"},
		Annotations: map[string]string{AnnotationGroup: g.Name},
		Image:       b.o.Image, PullPolicy: b.o.PullPolicy, ServiceAccount: b.o.ServiceAccount,
		Args: []string{"ebb", "worker",
			"--am", b.o.AMAddress,
			// The AM's container restarts in its pod at the same IP and
			// port: its workers wait for it there and register again.
			"--rejoin-in-place",
			"--worker-id", p.name,
			"--group", g.Name,
			"--node", "$(NODE_NAME)",
			"--memory-mb", strconv.FormatInt(g.MemoryMB, 10),
			"--vcores", strconv.Itoa(vcores),
			"--container-id", p.name,
			"--work-dir", b.o.OutputDir,
			"--advertise-host", "$(POD_IP)"},
		Env:               maps.Clone(g.Env),
		FieldEnv:          map[string]string{"NODE_NAME": "spec.nodeName", "POD_IP": "status.podIP"},
		MemoryMB:          g.MemoryMB,
		MilliCPU:          int64(vcores) * 1000,
		PriorityClassName: b.o.PriorityClassName,
		PreemptionPolicy:  b.o.PreemptionPolicy,
		OutputDir:         b.o.OutputDir,
	}
	if b.o.SecretName != "" {
		s.SecretEnv = map[string]SecretKey{"EBB_SECRET": {Secret: b.o.SecretName, Key: "secret"}}
	}
	if node != "" {
		s.PreferNodes = []string{node}
	}
	for n := range b.avoid {
		s.AvoidNodes = append(s.AvoidNodes, n)
	}
	slices.Sort(s.AvoidNodes)
	return s
}
