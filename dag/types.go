package dag

import (
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a time.Duration written as "90s", "5m" or a number of seconds.
type Duration time.Duration

func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

func (d *Duration) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if v, err := time.ParseDuration(s); err == nil {
		*d = Duration(v)
		return nil
	}
	var secs float64
	if _, err := fmt.Sscanf(s, "%g", &secs); err == nil && fmt.Sprint(secs) != "" && !strings.ContainsAny(s, " \t") {
		*d = Duration(secs * float64(time.Second))
		return nil
	}
	return fmt.Errorf("bad duration %q: want e.g. 90s, 5m or a number of seconds", s)
}

// Command is a task's argv. In a spec it is either a list (argv) or a
// string, which runs under /bin/sh -c. An argv[0] of "ebb" means the
// worker's own executable, so built-in tasks need no path.
type Command []string

func (c *Command) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*c = Command{"/bin/sh", "-c", n.Value}
		return nil
	case yaml.SequenceNode:
		var argv []string
		if err := n.Decode(&argv); err != nil {
			return err
		}
		*c = argv
		return nil
	}
	return fmt.Errorf("command: want a string or a list of strings")
}

func (c *Command) UnmarshalJSON(b []byte) error {
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		return err
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		return c.UnmarshalYAML(n.Content[0])
	}
	return fmt.Errorf("command: want a string or a list of strings")
}
