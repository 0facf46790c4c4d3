package yarn

import (
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strconv"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
	"github.com/ebb-am/ebb/yarnrpc"
)

// Translations between this package's types and the wire messages. Only
// the adapters use them.

func appIDProto(a AppID) *hadooppb.ApplicationIdProto {
	return &hadooppb.ApplicationIdProto{Id: proto.Int32(a.ID), ClusterTimestamp: proto.Int64(a.ClusterTS)}
}

func appIDFrom(p *hadooppb.ApplicationIdProto) AppID {
	return AppID{ClusterTS: p.GetClusterTimestamp(), ID: p.GetId()}
}

func containerIDProto(c ContainerID) *hadooppb.ContainerIdProto {
	return &hadooppb.ContainerIdProto{
		AppId:        appIDProto(c.Attempt.App),
		AppAttemptId: &hadooppb.ApplicationAttemptIdProto{ApplicationId: appIDProto(c.Attempt.App), AttemptId: proto.Int32(c.Attempt.Attempt)},
		Id:           proto.Int64(c.ID),
	}
}

func containerIDFrom(p *hadooppb.ContainerIdProto) ContainerID {
	app := p.GetAppAttemptId().GetApplicationId()
	if app == nil {
		app = p.GetAppId()
	}
	return ContainerID{Attempt: AttemptID{App: appIDFrom(app), Attempt: p.GetAppAttemptId().GetAttemptId()}, ID: p.GetId()}
}

func nodeName(n *hadooppb.NodeIdProto) string {
	return net.JoinHostPort(n.GetHost(), strconv.Itoa(int(n.GetPort())))
}

// askProto is one row of the ask table on the wire.
func askProto(a Ask) *hadooppb.ResourceRequestProto {
	rr := &hadooppb.ResourceRequestProto{
		Priority:      &hadooppb.PriorityProto{Priority: proto.Int32(a.Priority)},
		ResourceName:  proto.String(a.Name),
		Capability:    resourceProto(a.Capability),
		NumContainers: proto.Int32(a.Count),
		RelaxLocality: proto.Bool(a.Relax),
	}
	if a.Label != "" {
		rr.NodeLabelExpression = proto.String(a.Label)
	}
	return rr
}

func resourceProto(r Resource) *hadooppb.ResourceProto {
	p := &hadooppb.ResourceProto{Memory: proto.Int64(r.MemoryMB), VirtualCores: proto.Int32(r.VCores)}
	types := ParseTypes(r.Types)
	for _, name := range slices.Sorted(maps.Keys(types)) {
		p.ResourceValueMap = append(p.ResourceValueMap, &hadooppb.ResourceInformationProto{Key: proto.String(name), Value: proto.Int64(types[name])})
	}
	return p
}

func resourceFrom(p *hadooppb.ResourceProto) Resource {
	types := map[string]int64{}
	for _, ri := range p.GetResourceValueMap() {
		if k := ri.GetKey(); k != "memory-mb" && k != "vcores" {
			types[k] = ri.GetValue()
		}
	}
	return Resource{MemoryMB: p.GetMemory(), VCores: p.GetVirtualCores(), Types: TypesKey(types)}
}

func nodeReportFrom(n *hadooppb.NodeReportProto) NodeReport {
	return NodeReport{Node: nodeName(n.GetNodeId()), HTTP: n.GetHttpAddress(), Rack: n.GetRackName(), MemoryMB: n.GetCapability().GetMemory(),
		VCores: n.GetCapability().GetVirtualCores(), Running: n.GetNodeState() == hadooppb.NodeStateProto_NS_RUNNING,
		Containers: n.GetNumContainers(), UsedMB: n.GetUsed().GetMemory(), State: nodeStateFrom(n.GetNodeState()), DrainTimeout: drainTimeoutFrom(n),
		Types: resourceFrom(n.GetCapability()).Types, Label: nodeLabelFrom(n)}
}

// nodeLabelFrom is a node's partition: YARN gives a node one label at most
// (a list on the wire).
func nodeLabelFrom(n *hadooppb.NodeReportProto) string {
	if ls := n.GetNodeLabels(); len(ls) > 0 {
		return ls[0]
	}
	return ""
}

func nmTokensFrom(ts []*hadooppb.NMTokenProto) []NMToken {
	var out []NMToken
	for _, t := range ts {
		out = append(out, NMToken{Node: nodeName(t.GetNodeId()), Token: yarnrpc.TokenFromProto(t.GetToken())})
	}
	return out
}

// localResourceProto turns an hdfs:// URL into the NM's URL record.
func localResourceProto(r LocalResource) (*hadooppb.LocalResourceProto, error) {
	u, err := url.Parse(r.URL)
	if err != nil || u.Scheme == "" {
		return nil, fmt.Errorf("local resource %q: not a URL", r.URL)
	}
	up := &hadooppb.URLProto{Scheme: proto.String(u.Scheme), File: proto.String(u.Path)}
	if h := u.Hostname(); h != "" {
		up.Host = proto.String(h)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("local resource %q: bad port", r.URL)
		}
		up.Port = proto.Int32(int32(n))
	}
	return &hadooppb.LocalResourceProto{
		Resource:   up,
		Size:       proto.Int64(r.Size),
		Timestamp:  proto.Int64(r.Timestamp),
		Type:       hadooppb.LocalResourceTypeProto_FILE.Enum(),
		Visibility: r.Visibility.proto().Enum(),
	}, nil
}

func launchProto(l Launch) (*hadooppb.ContainerLaunchContextProto, error) {
	clc := &hadooppb.ContainerLaunchContextProto{Command: l.Command, Tokens: l.Tokens}
	for _, k := range sortedKeys(l.Resources) {
		lr, err := localResourceProto(l.Resources[k])
		if err != nil {
			return nil, err
		}
		clc.LocalResources = append(clc.LocalResources, &hadooppb.StringLocalResourceMapProto{Key: proto.String(k), Value: lr})
	}
	for _, k := range sortedKeys(l.Env) {
		clc.Environment = append(clc.Environment, &hadooppb.StringStringMapProto{Key: proto.String(k), Value: proto.String(l.Env[k])})
	}
	return clc, nil
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
