package testcluster

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// ReadEnv reads a cluster.env file: KEY=value lines, # comments and blank
// lines ignored. Values may use sh single quotes (a quote inside one is
// written as quote, backslash, quote, quote), which is how the launcher
// writes values with unusual characters.
func ReadEnv(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("testcluster: reading cluster env: %w", err)
	}
	return parseEnv(path, data)
}

func parseEnv(name string, data []byte) (map[string]string, error) {
	env := make(map[string]string)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		key, raw, ok := strings.Cut(text, "=")
		if !ok || !validKey(key) {
			return nil, &ParseError{File: name, Line: line, Msg: fmt.Sprintf("want KEY=value, got %q", text)}
		}
		val, err := unquote(raw)
		if err != nil {
			return nil, &ParseError{File: name, Line: line, Msg: err.Error()}
		}
		env[key] = val
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: name, Msg: err.Error()}
	}
	return env, nil
}

func validKey(k string) bool {
	if k == "" || (k[0] >= '0' && k[0] <= '9') {
		return false
	}
	for _, c := range k {
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// unquote undoes sh single quoting: runs of '...' and bare text, where a bare
// \' stands for a quote. Anything else shell-like (double quotes, $) is kept
// literally, since the launcher never writes it unquoted.
func unquote(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return "", fmt.Errorf("unterminated quote in %q", s)
			}
			b.WriteString(s[i+1 : i+1+end])
			i += end + 2
		case s[i] == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i += 2
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String(), nil
}
