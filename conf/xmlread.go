package conf

import (
	"strings"

	"github.com/beevik/etree"
)

// Property is one <property> of a Hadoop configuration file.
type Property struct {
	Name      string
	Value     string
	Final     bool
	File      string
	Line      int // line of <name> (of <property> when the name is an attribute)
	ValueLine int // line of <value>, where a bad value is reported
}

// ParseXML reads Hadoop configuration XML:
//
//	<configuration>
//	  <property><name>k</name><value>v</value><final>true</final></property>
//	</configuration>
//
// Like Hadoop it accepts name/value/final as attributes of <property> too,
// nested <configuration> elements, and ignores <description> and other
// children it does not know. A property without a name or without a value
// is skipped with a warning, as Hadoop skips it. file only labels errors.
// Names are trimmed; values are kept as written.
func ParseXML(file string, data []byte) ([]Property, []Warning, error) {
	lines, err := scanStarts(file, data)
	if err != nil {
		return nil, nil, err
	}
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(data); err != nil {
		return nil, nil, &XMLError{File: file, Msg: err.Error()}
	}
	p := &xmlParser{file: file, lines: make(map[*etree.Element]int, len(lines))}
	p.number(&doc.Element, lines)

	root := doc.Root()
	if root == nil { // scanStarts already rejects this; keep the reader total
		return nil, nil, &XMLError{File: file, Msg: "no <configuration> element"}
	}
	if root.Tag != "configuration" {
		return nil, nil, &XMLError{File: file, Line: p.lines[root],
			Msg: "top-level element is <" + root.Tag + ">, want <configuration>"}
	}
	p.configuration(root)
	return p.props, p.warns, nil
}

type xmlParser struct {
	file  string
	lines map[*etree.Element]int
	props []Property
	warns []Warning
}

// number gives each element the line of its start tag by walking the tree
// in document order alongside the scanned lines.
func (p *xmlParser) number(e *etree.Element, lines []int) []int {
	for _, c := range e.ChildElements() {
		if len(lines) == 0 {
			return nil // cannot happen for one input; a missing line reads as 0
		}
		p.lines[c] = lines[0]
		lines = p.number(c, lines[1:])
	}
	return lines
}

func (p *xmlParser) warn(e *etree.Element, msg string) {
	p.warns = append(p.warns, Warning{Where: where(p.file, p.lines[e]), Msg: msg})
}

func (p *xmlParser) configuration(e *etree.Element) {
	for _, c := range e.ChildElements() {
		switch c.Tag {
		case "property":
			p.property(c)
		case "configuration":
			p.configuration(c)
		default:
			p.warn(c, "ignored element <"+c.Tag+"> (want <property>)")
		}
	}
}

func (p *xmlParser) property(e *etree.Element) {
	prop := Property{File: p.file, Line: p.lines[e], ValueLine: p.lines[e]}
	var final string
	var hasName, hasValue bool
	for _, a := range e.Attr {
		switch a.Key {
		case "name":
			prop.Name, hasName = a.Value, true
		case "value":
			prop.Value, hasValue = a.Value, true
		case "final":
			final = a.Value
		}
	}
	for _, c := range e.ChildElements() {
		switch c.Tag {
		case "name":
			prop.Name, hasName = text(c), true
			prop.Line = p.lines[c]
		case "value":
			prop.Value, hasValue = text(c), true
			prop.ValueLine = p.lines[c]
		case "final":
			final = text(c)
		}
	}
	prop.Name = strings.TrimSpace(prop.Name)
	prop.Final = strings.EqualFold(strings.TrimSpace(final), "true")
	switch {
	case !hasName || prop.Name == "":
		p.warn(e, "ignored <property> without a <name>")
	case !hasValue:
		p.warn(e, "ignored property "+prop.Name+" without a <value>")
	default:
		p.props = append(p.props, prop)
	}
}

// text joins all character data of e, so a comment or CDATA section in the
// middle of a value does not cut it short (etree's Text stops there).
func text(e *etree.Element) string {
	var b strings.Builder
	for _, t := range e.Child {
		if cd, ok := t.(*etree.CharData); ok {
			b.WriteString(cd.Data)
		}
	}
	return b.String()
}
