package conf

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseXML(t *testing.T) {
	tests := []struct {
		name  string
		xml   string
		want  []Property
		warns []string // substrings, in order
	}{
		{
			name: "elements, lines of name and value",
			xml: site(
				prop("a", "1"),
				"<property>\n  <name> b </name>\n  <value> two </value>\n  <final>true</final>\n</property>",
			),
			want: []Property{
				{Name: "a", Value: "1", File: "f", Line: 3, ValueLine: 3},
				{Name: "b", Value: " two ", Final: true, File: "f", Line: 5, ValueLine: 6},
			},
		},
		{
			name: "attributes, nested configuration, description ignored",
			xml: site(
				`<property name="a" value="x" final="TRUE"/>`,
				`<configuration>`+prop("b", "y")+`</configuration>`,
				`<property><name>c</name><value>z</value><description>d</description></property>`,
			),
			want: []Property{
				{Name: "a", Value: "x", Final: true, File: "f", Line: 3, ValueLine: 3},
				{Name: "b", Value: "y", File: "f", Line: 4, ValueLine: 4},
				{Name: "c", Value: "z", File: "f", Line: 5, ValueLine: 5},
			},
		},
		{
			name: "comment and CDATA inside a value do not cut it",
			xml:  site(`<property><name>a</name><value>x<!-- c -->y<![CDATA[<z>]]></value></property>`),
			want: []Property{{Name: "a", Value: "xy<z>", File: "f", Line: 3, ValueLine: 3}},
		},
		{
			name: "empty value is a value",
			xml:  site(`<property><name>a</name><value/></property>`),
			want: []Property{{Name: "a", Value: "", File: "f", Line: 3, ValueLine: 3}},
		},
		{
			name:  "skipped with warnings like Hadoop",
			xml:   site(`<property><value>1</value></property>`, `<property><name>b</name></property>`, `<other/>`),
			warns: []string{"f:3: ignored <property> without a <name>", "f:4: ignored property b without a <value>", "f:5: ignored element <other>"},
		},
		{
			name: "empty configuration",
			xml:  "<configuration/>",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warns, err := ParseXML("f", []byte(tt.xml))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			if len(warns) != len(tt.warns) {
				t.Fatalf("warnings %v, want %d", warns, len(tt.warns))
			}
			for i, w := range warns {
				if !strings.Contains(w.String(), tt.warns[i]) {
					t.Errorf("warning %d = %q, want it to contain %q", i, w, tt.warns[i])
				}
			}
		})
	}
}

func TestParseXMLMalformed(t *testing.T) {
	tests := []struct {
		name string
		xml  string
		line int
		msg  string
	}{
		{"mismatched end tag", site(prop("a", "1"), "<property><name>b</name><value>2</valu></property>"), 4, "closed by </valu>"},
		{"unclosed at end of file", "<configuration>\n<property>\n", 3, "unexpected EOF"},
		{"bad entity", site(prop("a", "&nope;")), 3, "invalid character entity"},
		{"empty file", "", 0, "no <configuration> element"},
		{"only a comment", "<!-- nothing -->\n", 0, "no <configuration> element"},
		{"wrong root", "<?xml version=\"1.0\"?>\n<config>\n</config>\n", 2, "top-level element is <config>"},
		{"second root", "<configuration/>\n<configuration/>\n", 2, "second top-level element"},
		{"text outside", "<configuration/>\n\n  hello\n", 3, "text outside <configuration>"},
		{"not XML at all", "key=value\n", 1, "text outside <configuration>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseXML("conf/mr3-site.xml", []byte(tt.xml))
			var xe *XMLError
			if !errors.As(err, &xe) {
				t.Fatalf("err = %v, want *XMLError", err)
			}
			if xe.File != "conf/mr3-site.xml" || xe.Line != tt.line || !strings.Contains(xe.Msg, tt.msg) {
				t.Errorf("got %s:%d %q, want line %d containing %q", xe.File, xe.Line, xe.Msg, tt.line, tt.msg)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}
