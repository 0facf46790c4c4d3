package ui

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// /metrics writes exactly the families of metricDefs that every world
// serves, each with its table's type, so docs/reference/metrics.md (made
// from the table) lists what an operator scrapes. A family written
// without a definition fails here.
func TestMetricsMatchTheirDefinitions(t *testing.T) {
	srv, _ := fixture(t)
	_, m := get(t, srv.URL+"/metrics")
	if strings.Contains(m, undocumented) {
		t.Fatalf("/metrics writes a family metricDefs lacks:\n%s", m)
	}
	written := map[string]string{}
	for _, g := range regexp.MustCompile(`(?m)^# TYPE (\S+) (\S+)$`).FindAllStringSubmatch(m, -1) {
		written[g[1]] = g[2]
	}
	for _, d := range metricDefs {
		typ, ok := written[d.Name]
		switch {
		case d.World != "" && ok:
			t.Errorf("%s is defined as the %s world's but every world writes it", d.Name, d.World)
		case d.World == "" && !ok:
			t.Errorf("%s is defined but /metrics does not write it", d.Name)
		case ok && typ != d.Type:
			t.Errorf("%s has TYPE %s, its definition says %s", d.Name, typ, d.Type)
		}
	}
	names := make([]string, 0, len(metricDefs))
	for _, d := range metricDefs {
		names = append(names, d.Name)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
		t.Errorf("metricDefs names a family twice: %v", names)
	}
}
