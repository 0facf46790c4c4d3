package conf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// site builds a configuration file body from property lines, one per line,
// so tests can say on which line a property sits: the header is line 1,
// <configuration> line 2, and the i-th argument line i+3.
func site(props ...string) string {
	return `<?xml version="1.0"?>` + "\n<configuration>\n" + strings.Join(props, "\n") + "\n</configuration>\n"
}

// prop is a one-line <property>.
func prop(name, value string) string {
	return "<property><name>" + name + "</name><value>" + value + "</value></property>"
}

func finalProp(name, value string) string {
	return "<property><name>" + name + "</name><value>" + value + "</value><final>true</final></property>"
}

// writeFile writes body to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// envOf is a Getenv over a fixed map, so no test reads the real environment.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}
