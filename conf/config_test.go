package conf

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestAccessors(t *testing.T) {
	c := Defaults()
	if got := c.Int("mr3.auto.scale.out.threshold.percent"); got != 80 {
		t.Errorf("Int = %d", got)
	}
	if got := c.Int64("mr3.container.idle.timeout.ms"); got != 300000 {
		t.Errorf("Int64 = %d", got)
	}
	if got := c.Int64("mr3.am.resource.memory.mb"); got != 4096 {
		t.Errorf("Int64 of an Int key = %d", got)
	}
	if got := c.Float("ebb.packing.high.threshold.percent"); got != 60 {
		t.Errorf("Float of an Int key = %g", got)
	}
	if got := c.Bool("mr3.dag.recovery.enabled"); !got {
		t.Error("Bool = false")
	}
	if got := c.String("ebb.scheduler.scheme"); got != "fifo" {
		t.Errorf("String = %q", got)
	}
	if got := c.String("mr3.am.max.app.attempts"); got != "2" {
		t.Errorf("String of an Int key = %q", got)
	}
	if _, ok := c.Raw("yarn.resourcemanager.address"); ok {
		t.Error("Raw of an unset Hadoop key reports a value")
	}
	if got := c.Origin("yarn.resourcemanager.address"); got != "unset" {
		t.Errorf("Origin of an unset key = %q", got)
	}
	if !reflect.DeepEqual(c.Keys(), sortedNames()) {
		t.Error("Keys() of Defaults() is not the table, sorted")
	}
}

func sortedNames() []string {
	c := &Config{entries: map[string]*entry{}}
	for _, k := range keys {
		c.entries[k.Name] = &entry{}
	}
	return c.Keys()
}

// TestAccessorPanics: asking for a key that is not in the table, or with
// the accessor of another type, is a programming error.
func TestAccessorPanics(t *testing.T) {
	c := Defaults()
	tests := []struct {
		name string
		call func()
	}{
		{"unknown key", func() { c.Int("mr3.no.such.key") }},
		{"Hadoop key through a typed accessor", func() { c.String("yarn.resourcemanager.address") }},
		{"Int of a bool", func() { c.Int("mr3.enable.auto.scaling") }},
		{"Int of an int64", func() { c.Int("mr3.container.idle.timeout.ms") }},
		{"Bool of an int", func() { c.Bool("ebb.local.nodes") }},
		{"Float of an enum", func() { c.Float("ebb.scheduler.scheme") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tt.call()
		})
	}
}

func TestSet(t *testing.T) {
	tests := []struct {
		name, key, value string
		wantErr          any // nil, or a pointer to the error type
		errText          string
	}{
		{name: "valid", key: "mr3.auto.scale.out.threshold.percent", value: "90"},
		{name: "Hadoop key kept raw", key: "fs.defaultFS", value: "hdfs://nn:8020"},
		{name: "bad value", key: "mr3.auto.scale.out.threshold.percent", value: "200", wantErr: new(*ValueError),
			errText: `set: mr3.auto.scale.out.threshold.percent = "200": want an integer from 0 to 100`},
		{name: "unknown key", key: "mr3.auto.scale.out.treshold.percent", value: "90", wantErr: new(*UnknownKeyError),
			errText: "set: unknown key mr3.auto.scale.out.treshold.percent (did you mean mr3.auto.scale.out.threshold.percent?)"},
		{name: "expanded against the rest", key: "ebb.local.dir", value: "${x.base}/ebb"},
		{name: "cycle", key: "x.base", value: "${ebb.local.dir}", wantErr: new(*ExpandError)},
	}
	c := Defaults()
	if err := c.Set("x.base", "/data"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := c.Effective()
			err := c.Set(tt.key, tt.value)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if got := c.Origin(tt.key); got != "set" {
					t.Errorf("origin %q", got)
				}
				return
			}
			if !errors.As(err, tt.wantErr) {
				t.Fatalf("err = %v, want %T", err, tt.wantErr)
			}
			if tt.errText != "" && err.Error() != tt.errText {
				t.Errorf("error\n got %s\nwant %s", err, tt.errText)
			}
			if after := c.Effective(); !reflect.DeepEqual(before, after) {
				t.Error("a failed Set changed the configuration")
			}
		})
	}
	if got := c.Int("mr3.auto.scale.out.threshold.percent"); got != 90 {
		t.Errorf("threshold = %d, want 90", got)
	}
	if got := c.String("ebb.local.dir"); got != "/data/ebb" {
		t.Errorf("ebb.local.dir = %q", got)
	}
	// Expansion is live, as in Hadoop: changing the base moves the dir.
	if err := c.Set("x.base", "/srv"); err != nil {
		t.Fatal(err)
	}
	if got := c.String("ebb.local.dir"); got != "/srv/ebb" {
		t.Errorf("after changing x.base, ebb.local.dir = %q", got)
	}
}

func TestErrorFor(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, SiteFile, site(prop("mr3.auto.scale.in.threshold.percent", "90")))
	c, _, err := Load(LoadOptions{ConfPath: path, Getenv: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key, allowed, want string
	}{
		{"mr3.auto.scale.in.threshold.percent", "a value below mr3.auto.scale.out.threshold.percent (80)",
			path + `:3: mr3.auto.scale.in.threshold.percent = "90": want a value below mr3.auto.scale.out.threshold.percent (80)`},
		{"mr3.auto.scale.out.threshold.percent", "more than 90",
			`default: mr3.auto.scale.out.threshold.percent = "80": want more than 90`},
	}
	for _, tt := range tests {
		err := c.ErrorFor(tt.key, tt.allowed)
		var ve *ValueError
		if !errors.As(err, &ve) || err.Error() != tt.want {
			t.Errorf("ErrorFor(%s)\n got %v\nwant %s", tt.key, err, tt.want)
		}
	}
}

func TestHadoopAddresses(t *testing.T) {
	tests := []struct {
		name                string
		set                 map[string]string
		rm, scheduler, fsys string
	}{
		{name: "Hadoop defaults", rm: "0.0.0.0:8032", scheduler: "0.0.0.0:8030", fsys: "file:///"},
		{name: "hostname", set: map[string]string{"yarn.resourcemanager.hostname": "rm1"},
			rm: "rm1:8032", scheduler: "rm1:8030", fsys: "file:///"},
		{name: "addresses win over hostname", set: map[string]string{
			"yarn.resourcemanager.hostname":          "rm1",
			"yarn.resourcemanager.address":           "rm2:9032",
			"yarn.resourcemanager.scheduler.address": "rm3:9030",
			"fs.defaultFS":                           "hdfs://nn:8020",
		}, rm: "rm2:9032", scheduler: "rm3:9030", fsys: "hdfs://nn:8020"},
		{name: "deprecated fs.default.name", set: map[string]string{"fs.default.name": "hdfs://old:9000"},
			rm: "0.0.0.0:8032", scheduler: "0.0.0.0:8030", fsys: "hdfs://old:9000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, err := Load(LoadOptions{Getenv: envOf(nil), Sets: tt.set})
			if err != nil {
				t.Fatal(err)
			}
			if got := c.RMAddress(); got != tt.rm {
				t.Errorf("RMAddress = %s, want %s", got, tt.rm)
			}
			if got := c.RMSchedulerAddress(); got != tt.scheduler {
				t.Errorf("RMSchedulerAddress = %s, want %s", got, tt.scheduler)
			}
			if got := c.DefaultFS(); got != tt.fsys {
				t.Errorf("DefaultFS = %s, want %s", got, tt.fsys)
			}
		})
	}
}

func TestParseSets(t *testing.T) {
	got, err := ParseSets([]string{"a=1", "fs.defaultFS=hdfs://nn:8020", "b=x=y", "a=2", "c="})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "2", "fs.defaultFS": "hdfs://nn:8020", "b": "x=y", "c": ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []string{"novalue", "=1", " =1"} {
		var ve *ValueError
		if _, err := ParseSets([]string{bad}); !errors.As(err, &ve) {
			t.Errorf("ParseSets(%q) err = %v, want *ValueError", bad, err)
		}
	}
}

func TestWriteXMLRoundTrip(t *testing.T) {
	values := map[string]string{
		"mr3.am.resource.memory.mb": "2048",
		"fs.defaultFS":              "hdfs://nn:8020",
		"x.blank":                   "  ",
		"x.empty":                   "",
		"x.markup":                  `<a href="x">&amp;</a>'`,
		"x.lines":                   " one\r\ntwo\t",
		"x.unicode":                 "naïve ✓",
	}
	var b bytes.Buffer
	if err := WriteXML(&b, values); err != nil {
		t.Fatal(err)
	}
	props, warns, err := ParseXML("out.xml", b.Bytes())
	if err != nil || len(warns) != 0 {
		t.Fatalf("reading back: %v %v\n%s", err, warns, b.String())
	}
	got := map[string]string{}
	for _, p := range props {
		got[p.Name] = p.Value
	}
	if !reflect.DeepEqual(got, values) {
		t.Errorf("round trip\n got %q\nwant %q", got, values)
	}
	var again bytes.Buffer
	if err := WriteXML(&again, got); err != nil || !bytes.Equal(again.Bytes(), b.Bytes()) {
		t.Error("writing the same values twice gave different bytes")
	}
	for _, bad := range []map[string]string{{"": "x"}, {"k": "bell\a"}, {"k": "\xff"}} {
		var ve *ValueError
		if err := WriteXML(&bytes.Buffer{}, bad); !errors.As(err, &ve) {
			t.Errorf("WriteXML(%q) err = %v, want *ValueError", bad, err)
		}
	}
}

// TestEffectiveLoadsBack: the effective configuration the AM ships, written
// and loaded again, gives the same configuration.
func TestEffectiveLoadsBack(t *testing.T) {
	c, _, err := Load(LoadOptions{Getenv: envOf(map[string]string{"EBB_EBB_LOCAL_NODES": "3"}),
		Sets: map[string]string{"yarn.resourcemanager.address": "rm:8032", "ebb.local.dir": "${x.base}/e", "x.base": "/b"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var b bytes.Buffer
	if err := WriteXML(&b, c.Effective()); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, dir, SiteFile, b.String())
	c2, _, err := Load(LoadOptions{ConfPath: path, Getenv: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Effective(), c2.Effective()) {
		t.Errorf("effective config changed on the way through a file")
	}
	if c2.Int("ebb.local.nodes") != 3 || !strings.HasPrefix(c2.Origin("ebb.local.nodes"), path+":") {
		t.Errorf("ebb.local.nodes = %d from %s", c2.Int("ebb.local.nodes"), c2.Origin("ebb.local.nodes"))
	}
}

// TestSetWhileReading: ebb autoscale retunes keys while the AM reads them;
// run with -race to see the lock doing its job.
func TestSetWhileReading(t *testing.T) {
	c := Defaults()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			if err := c.Set("mr3.auto.scale.out.threshold.percent", []string{"70", "90"}[i%2]); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < 200; i++ {
		if v := c.Int("mr3.auto.scale.out.threshold.percent"); v != 80 && v != 70 && v != 90 {
			t.Fatalf("read %d", v)
		}
		_ = c.Effective()
	}
	<-done
}
