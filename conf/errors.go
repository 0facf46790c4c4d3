package conf

import (
	"fmt"
	"strconv"
)

// where prints a place as "file:line", or just file when the line is not
// known (and for the non-file origins "env EBB_X", "--set", "default").
func where(file string, line int) string {
	if line > 0 {
		return file + ":" + strconv.Itoa(line)
	}
	return file
}

// ValueError is a value that is not what its key allows. File is the file
// it came from, or the origin ("env EBB_...", "--set", "set", "default")
// when it did not come from a file; Line is 0 then.
type ValueError struct {
	File    string
	Line    int
	Key     string
	Value   string
	Allowed string // completes "want ...": "an integer from 0 to 100"
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("%s: %s = %q: want %s", where(e.File, e.Line), e.Key, e.Value, e.Allowed)
}

// UnknownKeyError is an mr3. or ebb. key that is not in the table. It is
// an error unless ebb.conf.unknown.keys=warn, because a misspelt key would
// otherwise silently leave its default in force.
type UnknownKeyError struct {
	File       string
	Line       int
	Key        string
	Suggestion string // the nearest known key
	// Unsupported: why ebb does not carry out this key of MR3's (empty
	// for a key that is nobody's).
	Unsupported string
}

func (e *UnknownKeyError) Error() string {
	if e.Unsupported != "" {
		return fmt.Sprintf("%s: %s is MR3's but not supported by ebb: %s; remove it", where(e.File, e.Line), e.Key, e.Unsupported)
	}
	return fmt.Sprintf("%s: unknown key %s (did you mean %s?)", where(e.File, e.Line), e.Key, e.Suggestion)
}

// XMLError is a configuration file that is not well-formed Hadoop
// configuration XML.
type XMLError struct {
	File string
	Line int
	Msg  string
}

func (e *XMLError) Error() string {
	return fmt.Sprintf("%s: malformed configuration XML: %s", where(e.File, e.Line), e.Msg)
}

// ExpandError is a ${var} expansion that cannot finish: a cycle between
// keys or a chain deeper than Hadoop's limit.
type ExpandError struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *ExpandError) Error() string {
	return fmt.Sprintf("%s: %s: %s", where(e.File, e.Line), e.Key, e.Msg)
}

// FinalError is an attempt to change, at run time through Config.Set, a
// key an admin marked final.
type FinalError struct {
	Key   string
	Final string // where the key was made final
}

func (e *FinalError) Error() string {
	return fmt.Sprintf("%s is final (set in %s) and cannot be changed", e.Key, e.Final)
}

// Warning is a problem that does not stop ebb: a value a final key kept
// out, an unknown key under ebb.conf.unknown.keys=warn, an element Hadoop
// would ignore too.
type Warning struct {
	Where string // "file:line", "env EBB_...", "--set"
	Key   string // may be empty
	Msg   string
}

func (w Warning) String() string {
	return w.Where + ": " + w.Msg
}
