package yarn

import (
	"context"
	"errors"
	"strings"
	"testing"

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
		b.Want(core.GroupInfo{Name: "g", MemoryMB: 1024, VCores: 1, NodeLabel: label}, 2, nil, nil)
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
