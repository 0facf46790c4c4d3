package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/docs"
)

// docsRef is where a reader finds a page of the docs/ tree: a path in the
// repository, which is what a user of a checkout or of the module has.
func docsRef(page string) string { return "docs/" + page }

// newHelpTopics are the pages `ebb help TOPIC` prints, man-style: the DAG
// format (docs/dags.md, embedded) and the configuration keys (from conf's
// table, as docs/reference/config.md is).
func newHelpTopics() []*cobra.Command {
	return []*cobra.Command{
		{
			Use:   "dags",
			Short: "The DAG format and the task contract (" + docsRef("dags.md") + ")",
			Long:  docs.DAGs,
		},
		{
			Use:   "keys",
			Short: "Every mr3-site.xml key with its default, allowed values and meaning (" + docsRef("reference/config.md") + ")",
			Long:  keysText(),
		},
	}
}

// keysText is conf's key table as plain text for a terminal.
func keysText() string {
	var b strings.Builder
	b.WriteString("Keys ebb reads from mr3-site.xml, --conf files and --set key=value (" + docsRef("reference/config.md") + ").\n\n")
	for _, k := range conf.KnownKeys() {
		def := k.Default
		if def == "" {
			def = "(empty)"
		}
		fmt.Fprintf(&b, "%s\n    default %s; allowed %s\n    %s\n\n", k.Name, def, k.Allowed(), k.Doc)
	}
	return strings.TrimRight(b.String(), "\n")
}
