package docgen

import (
	"strings"

	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/conf"
)

// Metrics is docs/reference/metrics.md: every family the AM's /metrics
// serves.
func Metrics() string {
	var b strings.Builder
	b.WriteString(Header("the UI's metric table (am/ui/metricdefs.go)", Regenerate))
	b.WriteString("# Metrics\n\n")
	b.WriteString("The AM serves these in Prometheus' text format at `/metrics` under its status UI (the YARN\n")
	b.WriteString("tracking URL, or the local AM's UI address).\n\n")
	b.WriteString("| name | type | labels | served by | meaning |\n|---|---|---|---|---|\n")
	for _, d := range ui.MetricDefs() {
		world := "every world"
		if d.World != "" {
			world = "the " + d.World + " world"
		}
		labels := "—"
		if d.Labels != "" {
			labels = "`" + strings.ReplaceAll(d.Labels, ", ", "`, `") + "`"
		}
		b.WriteString("| `" + d.Name + "` | " + d.Type + " | " + labels + " | " + world + " | " + conf.MarkdownCell(d.Help) + " |\n")
	}
	return b.String()
}
