package testcluster

import (
	"fmt"
	"os"
	"strings"

	"github.com/beevik/etree"
)

// ReadSite reads a Hadoop site file (<configuration><property><name>
// <value>...) into a map. Values are taken as written: the launcher writes
// expanded values, and a test that checks a value wants to see exactly what
// the file says. A property without a name is an error; a later property
// overrides an earlier one, as in Hadoop.
func ReadSite(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("testcluster: reading site file: %w", err)
	}
	return parseSite(path, data)
}

func parseSite(name string, data []byte) (map[string]string, error) {
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(data); err != nil {
		return nil, &ParseError{File: name, Msg: err.Error()}
	}
	root := doc.Root()
	if root == nil || root.Tag != "configuration" {
		return nil, &ParseError{File: name, Msg: "root element is not <configuration>"}
	}
	props := make(map[string]string)
	for i, p := range root.SelectElements("property") {
		n := p.SelectElement("name")
		if n == nil || strings.TrimSpace(n.Text()) == "" {
			return nil, &ParseError{File: name, Msg: fmt.Sprintf("property #%d has no <name>", i+1)}
		}
		v := ""
		if e := p.SelectElement("value"); e != nil {
			v = e.Text()
		}
		props[strings.TrimSpace(n.Text())] = v
	}
	return props, nil
}

// lookup returns key from the site file, or an error wrapping ErrNoProperty.
func lookup(path, key string) (string, error) {
	props, err := ReadSite(path)
	if err != nil {
		return "", err
	}
	v, ok := props[key]
	if !ok {
		return "", fmt.Errorf("testcluster: %s in %s: %w", key, path, ErrNoProperty)
	}
	return v, nil
}
