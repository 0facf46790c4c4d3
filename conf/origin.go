package conf

type originKind int

const (
	fromDefault originKind = iota
	fromFile
	fromEnv
	fromFlag // --set on the command line
	fromSet  // Config.Set at run time
)

// origin is where a value came from, kept so every error and warning can
// point at the line an admin has to change.
type origin struct {
	kind     originKind
	file     string
	line     int    // line of the value
	nameLine int    // line of the key's name, where an unknown key is reported
	env      string // the variable, for fromEnv
}

func (o origin) String() string {
	file, line := o.fileLine()
	return where(file, line)
}

// fileLine gives the File and Line fields of a ValueError: a real file and
// line, or the origin's name and 0.
func (o origin) fileLine() (string, int) {
	switch o.kind {
	case fromFile:
		return o.file, o.line
	case fromEnv:
		return "env " + o.env, 0
	case fromFlag:
		return "--set", 0
	case fromSet:
		return "set", 0
	}
	return "default", 0
}

// nameWhere is where an unknown key is reported: its <name> line.
func (o origin) nameWhere() (string, int) {
	if o.kind == fromFile && o.nameLine > 0 {
		return o.file, o.nameLine
	}
	return o.fileLine()
}
