package yarn

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Resource types other than memory and vcores (issue 23, item 5): a
// group's workers may ask for yarn.io/gpu and the like. They travel in
// the ResourceProto's resource_value_map; the RM's maximum capability
// lists the types it knows and the largest of each a container may have.

// TypesKey is the canonical text of a set of resource types: name=value
// pairs sorted by name, joined by commas ("" for none).
func TypesKey(types map[string]int64) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(types)) {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(name + "=" + strconv.FormatInt(types[name], 10))
	}
	return b.String()
}

// ParseTypes reads TypesKey's text back (nil for "").
func ParseTypes(key string) map[string]int64 {
	if key == "" {
		return nil
	}
	out := map[string]int64{}
	for _, kv := range strings.Split(key, ",") {
		name, v, _ := strings.Cut(kv, "=")
		n, _ := strconv.ParseInt(v, 10, 64)
		out[name] = n
	}
	return out
}

// typesTooBig says why no container can hold r's other resource types
// under limit, the RM's maximum capability ("" when one can): a type the
// cluster does not have, or more of it than a container may get. The ask
// would otherwise be refused or pend forever.
func typesTooBig(r, limit Resource) string {
	want, have := ParseTypes(r.Types), ParseTypes(limit.Types)
	for _, name := range slices.Sorted(maps.Keys(want)) {
		max, ok := have[name]
		switch {
		case !ok:
			return fmt.Sprintf("resource type %s: the cluster has no such type (yarn.resource-types lists %s)", name, orNone(slices.Sorted(maps.Keys(have))))
		case want[name] > max:
			return fmt.Sprintf("resource type %s: workers need %d, more than the cluster's largest container holds (%d)", name, want[name], max)
		}
	}
	return ""
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// noNodeHolds says why no known node can hold r's other resource types
// ("" when one can, or when r asks for none or no node is known): the
// RM's maximum for a type is per container and may exceed every node's
// (yarn.resource-types.<type>.maximum-allocation defaults to no limit),
// so an ask for 2 GPUs on nodes of 1 would pend forever.
func noNodeHolds(r Resource, nodes map[string]NodeReport) string {
	want := ParseTypes(r.Types)
	if len(want) == 0 || len(nodes) == 0 {
		return ""
	}
	most := map[string]int64{}
	for _, n := range nodes {
		have := ParseTypes(n.Types)
		fits := true
		for name, v := range want {
			most[name] = max(most[name], have[name])
			if have[name] < v {
				fits = false
			}
		}
		if fits {
			return ""
		}
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		parts = append(parts, fmt.Sprintf("%s=%d (the most on one node: %d)", name, want[name], most[name]))
	}
	return fmt.Sprintf("no NodeManager has the resources a worker asks for: %s", strings.Join(parts, ", "))
}

// TypesLimit says what bounds a container's resource types, in refusals.
const TypesLimit = "the cluster's largest container (the RM's maximum capability, and the most one NodeManager has)"

// mostPerContainer is, per resource type, the most one container can
// hold: the RM's maximum capability, and no more than the best-endowed
// known node has (the maximum may exceed every node's: noNodeHolds).
func mostPerContainer(limit Resource, nodes map[string]NodeReport) map[string]int64 {
	most := ParseTypes(limit.Types)
	if len(nodes) == 0 {
		return most
	}
	onNode := map[string]int64{}
	for _, n := range nodes {
		for name, v := range ParseTypes(n.Types) {
			onNode[name] = max(onNode[name], v)
		}
	}
	for name := range most {
		most[name] = min(most[name], onNode[name])
	}
	return most
}
