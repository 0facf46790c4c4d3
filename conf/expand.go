package conf

import "strings"

// maxExpandDepth is how many ${var} references may nest, Hadoop's limit.
const maxExpandDepth = 20

// expander replaces ${key} with the (expanded) value of another key and
// ${env.NAME} with an environment variable, as Hadoop's Configuration.get
// does. A reference to nothing stays as written, as in Hadoop, so a typed
// key then reports the literal ${...} in its error.
type expander struct {
	raw    func(key string) (string, bool)
	getenv func(string) string
}

// expand expands s, the value of key. The error is an *ExpandError without
// File and Line; the caller knows where key came from.
func (x expander) expand(key, s string) (string, *ExpandError) {
	return x.expandIn([]string{key}, s)
}

// expandIn expands s, found at the end of chain: chain[0] is the key being
// read, each next key was referenced by the one before it.
func (x expander) expandIn(chain []string, s string) (string, *ExpandError) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		name, rest, ok := reference(s[i+2:])
		if !ok {
			b.WriteString("${")
			s = s[i+2:]
			continue
		}
		val, found, err := x.lookup(chain, name)
		if err != nil {
			return "", err
		}
		if found {
			b.WriteString(val)
		} else {
			b.WriteString("${" + name + "}")
		}
		s = rest
	}
}

// reference reads the name of a ${name} whose "${" has been consumed.
// Like Hadoop's pattern \$\{[^\}\$ ]+\}, a name is non-empty and holds no
// '$', '}' or space; anything else is not a reference and stays literal.
func reference(s string) (name, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '}':
			if i == 0 {
				return "", "", false
			}
			return s[:i], s[i+1:], true
		case '$', ' ':
			return "", "", false
		}
	}
	return "", "", false
}

func (x expander) lookup(chain []string, name string) (string, bool, *ExpandError) {
	if env, ok := strings.CutPrefix(name, "env."); ok {
		return x.env(chain, env)
	}
	for _, k := range chain {
		if k == name {
			return "", false, &ExpandError{Key: chain[0],
				Msg: "${var} cycle: " + strings.Join(append(chain, name), " -> ")}
		}
	}
	if len(chain) > maxExpandDepth {
		return "", false, &ExpandError{Key: chain[0],
			Msg: "${var} expansion deeper than 20: " + strings.Join(append(chain, name), " -> ")}
	}
	raw, ok := x.raw(name)
	if !ok {
		return "", false, nil
	}
	val, err := x.expandIn(append(chain[:len(chain):len(chain)], name), raw)
	return val, err == nil, err
}

// env reads ${env.NAME}, ${env.NAME:-default} and ${env.NAME-default}
// (Hadoop 3's forms). An empty variable counts as unset: Getenv cannot
// tell them apart.
func (x expander) env(chain []string, spec string) (string, bool, *ExpandError) {
	name, def, hasDef := spec, "", false
	if i := strings.Index(spec, ":-"); i >= 0 {
		name, def, hasDef = spec[:i], spec[i+2:], true
	} else if i := strings.Index(spec, "-"); i >= 0 {
		name, def, hasDef = spec[:i], spec[i+1:], true
	}
	if v := x.getenv(name); v != "" {
		return v, true, nil
	}
	if !hasDef {
		return "", false, nil
	}
	val, err := x.expandIn(chain, def)
	return val, err == nil, err
}
