package conf

import (
	"fmt"
	"io"
	"sort"
	"unicode/utf8"

	"github.com/beevik/etree"
)

// WriteXML writes values as a Hadoop configuration file, keys sorted so
// the same values always give the same bytes; ParseXML reads the same map
// back. A key or value XML 1.0 cannot hold (a control character, invalid
// UTF-8) or an empty key is a *ValueError, rather than a file no Hadoop
// parser could read.
func WriteXML(w io.Writer, values map[string]string) error {
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	sort.Strings(names)

	doc := etree.NewDocument()
	// Canonical text escapes '\r' too, which a reader would otherwise
	// normalise to '\n'.
	doc.WriteSettings.CanonicalText = true
	doc.CreateProcInst("xml", `version="1.0" encoding="UTF-8"`)
	root := doc.CreateElement("configuration")
	for _, k := range names {
		v := values[k]
		if k == "" || !xmlText(k) || !xmlText(v) {
			return &ValueError{File: "WriteXML", Key: k, Value: v, Allowed: "a non-empty key and text XML 1.0 can hold"}
		}
		p := root.CreateElement("property")
		p.CreateElement("name").SetText(k)
		p.CreateElement("value").SetText(v)
	}
	doc.Indent(2)
	if _, err := doc.WriteTo(w); err != nil {
		return fmt.Errorf("conf: writing configuration XML: %w", err)
	}
	return nil
}

// xmlText reports whether every rune of s is an XML 1.0 Char.
func xmlText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		ok := r == '\t' || r == '\n' || r == '\r' ||
			(r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
		if !ok {
			return false
		}
	}
	return true
}
