package testcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sampleConf(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "run", "conf"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReadSiteSample(t *testing.T) {
	props, err := ReadSite(filepath.Join(sampleConf(t), "yarn-site.xml"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"yarn.resourcemanager.address":             "localhost:44803",
		"yarn.scheduler.maximum-allocation-mb":     "2048",
		"yarn.scheduler.include-port-in-node-name": "true", // name written with spaces around it
		"yarn.nodemanager.aux-services":            "",     // present but empty
	}
	for k, v := range want {
		got, ok := props[k]
		if !ok || got != v {
			t.Errorf("%s = %q (present %v), want %q", k, got, ok, v)
		}
	}
	if len(props) != 6 {
		t.Errorf("read %d properties, want 6: %v", len(props), props)
	}
}

func TestParseSiteErrors(t *testing.T) {
	cases := []struct {
		name, xml, want string
	}{
		{"not xml", "<configuration><property>", "invalid XML"},
		{"wrong root", "<conf><property><name>a</name></property></conf>", "not <configuration>"},
		{"no name", "<configuration><property><value>1</value></property></configuration>", "property #1 has no <name>"},
		{"blank name", "<configuration><property><name>a</name></property><property><name> </name></property></configuration>", "property #2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseSite("x.xml", []byte(c.xml))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *ParseError", err)
			}
			if pe.File != "x.xml" || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %q, want file x.xml and %q", err, c.want)
			}
		})
	}
}

func TestParseSiteLaterWins(t *testing.T) {
	props, err := parseSite("x.xml", []byte(`<configuration>
<property><name>k</name><value>1</value></property>
<property><name>k</name><value>2</value></property></configuration>`))
	if err != nil {
		t.Fatal(err)
	}
	if props["k"] != "2" {
		t.Errorf("k = %q, want the later value 2", props["k"])
	}
}

func TestReadEnvSample(t *testing.T) {
	env, err := ReadEnv(filepath.Join(filepath.Dir(sampleConf(t)), "cluster.env"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"RM_ADDRESS": "localhost:44803",
		"NAMENODE":   "hdfs://localhost:46037",
		"NM_COUNT":   "2",
		"QUOTED":     `a b'c $HOME`,
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	if len(env) != 12 {
		t.Errorf("read %d keys, want 12 (comment and blank line skipped): %v", len(env), env)
	}
}

func TestParseEnvErrors(t *testing.T) {
	cases := []struct {
		name, text string
		line       int
		want       string
	}{
		{"no equals", "A=1\nJUNK\n", 2, "want KEY=value"},
		{"bad key", "# c\n\n1A=x\n", 3, "want KEY=value"},
		{"dash in key", "A-B=x\n", 1, "want KEY=value"},
		{"unterminated quote", "A='x\n", 1, "unterminated quote"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseEnv("cluster.env", []byte(c.text))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *ParseError", err)
			}
			if pe.Line != c.line || !strings.Contains(pe.Msg, c.want) {
				t.Errorf("err = %q (line %d), want line %d and %q", err, pe.Line, c.line, c.want)
			}
		})
	}
}

func TestUnquote(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain", "plain"},
		{"'a b'", "a b"},
		{`'it'\''s'`, "it's"},
		{`a'b c'd`, "ab cd"},
		{"''", ""},
		{"", ""},
	}
	for _, c := range cases {
		got, err := unquote(c.in)
		if err != nil || got != c.want {
			t.Errorf("unquote(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// env builds a getenv from pairs.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// copyRun copies the sample run dir to a temp dir, optionally without ready.
func copyRun(t *testing.T, withReady bool) string {
	t.Helper()
	src := filepath.Dir(sampleConf(t))
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if rel == "ready" && !withReady {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, "conf")
}

func TestLocate(t *testing.T) {
	good := sampleConf(t)
	stopped := copyRun(t, false)
	notMini := t.TempDir() // a real cluster's conf dir: site files, no cluster.env
	if err := os.WriteFile(filepath.Join(notMini, "yarn-site.xml"), []byte("<configuration/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		getenv func(string) string
		dir    string // want this dir, or
		err    error  // want an error wrapping this, or
		errMsg string // an error saying this
	}{
		{"running minicluster", env(EnvConfDir, good), good, nil, ""},
		{"running minicluster under CI", env(EnvConfDir, good, "CI", "true"), good, nil, ""},
		{"plain conf dir", env(EnvConfDir, notMini), notMini, nil, ""},
		{"unset", env(), "", errUnset, ""},
		{"unset under CI", env("CI", "true"), "", errUnset, "CI must run"},
		{"missing dir", env(EnvConfDir, "/nonexistent/conf"), "", os.ErrNotExist, "not a Hadoop conf dir"},
		{"stopped minicluster", env(EnvConfDir, stopped), "", errNotRunning, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, err := locate(c.getenv)
			if c.err == nil && c.errMsg == "" {
				if err != nil || dir != c.dir {
					t.Fatalf("locate = %q, %v; want %q", dir, err, c.dir)
				}
				return
			}
			if err == nil {
				t.Fatalf("locate = %q, nil; want an error", dir)
			}
			if c.err != nil && !errors.Is(err, c.err) {
				t.Errorf("err = %v, want it to wrap %v", err, c.err)
			}
			if !strings.Contains(err.Error(), c.errMsg) {
				t.Errorf("err = %v, want it to say %q", err, c.errMsg)
			}
		})
	}
}

// recTB records what ConfDir asks of a test instead of stopping it. The
// embedded nil TB is never called: a call would panic and fail the test.
type recTB struct {
	testing.TB
	skipped, fatal string
}

func (r *recTB) Helper()                        {}
func (r *recTB) Name() string                   { return "TestSomething" }
func (r *recTB) Skipf(f string, a ...any)       { r.skipped = fmt.Sprintf(f, a...) }
func (r *recTB) Fatalf(format string, a ...any) { r.fatal = fmt.Sprintf(format, a...) }

func TestConfDirSkipsLoudlyOrFailsUnderCI(t *testing.T) {
	t.Setenv(EnvConfDir, "")

	t.Setenv("CI", "")
	r := &recTB{}
	ConfDir(r)
	if r.fatal != "" || !strings.Contains(r.skipped, "SKIPPING INTEGRATION TEST TestSomething") ||
		!strings.Contains(r.skipped, "scripts/minicluster/start.sh") {
		t.Errorf("without CI: skipped=%q fatal=%q; want a loud skip naming start.sh", r.skipped, r.fatal)
	}

	t.Setenv("CI", "true")
	r = &recTB{}
	ConfDir(r)
	if r.skipped != "" || !strings.Contains(r.fatal, "CI must run") {
		t.Errorf("with CI=true: skipped=%q fatal=%q; want a failure", r.skipped, r.fatal)
	}

	t.Setenv(EnvConfDir, "/nonexistent/conf")
	t.Setenv("CI", "")
	r = &recTB{}
	ConfDir(r)
	if r.skipped != "" || !strings.Contains(r.fatal, "not a Hadoop conf dir") {
		t.Errorf("broken variable: skipped=%q fatal=%q; want a failure even outside CI", r.skipped, r.fatal)
	}
}

func TestHelpersOnSample(t *testing.T) {
	t.Setenv(EnvConfDir, sampleConf(t))
	t.Setenv("CI", "")
	checks := []struct{ name, got, want string }{
		{"RMAddress", RMAddress(t), "localhost:44803"},
		{"SchedulerAddress", SchedulerAddress(t), "localhost:45807"},
		{"RMWebURL", RMWebURL(t), "http://localhost:39491"},
		{"DefaultFS", DefaultFS(t), "hdfs://localhost:46037"},
		{"Property hdfs-site", Property(t, "hdfs-site.xml", "dfs.replication"), "1"},
		{"EnvValue", EnvValue(t, "NM1_NODE_ID"), "localhost:40257"},
		{"NMLogDirs", strings.Join(NMLogDirs(t), "|"), "/tmp/ebb-minicluster/target/nm-0/logs|/tmp/ebb-minicluster/target/nm-1/logs"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if n := MaxAllocationMB(t); n != 2048 {
		t.Errorf("MaxAllocationMB = %d, want 2048", n)
	}
}

func TestLookupMissingKeyWrapsErrNoProperty(t *testing.T) {
	_, err := lookup(filepath.Join(sampleConf(t), "core-site.xml"), "no.such.key")
	if !errors.Is(err, ErrNoProperty) || !strings.Contains(err.Error(), "no.such.key") {
		t.Errorf("err = %v, want ErrNoProperty naming the key", err)
	}
}

func TestNodeIDsOnSample(t *testing.T) {
	t.Setenv(EnvConfDir, sampleConf(t))
	t.Setenv("CI", "")
	got := strings.Join(NodeIDs(t), ",")
	if got != "localhost:34143,localhost:40257" {
		t.Errorf("NodeIDs = %s, want NM0 then NM1 from cluster.env", got)
	}
}

func TestContainerLogDirs(t *testing.T) {
	// Two NMs; the application ran one container on each, plus a file and
	// another application that must not be picked up.
	nm0, nm1 := t.TempDir(), t.TempDir()
	app := "application_1_0001"
	mk := func(p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(nm0, app, "container_1_0001_01_000001"))
	mk(filepath.Join(nm1, app, "container_1_0001_01_000002"))
	mk(filepath.Join(nm1, "application_1_0002", "container_1_0002_01_000001"))
	if err := os.WriteFile(filepath.Join(nm1, app, "container_stray_file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got := containerLogDirs([]string{nm0, nm1, "/nonexistent"}, app)
	want := map[string]string{
		"container_1_0001_01_000001": filepath.Join(nm0, app, "container_1_0001_01_000001"),
		"container_1_0001_01_000002": filepath.Join(nm1, app, "container_1_0001_01_000002"),
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s -> %q, want %q", k, got[k], v)
		}
	}
}
