package conf

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SiteFile is the name of ebb's (and MR3's) configuration file.
const SiteFile = "mr3-site.xml"

// hadoopSiteFiles are read from $HADOOP_CONF_DIR, in this order, for the
// ResourceManager and NameNode addresses, as any Hadoop client reads them.
var hadoopSiteFiles = []string{"core-site.xml", "yarn-site.xml", "hdfs-site.xml"}

// LoadOptions says where Load looks.
type LoadOptions struct {
	// ConfPath is --conf: an mr3-site.xml, or a directory holding one.
	// Empty means $EBB_CONF_DIR, then $HADOOP_CONF_DIR, then none.
	ConfPath string
	// Getenv reads the environment (EBB_CONF_DIR, HADOOP_CONF_DIR, EBB_*
	// overrides, ${env.X}); nil means os.Getenv.
	Getenv func(string) string
	// Sets are the repeated --set key=value flags (see ParseSets).
	Sets map[string]string
}

// Load reads every layer (see the package comment), expands and validates
// the result. The error is the first problem found, as one line naming the
// file and line (or env/--set origin), the key, and what is wrong.
// Warnings are problems ebb can run with; the caller should print them.
func Load(opts LoadOptions) (*Config, []Warning, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	c := newConfig(getenv)
	var warns []Warning
	note := func(w *Warning) {
		if w != nil {
			warns = append(warns, *w)
		}
	}

	files, err := configFiles(opts.ConfPath, getenv)
	if err != nil {
		return nil, nil, err
	}
	var unknown []*UnknownKeyError
	for _, f := range files {
		props, ws, err := readFile(f)
		warns = append(warns, ws...)
		if err != nil {
			return nil, warns, err
		}
		for _, p := range props {
			o := origin{kind: fromFile, file: p.File, line: p.ValueLine, nameLine: p.Line}
			if u := unknownKey(p.Name, o); u != nil {
				unknown = append(unknown, u)
			}
			note(c.apply(p.Name, p.Value, o, p.Final))
		}
	}

	ovs, err := readOverrides(getenv, opts.Sets)
	if err != nil {
		return nil, warns, err
	}
	for _, ov := range ovs {
		if ov.key == "" {
			return nil, warns, &ValueError{File: "--set", Value: ov.value, Allowed: "key=value"}
		}
		if u := unknownKey(ov.key, ov.origin); u != nil {
			unknown = append(unknown, u)
		}
		note(c.apply(ov.key, ov.value, ov.origin, false))
	}

	if err := c.resolve(); err != nil {
		return nil, warns, err
	}
	// The policy is itself a key, so an admin can relax it in the same
	// file that holds MR3's other keys.
	if len(unknown) > 0 && c.String("ebb.conf.unknown.keys") == "error" {
		return nil, warns, unknown[0]
	}
	for _, u := range unknown {
		warns = append(warns, Warning{Where: where(u.File, u.Line), Key: u.Key,
			Msg: fmt.Sprintf("unknown key %s ignored (did you mean %s?)", u.Key, u.Suggestion)})
	}
	return c, warns, nil
}

// confFile is one file Load may read; an optional one may be missing.
type confFile struct {
	path     string
	optional bool
}

func configFiles(confPath string, getenv func(string) string) ([]confFile, error) {
	var files []confFile
	hadoop := getenv("HADOOP_CONF_DIR")
	if hadoop != "" {
		// Set but wrong is a mistake to report, not a cluster to guess.
		if st, err := os.Stat(hadoop); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("conf: HADOOP_CONF_DIR=%s is not a directory: point it at the cluster's configuration directory (the one holding yarn-site.xml and core-site.xml), or unset it", hadoop)
		}
		for _, name := range hadoopSiteFiles {
			files = append(files, confFile{path: filepath.Join(hadoop, name), optional: true})
		}
	}
	if confPath != "" {
		// The user named it, so it must be there.
		st, err := os.Stat(confPath)
		if err != nil {
			return nil, fmt.Errorf("conf: --conf: %w", err)
		}
		if st.IsDir() {
			confPath = filepath.Join(confPath, SiteFile)
		}
		return append(files, confFile{path: confPath}), nil
	}
	for _, dir := range []string{getenv("EBB_CONF_DIR"), hadoop} {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, SiteFile)
		if _, err := os.Stat(p); err == nil {
			return append(files, confFile{path: p}), nil
		}
	}
	return files, nil
}

func readFile(f confFile) ([]Property, []Warning, error) {
	data, err := os.ReadFile(f.path)
	if err != nil {
		if f.optional && errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("conf: %w", err)
	}
	return ParseXML(f.path, data)
}
