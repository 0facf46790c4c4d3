package conf

import (
	"strings"
)

// Markdown returns a table of every key (name, default, allowed values,
// meaning) in table order, for docs/reference/config.md. It is generated from the table
// so the documentation cannot drift from what ebb accepts.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| key | default | allowed | meaning |\n|---|---|---|---|\n")
	for _, k := range keys {
		def := "`" + k.Default + "`"
		if k.Default == "" {
			def = "(empty)"
		}
		b.WriteString("| `" + k.Name + "` | " + def + " | " + MarkdownCell(k.Allowed()) + " | " + MarkdownCell(k.Doc) + " |\n")
	}
	return b.String()
}

// MarkdownCell escapes what would break a markdown table row: a pipe
// would end the cell, a newline the row. Every generated table in docs/
// uses it (the key table here, internal/docgen's others).
func MarkdownCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}
