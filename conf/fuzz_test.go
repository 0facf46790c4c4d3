package conf

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseXML: the reader never panics, every property it returns has a
// trimmed non-empty name and a line inside the input, and what it reads
// survives WriteXML and a second read unchanged.
func FuzzParseXML(f *testing.F) {
	f.Add([]byte(site(prop("a", "1"), finalProp("b", "${a}"))))
	f.Add([]byte(`<configuration><property name="a" value="x"/><configuration>` + prop("c", "&lt;") + `</configuration></configuration>`))
	f.Add([]byte("<configuration>\n<property><name>a</name><value>x<!--c-->y<![CDATA[z]]></value></property>\n</configuration>"))
	f.Add([]byte("<configuration><property><name>a</name></property></configurationn>"))
	f.Add([]byte(`<?xml version="1.0" encoding="ISO-8859-1"?><configuration/>`))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		props, _, err := ParseXML("f", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error %q", err)
			}
			return
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		values := map[string]string{}
		for _, p := range props {
			if p.Name == "" || p.Name != strings.TrimSpace(p.Name) {
				t.Errorf("name %q", p.Name)
			}
			if p.Line < 1 || p.Line > lines || p.ValueLine < 1 || p.ValueLine > lines {
				t.Errorf("%s: lines %d/%d outside 1..%d", p.Name, p.Line, p.ValueLine, lines)
			}
			values[p.Name] = p.Value
		}
		var b bytes.Buffer
		if err := WriteXML(&b, values); err != nil {
			t.Fatalf("writing what was read: %v", err)
		}
		again, _, err := ParseXML("g", b.Bytes())
		if err != nil {
			t.Fatalf("reading what was written: %v\n%s", err, b.String())
		}
		got := map[string]string{}
		for _, p := range again {
			got[p.Name] = p.Value
		}
		if !reflect.DeepEqual(got, values) {
			t.Errorf("round trip\n got %q\nwant %q", got, values)
		}
	})
}
