package docgen

import (
	"strings"

	"github.com/ebb-am/ebb/conf"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// CLI is docs/reference/cli.md: every subcommand of root with its usage,
// description and flags, depth first in the tree's order.
func CLI(root *cobra.Command) string {
	var b strings.Builder
	b.WriteString(Header("the command tree (cmd/ebb)", Regenerate))
	b.WriteString("# Command reference\n\n")
	b.WriteString("Every `ebb` subcommand and flag. `ebb COMMAND --help` prints the same.\n\n")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		writeCommand(&b, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return b.String()
}

func writeCommand(b *strings.Builder, c *cobra.Command) {
	if c.IsAdditionalHelpTopicCommand() {
		// A help topic's text is a page of its own (docs/dags.md, the
		// key reference): named here, not copied.
		b.WriteString("## " + c.Root().Name() + " help " + c.Name() + "\n\n" + c.Short + "\n\n")
		return
	}
	b.WriteString("## " + c.CommandPath() + "\n\n")
	if c.Hidden {
		b.WriteString("*Internal: run by YARN containers and the local world, not by people.*\n\n")
	}
	if c.Short != "" {
		b.WriteString(c.Short + "\n\n")
	}
	if c.Runnable() {
		b.WriteString("```text\n" + c.UseLine() + "\n```\n\n")
	}
	if c.Long != "" && c.Long != c.Short {
		b.WriteString("```text\n" + strings.TrimRight(c.Long, "\n") + "\n```\n\n")
	}
	var flags []*pflag.Flag
	c.NonInheritedFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Name != "help" {
			flags = append(flags, f)
		}
	})
	if len(flags) > 0 {
		b.WriteString("| flag | default | meaning |\n|---|---|---|\n")
		for _, f := range flags {
			name := "`--" + f.Name + "`"
			if f.Shorthand != "" {
				name = "`-" + f.Shorthand + "`, " + name
			}
			def := "`" + f.DefValue + "`"
			if f.DefValue == "" || f.DefValue == "[]" {
				def = "—"
			}
			b.WriteString("| " + name + " | " + def + " | " + conf.MarkdownCell(f.Usage) + " |\n")
		}
		b.WriteString("\n")
	}
}
