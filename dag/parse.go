package dag

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// SpecError is a problem with a DAG spec, located by file, line and field
// path (e.g. "vertices[1].parallelism"). Error() is one line.
type SpecError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *SpecError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	// Without a file (a check made after parsing, whose caller names the
	// DAG), the field leads.
	sep := func() {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
	}
	if e.Field != "" {
		sep()
		b.WriteString(e.Field)
	}
	sep()
	b.WriteString(e.Msg)
	return b.String()
}

// ReadFile reads and validates a DAG spec file (YAML or JSON).
func ReadFile(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &SpecError{File: path, Msg: err.Error()}
	}
	return Parse(path, data)
}

// Parse reads and validates a DAG spec; name is used in error messages.
// Unknown fields are errors, so a misspelt field is never silently ignored.
func Parse(name string, data []byte) (*Spec, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlError(name, err)
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, &SpecError{File: name, Msg: "empty DAG spec"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Spec
	if err := dec.Decode(&s); err != nil {
		return nil, yamlError(name, err)
	}
	lines := indexLines(root.Content[0])
	if err := s.validate(); err != nil {
		var se *SpecError
		if errors.As(err, &se) {
			se.File = name
			se.Line = lines.find(se.Field)
			return nil, se
		}
		return nil, err
	}
	return &s, nil
}

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// yamlError turns yaml.v3's messages ("yaml: line 3: ...", or a TypeError
// listing several) into one SpecError line.
func yamlError(name string, err error) error {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &SpecError{File: name, Line: line, Msg: m[2]}
	}
	return &SpecError{File: name, Msg: msg}
}

// lineIndex maps field paths like "vertices[1].parallelism" to the line
// they were written on, so validation errors can point at the source.
type lineIndex map[string]int

func indexLines(n *yaml.Node) lineIndex {
	idx := lineIndex{}
	var walk func(path string, n *yaml.Node)
	walk = func(path string, n *yaml.Node) {
		if path != "" {
			if _, ok := idx[path]; !ok {
				idx[path] = n.Line
			}
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				idx[p] = k.Line
				walk(p, v)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(fmt.Sprintf("%s[%d]", path, i), c)
			}
		}
	}
	walk("", n)
	return idx
}

// find returns the line of the longest known prefix of path.
func (l lineIndex) find(path string) int {
	for p := path; p != ""; {
		if line, ok := l[p]; ok {
			return line
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return 0
}
