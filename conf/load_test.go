package conf

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadErrors covers each kind of error Load reports; every message is
// compared whole, because its exact one-line shape is the user interface.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		site string            // mr3-site.xml body ("" = no file)
		env  map[string]string // besides HADOOP_CONF_DIR
		sets map[string]string
		want string // the error, with $F for the mr3-site.xml path
		as   any    // a pointer to the error type errors.As must find
	}{
		{
			name: "malformed XML",
			site: site(prop("mr3.am.resource.memory.mb", "1024"), "<property><name>x</name><value>1</value></propertyy>"),
			want: "$F:4: malformed configuration XML: element <property> closed by </propertyy>",
			as:   new(*XMLError),
		},
		{
			name: "unknown key names the nearest",
			site: site(prop("mr3.am.resource.memory.mb", "1024"), prop("mr3.auto.scale.out.threshold.precent", "70")),
			want: "$F:4: unknown key mr3.auto.scale.out.threshold.precent (did you mean mr3.auto.scale.out.threshold.percent?)",
			as:   new(*UnknownKeyError),
		},
		{
			name: "an MR3 Kubernetes key ebb does not carry out is refused by name, with why",
			site: site(prop("mr3.k8s.pod.worker.node.selector", "disk=ssd")),
			want: "$F:3: mr3.k8s.pod.worker.node.selector is MR3's but not supported by ebb: worker pods carry no node selector (ebb places them by node affinity); remove it",
			as:   new(*UnknownKeyError),
		},
		{
			name: "unknown key is reported at its name line",
			site: site("<property>\n<name>ebb.local.node</name>\n<value>3</value>\n</property>"),
			want: "$F:4: unknown key ebb.local.node (did you mean ebb.local.nodes?)",
			as:   new(*UnknownKeyError),
		},
		{
			name: "bad int",
			site: site(prop("mr3.auto.scale.out.threshold.percent", "abc")),
			want: `$F:3: mr3.auto.scale.out.threshold.percent = "abc": want an integer from 0 to 100`,
			as:   new(*ValueError),
		},
		{
			name: "bad value is reported at its value line",
			site: site("<property>\n<name>mr3.am.resource.memory.mb</name>\n<value>-1</value>\n</property>"),
			want: `$F:5: mr3.am.resource.memory.mb = "-1": want an integer from 1 to 2147483647`,
			as:   new(*ValueError),
		},
		{
			name: "negative memory",
			site: site(prop("ebb.local.node.memory.mb", "-4096")),
			want: `$F:3: ebb.local.node.memory.mb = "-4096": want an integer from 1 to 2147483647`,
			as:   new(*ValueError),
		},
		{
			name: "int larger than a Java int",
			site: site(prop("mr3.am.resource.memory.mb", "4294967296")),
			want: `$F:3: mr3.am.resource.memory.mb = "4294967296": want an integer from 1 to 2147483647`,
			as:   new(*ValueError),
		},
		{
			name: "percent out of range",
			site: site(prop("mr3.auto.scale.in.threshold.percent", "101")),
			want: `$F:3: mr3.auto.scale.in.threshold.percent = "101": want an integer from 0 to 100`,
			as:   new(*ValueError),
		},
		{
			name: "negative int64",
			site: site(prop("mr3.container.idle.timeout.ms", "-5")),
			want: `$F:3: mr3.container.idle.timeout.ms = "-5": want an integer from 0 to 3153600000000`,
			as:   new(*ValueError),
		},
		{
			name: "bad enum",
			site: site(prop("mr3.memory.usage.check.scheme", "median")),
			want: `$F:3: mr3.memory.usage.check.scheme = "median": want one of average, maximum`,
			as:   new(*ValueError),
		},
		{
			name: "bad bool",
			site: site(prop("mr3.enable.auto.scaling", "yes")),
			want: `$F:3: mr3.enable.auto.scaling = "yes": want true or false`,
			as:   new(*ValueError),
		},
		{
			name: "${var} cycle names the key and the cycle",
			site: site(prop("x.a", "${x.b}"), prop("x.b", "${x.a}")),
			want: "$F:3: x.a: ${var} cycle: x.a -> x.b -> x.a",
			as:   new(*ExpandError),
		},
		{
			name: "${var} referring to itself",
			site: site(prop("mr3.am.resource.memory.mb", "${mr3.am.resource.memory.mb}")),
			want: "$F:3: mr3.am.resource.memory.mb: ${var} cycle: mr3.am.resource.memory.mb -> mr3.am.resource.memory.mb",
			as:   new(*ExpandError),
		},
		{
			name: "${var} deeper than 20",
			site: site(chain(22)...),
			want: "$F:3: k0: ${var} expansion deeper than 20: k0 -> k1 -> k2 -> k3 -> k4 -> k5 -> k6 -> k7 -> k8 -> k9 -> k10 -> k11 -> k12 -> k13 -> k14 -> k15 -> k16 -> k17 -> k18 -> k19 -> k20 -> k21",
			as:   new(*ExpandError),
		},
		{
			name: "unset ${env.X} stays literal and fails the type",
			site: site(prop("mr3.am.resource.memory.mb", "${env.AM_MB}")),
			want: `$F:3: mr3.am.resource.memory.mb = "${env.AM_MB}": want an integer from 1 to 2147483647`,
			as:   new(*ValueError),
		},
		{
			name: "bad value from the environment",
			env:  map[string]string{"EBB_MR3_AUTO_SCALE_OUT_THRESHOLD_PERCENT": "high"},
			want: `env EBB_MR3_AUTO_SCALE_OUT_THRESHOLD_PERCENT: mr3.auto.scale.out.threshold.percent = "high": want an integer from 0 to 100`,
			as:   new(*ValueError),
		},
		{
			name: "bad value from --set",
			sets: map[string]string{"ebb.packing.scheme": "tight"},
			want: `--set: ebb.packing.scheme = "tight": want one of uniform, packed`,
			as:   new(*ValueError),
		},
		{
			name: "unknown key from --set",
			sets: map[string]string{"ebb.packing.schema": "packed"},
			want: "--set: unknown key ebb.packing.schema (did you mean ebb.packing.scheme?)",
			as:   new(*UnknownKeyError),
		},
		{
			name: "bad policy value",
			site: site(prop("ebb.conf.unknown.keys", "ignore")),
			want: `$F:3: ebb.conf.unknown.keys = "ignore": want one of error, warn`,
			as:   new(*ValueError),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{"HADOOP_CONF_DIR": dir}
			for k, v := range tt.env {
				env[k] = v
			}
			path := filepath.Join(dir, SiteFile)
			if tt.site != "" {
				writeFile(t, dir, SiteFile, tt.site)
			}
			c, _, err := Load(LoadOptions{Getenv: envOf(env), Sets: tt.sets})
			if err == nil {
				t.Fatalf("no error; config %v", c.Effective())
			}
			if want := strings.ReplaceAll(tt.want, "$F", path); err.Error() != want {
				t.Errorf("error\n got %s\nwant %s", err, want)
			}
			if !errors.As(err, tt.as) {
				t.Errorf("error %T is not %T", err, tt.as)
			}
		})
	}
}

// chain returns properties k0 = ${k1}, k1 = ${k2}, ..., k(n-1) = end.
func chain(n int) []string {
	var props []string
	for i := 0; i < n-1; i++ {
		props = append(props, prop("k"+itoa(i), "${k"+itoa(i+1)+"}"))
	}
	return append(props, prop("k"+itoa(n-1), "end"))
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + itoa(i%10)
}

func TestLoadExpansion(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "core-site.xml", site(prop("hadoop.tmp.dir", "/tmp/hadoop-${user.name}"), prop("user.name", "ada")))
	writeFile(t, dir, SiteFile, site(
		prop("ebb.local.dir", "${hadoop.tmp.dir}/ebb"),
		prop("mr3.am.resource.memory.mb", "${env.AM_MB}"),
		prop("mr3.am.resource.cpu.cores", "${env.AM_CORES:-2}"),
		prop("x.unbound", "${no.such.key}/${env.NO_SUCH_VAR}/${not a ref}/${}"),
		prop("ebb.local.max.nodes", "${x.nodes}"),
	))
	env := map[string]string{"HADOOP_CONF_DIR": dir, "AM_MB": " 2048 "}
	// ${x.nodes} is resolved at the end, so a --set below a file still feeds it.
	c, _, err := Load(LoadOptions{Getenv: envOf(env), Sets: map[string]string{"x.nodes": "7"}})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		key, want string
	}{
		{"ebb.local.dir", "/tmp/hadoop-ada/ebb"},
		{"mr3.am.resource.memory.mb", " 2048 "},
		{"mr3.am.resource.cpu.cores", "2"},
		{"x.unbound", "${no.such.key}/${env.NO_SUCH_VAR}/${not a ref}/${}"},
		{"ebb.local.max.nodes", "7"},
	}
	for _, ch := range checks {
		if got, _ := c.Raw(ch.key); got != ch.want {
			t.Errorf("%s = %q, want %q", ch.key, got, ch.want)
		}
	}
	if got := c.Int("mr3.am.resource.memory.mb"); got != 2048 {
		t.Errorf("memory = %d, want 2048 (trimmed)", got)
	}
	if got := c.String("ebb.local.dir"); got != "/tmp/hadoop-ada/ebb" {
		t.Errorf("ebb.local.dir = %q", got)
	}
}

// TestLoadPrecedence sets one key in several layers at once and checks who
// wins: defaults < core/yarn/hdfs-site < mr3-site < EBB_ env < --set.
func TestLoadPrecedence(t *testing.T) {
	const key = "mr3.auto.scale.out.threshold.percent"
	const envName = "EBB_MR3_AUTO_SCALE_OUT_THRESHOLD_PERCENT"
	tests := []struct {
		name       string
		core, yarn string // values in core-site.xml and yarn-site.xml ("" = absent)
		site       string
		env, set   string
		want       int
		origin     string // $H for HADOOP_CONF_DIR
	}{
		{name: "default", want: 80, origin: "default"},
		{name: "core-site", core: "10", want: 10, origin: "$H/core-site.xml:3"},
		{name: "yarn-site over core-site", core: "10", yarn: "11", want: 11, origin: "$H/yarn-site.xml:3"},
		{name: "mr3-site over hadoop files", core: "10", yarn: "11", site: "20", want: 20, origin: "$H/mr3-site.xml:3"},
		{name: "env over files", site: "20", env: "30", want: 30, origin: "env " + envName},
		{name: "--set over env", site: "20", env: "30", set: "40", want: 40, origin: "--set"},
		{name: "--set over default", set: "40", want: 40, origin: "--set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for file, v := range map[string]string{"core-site.xml": tt.core, "yarn-site.xml": tt.yarn, SiteFile: tt.site} {
				if v != "" {
					writeFile(t, dir, file, site(prop(key, v)))
				}
			}
			env := map[string]string{"HADOOP_CONF_DIR": dir}
			if tt.env != "" {
				env[envName] = tt.env
			}
			var sets map[string]string
			if tt.set != "" {
				sets = map[string]string{key: tt.set}
			}
			c, warns, err := Load(LoadOptions{Getenv: envOf(env), Sets: sets})
			if err != nil {
				t.Fatal(err)
			}
			if len(warns) != 0 {
				t.Errorf("warnings: %v", warns)
			}
			if got := c.Int(key); got != tt.want {
				t.Errorf("%s = %d, want %d", key, got, tt.want)
			}
			if got, want := c.Origin(key), strings.ReplaceAll(tt.origin, "$H", dir); got != want {
				t.Errorf("origin = %q, want %q", got, want)
			}
		})
	}
}

// TestLoadFinal: a key final in a file keeps its value against every later
// layer, and each attempt to change it is a warning naming both places.
func TestLoadFinal(t *testing.T) {
	const key = "mr3.am.max.num.concurrent.dags"
	tests := []struct {
		name     string
		site     string
		env, set string
		warn     string // $H for HADOOP_CONF_DIR
	}{
		{name: "later file", site: "64",
			warn: `$H/mr3-site.xml:3: mr3.am.max.num.concurrent.dags is final in $H/core-site.xml:3; value "64" ignored`},
		{name: "env", env: "64",
			warn: `env EBB_MR3_AM_MAX_NUM_CONCURRENT_DAGS: mr3.am.max.num.concurrent.dags is final in $H/core-site.xml:3; value "64" ignored`},
		{name: "--set", set: "64",
			warn: `--set: mr3.am.max.num.concurrent.dags is final in $H/core-site.xml:3; value "64" ignored`},
		{name: "bad value in a later layer is ignored, not an error", set: "many",
			warn: `--set: mr3.am.max.num.concurrent.dags is final in $H/core-site.xml:3; value "many" ignored`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "core-site.xml", site(finalProp(key, "16")))
			if tt.site != "" {
				writeFile(t, dir, SiteFile, site(prop(key, tt.site)))
			}
			env := map[string]string{"HADOOP_CONF_DIR": dir}
			if tt.env != "" {
				env[EnvName(key)] = tt.env
			}
			var sets map[string]string
			if tt.set != "" {
				sets = map[string]string{key: tt.set}
			}
			c, warns, err := Load(LoadOptions{Getenv: envOf(env), Sets: sets})
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Int(key); got != 16 {
				t.Errorf("%s = %d, want the final 16", key, got)
			}
			want := strings.ReplaceAll(tt.warn, "$H", dir)
			if len(warns) != 1 || warns[0].String() != want {
				t.Errorf("warnings %v\nwant [%s]", warns, want)
			}
			var fe *FinalError
			if err := c.Set(key, "8"); !errors.As(err, &fe) {
				t.Errorf("Set of a final key: %v, want *FinalError", err)
			}
		})
	}
}

func TestLoadUnknownKeysWarn(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, SiteFile, site(
		prop("ebb.conf.unknown.keys", "warn"),
		prop("mr3.container.runtime.auto.start.input", "true"), // an MR3 key ebb does not implement
		prop("yarn.resourcemanager.address", "rm:8032"),        // not ours: no warning
	))
	c, warns, err := Load(LoadOptions{ConfPath: path, Getenv: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	want := path + ":4: unknown key mr3.container.runtime.auto.start.input ignored (did you mean "
	if len(warns) != 1 || !strings.HasPrefix(warns[0].String(), want) {
		t.Errorf("warnings %v, want one starting %q", warns, want)
	}
	// Kept, so the effective configuration shipped on still holds MR3's keys.
	if v, ok := c.Raw("mr3.container.runtime.auto.start.input"); !ok || v != "true" {
		t.Errorf("unknown key not kept: %q %v", v, ok)
	}
	// The policy can also come from a later layer.
	writeFile(t, dir, SiteFile, site(prop("mr3.unknown.thing", "1")))
	if _, _, err := Load(LoadOptions{ConfPath: dir, Getenv: envOf(nil)}); err == nil {
		t.Error("unknown key accepted under the default policy")
	}
	if _, warns, err := Load(LoadOptions{ConfPath: dir, Getenv: envOf(map[string]string{"EBB_EBB_CONF_UNKNOWN_KEYS": "warn"})}); err != nil || len(warns) != 1 {
		t.Errorf("policy from env: err %v, warnings %v", err, warns)
	}
}

// TestLoadFinding checks which mr3-site.xml Load reads.
func TestLoadFinding(t *testing.T) {
	const key = "ebb.local.nodes"
	tests := []struct {
		name     string
		conf     string // --conf: "dir", "file", "missing" or ""
		ebbDir   bool   // EBB_CONF_DIR set
		ebbFile  bool   // ... and holds an mr3-site.xml
		hadoop   bool   // HADOOP_CONF_DIR holds an mr3-site.xml
		want     int    // 1 from --conf, 2 from EBB_CONF_DIR, 3 from HADOOP_CONF_DIR, 1 default (ebb.local.nodes=1)
		notFound bool
	}{
		{name: "--conf directory", conf: "dir", ebbDir: true, ebbFile: true, hadoop: true, want: 1},
		{name: "--conf file", conf: "file", ebbDir: true, ebbFile: true, want: 1},
		{name: "--conf missing is an error", conf: "missing", notFound: true},
		{name: "EBB_CONF_DIR", ebbDir: true, ebbFile: true, hadoop: true, want: 2},
		{name: "EBB_CONF_DIR without the file falls back", ebbDir: true, hadoop: true, want: 3},
		{name: "HADOOP_CONF_DIR", hadoop: true, want: 3},
		{name: "nothing: defaults", want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			confDir, ebbDir, hadoopDir := t.TempDir(), t.TempDir(), t.TempDir()
			confFile := writeFile(t, confDir, SiteFile, site(prop(key, "1"), prop("x.from", "conf")))
			env := map[string]string{"HADOOP_CONF_DIR": hadoopDir}
			if tt.ebbDir {
				env["EBB_CONF_DIR"] = ebbDir
			}
			if tt.ebbFile {
				writeFile(t, ebbDir, SiteFile, site(prop(key, "2")))
			}
			if tt.hadoop {
				writeFile(t, hadoopDir, SiteFile, site(prop(key, "3")))
			}
			opts := LoadOptions{Getenv: envOf(env)}
			switch tt.conf {
			case "dir":
				opts.ConfPath = confDir
			case "file":
				opts.ConfPath = confFile
			case "missing":
				opts.ConfPath = filepath.Join(confDir, "nope.xml")
			}
			c, _, err := Load(opts)
			if tt.notFound {
				if !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("err = %v, want not-exist", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Int(key); got != tt.want {
				t.Errorf("%s = %d, want %d (from %s)", key, got, tt.want, c.Origin(key))
			}
		})
	}
}
