package yarn

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/proto/hadooppb"
)

// Issue 23, item 4: a labelled group's asks carry its label as the RM
// reads it off the wire (ResourceRequest field 6), on the ANY row, the
// only one such a group has (the core names no node for it); a group
// without a label sends none (the queue's default partition).
func TestGroupLabelOnTheWire(t *testing.T) {
	for _, label := range []string{"gpu", ""} {
		b := NewBook()
		b.Want(core.WantWorkers{Group: core.GroupInfo{Name: "g", MemoryMB: 1024, VCores: 1, NodeLabel: label}, Total: 2})
		req := b.Request()
		if len(req.Asks) != 1 || req.Asks[0].Name != AnyHost {
			t.Fatalf("label %q: asks %+v, want one at ANY", label, req.Asks)
		}
		wire, err := proto.Marshal(askProto(req.Asks[0]))
		if err != nil {
			t.Fatal(err)
		}
		var got hadooppb.ResourceRequestProto
		if err := proto.Unmarshal(wire, &got); err != nil {
			t.Fatal(err)
		}
		if got.GetNodeLabelExpression() != label || (label == "") != (got.NodeLabelExpression == nil) {
			t.Errorf("label %q: node_label_expression %v on the wire", label, got.NodeLabelExpression)
		}
	}
}

// The AM's label goes on the AM's own resource request (at ANY, its
// size), not on the context's node_label_expression, which the RM would
// apply to every unlabelled worker ask too; without a label neither is set.
func TestSubmitAMNodeLabel(t *testing.T) {
	for _, label := range []string{"lab", ""} {
		rec := &submitRecorder{}
		c := &Client{rms: newFailover([]string{"rm:8032"}, func(string) appClient { return rec })}
		spec := AppSpec{ID: AppID{ClusterTS: 1, ID: 1}, Resource: Resource{MemoryMB: 256, VCores: 1}, NodeLabel: label}
		if err := c.Submit(context.Background(), spec); err != nil {
			t.Fatal(err)
		}
		wire, _ := proto.Marshal(rec.sub)
		var got hadooppb.ApplicationSubmissionContextProto
		if err := proto.Unmarshal(wire, &got); err != nil {
			t.Fatal(err)
		}
		if got.NodeLabelExpression != nil {
			t.Errorf("label %q: the context's node_label_expression %q is set (it would label the workers too)", label, got.GetNodeLabelExpression())
		}
		reqs := got.GetAmContainerResourceRequest()
		if label == "" {
			if len(reqs) != 0 {
				t.Errorf("no label: AM resource requests %v, want none", reqs)
			}
			continue
		}
		if len(reqs) != 1 || reqs[0].GetNodeLabelExpression() != label || reqs[0].GetResourceName() != AnyHost ||
			reqs[0].GetCapability().GetMemory() != 256 || reqs[0].GetNumContainers() != 1 {
			t.Errorf("label %q: AM resource requests %v, want one at * of 256 MB labelled %q", label, reqs, label)
		}
	}
}

// A label the cluster does not have is refused naming it and the labels
// there are; an empty one, a known one, or any when the labels could not
// be learned, is not.
func TestUnknownLabel(t *testing.T) {
	have := Labels{Names: []string{"gpu", "highmem"}, Known: true}
	for _, tc := range []struct {
		labels Labels
		label  string
		want   string
	}{
		{have, "gpu", ""},
		{have, "", ""},
		{have, "ssd", `node label "ssd": the cluster has no such label (its labels: gpu, highmem)`},
		{Labels{Known: true}, "ssd", "its labels: none"},
		{Labels{}, "ssd", ""},
	} {
		got := tc.labels.UnknownLabel(tc.label)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%+v.UnknownLabel(%q) = %q, want %q", tc.labels, tc.label, got, tc.want)
		}
	}
	spec := &dag.Spec{Group: dag.GroupSpec{Name: "g", NodeLabel: "ssd"}}
	var le *LabelError
	if err := have.CheckGroupLabel(spec); !errors.As(err, &le) || le.Field != "containerGroup.nodeLabel" {
		t.Errorf("CheckGroupLabel: %v, want a LabelError naming containerGroup.nodeLabel", err)
	}
}

// The world refuses, as a DAG reaches the AM, a group label the cluster
// lacks and more of a type than a container holds; and a group asking for
// workers with an unknown label (a DAG recovered from the log never went
// through CheckSpec) is refused instead of asked for: the RM would fail
// every allocate that names it.
func TestWorldRefusesUnknownLabels(t *testing.T) {
	h := newHarness(t)
	h.w.o.Labels = Labels{Names: []string{"gpu"}, Known: true}
	parse := func(group string) *dag.Spec {
		s, err := dag.Parse("d.yaml", []byte("name: d\ncontainerGroup: {name: g, workerMemoryMB: 512"+group+"}\nvertices: [{name: v, command: \"true\", parallelism: 1, memoryMB: 512}]\n"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct{ group, want string }{
		{", nodeLabel: gpu", ""},
		{", nodeLabel: ssd", `containerGroup.nodeLabel: node label "ssd"`},
		// The fake RM's maximum lists no other type.
		{", resources: {yarn.io/gpu: 1}", "containerGroup.resources.yarn.io/gpu: 1 (group g)"},
	} {
		err := h.w.CheckSpec(parse(tc.group))
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("group {%s}: CheckSpec %v, want %q", tc.group, err, tc.want)
		}
	}
	h.w.WantWorkers(time.Unix(1000, 0), core.WantWorkers{Group: core.GroupInfo{Name: "g", MemoryMB: 512, VCores: 1, NodeLabel: "ssd"}, Total: 2})
	h.beat(t)
	if r := h.rm.last(); len(r.Asks) != 0 {
		t.Errorf("asked %+v for a group with an unknown label", r.Asks)
	}
	// The refusal (GroupRefused, failing its DAGs) is posted from another
	// goroutine: polled until a deadline.
	for deadline := time.Now().Add(5 * time.Second); h.posts.Load() != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d posts, want the one that refuses the group", h.posts.Load())
		}
	}
}

// A node report's label (node_labels, one at most) is the node's
// partition; none is the default one.
func TestNodeReportLabel(t *testing.T) {
	for _, labels := range [][]string{{"gpu"}, nil} {
		r := nodeReportFrom(&hadooppb.NodeReportProto{NodeId: &hadooppb.NodeIdProto{Host: proto.String("h"), Port: proto.Int32(1)}, NodeLabels: labels})
		if want := strings.Join(labels, ""); r.Label != want {
			t.Errorf("node_labels %v: label %q, want %q", labels, r.Label, want)
		}
	}
}
