package conf

import (
	"strings"
	"testing"
)

// TestKeyTable checks the table itself: every default is a value its key
// accepts, names are unique and in conf's name space, enums are sane.
func TestKeyTable(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k.Name] {
			t.Errorf("%s: listed twice", k.Name)
		}
		seen[k.Name] = true
		if !checked(k.Name) {
			t.Errorf("%s: not an mr3. or ebb. key", k.Name)
		}
		if strings.TrimSpace(k.Doc) == "" || strings.Contains(k.Doc, "\n") {
			t.Errorf("%s: doc must be one non-empty line", k.Name)
		}
		if _, ok := k.parse(k.Default); !ok {
			t.Errorf("%s: default %q is not %s", k.Name, k.Default, k.Allowed())
		}
		if (k.Type == Enum) != (len(k.Enum) > 0) {
			t.Errorf("%s: Enum values belong to Enum keys only", k.Name)
		}
		if k.Bounds != (Bounds{}) && k.Type != Int && k.Type != Int64 && k.Type != Float {
			t.Errorf("%s: bounds on a %s key", k.Name, k.Type)
		}
	}
}

// TestKeysFromConfigMD pins every key of the shared CONFIG.md and the
// defaults chosen for ebb's own keys, so none is dropped or changed by
// accident.
func TestKeysFromConfigMD(t *testing.T) {
	want := map[string]string{
		"mr3.enable.auto.scaling":                                 "false",
		"mr3.check.memory.usage.event.interval.secs":              "10",
		"mr3.memory.usage.check.window.length.secs":               "600",
		"mr3.memory.usage.check.scheme":                           "average",
		"mr3.auto.scale.out.threshold.percent":                    "80",
		"mr3.auto.scale.out.grace.period.secs":                    "300",
		"mr3.auto.scale.in.delay.after.scale.out.secs":            "60",
		"mr3.auto.scale.in.threshold.percent":                     "50",
		"mr3.auto.scale.in.min.hosts":                             "1",
		"mr3.auto.scale.in.grace.period.secs":                     "300",
		"mr3.auto.scale.in.wait.dag.finished":                     "true",
		"mr3.auto.scale.out.num.initial.containers":               "0",
		"mr3.auto.scale.out.num.increment.containers":             "1",
		"mr3.auto.scale.in.num.decrement.hosts":                   "1",
		"mr3.container.scheduler.scheme":                          "none",
		"mr3.container.scheduler.remove.empty.kind":               "false",
		"mr3.container.max.num.workers":                           "0",
		"ebb.worker.auto.size.max.tasks":                          "4",
		"ebb.task.memory.retry.factor":                            "2",
		"ebb.task.memory.retry.max.mb":                            "0",
		"mr3.container.idle.timeout.ms":                           "300000",
		"mr3.heartbeat.container.timeout.ms":                      "600000",
		"mr3.heartbeat.task.timeout.ms":                           "120000",
		"mr3.am.task.max.failed.attempts":                         "3",
		"mr3.am.node-blacklisting.enabled":                        "false",
		"mr3.am.maxtaskfailure.percent":                           "50",
		"mr3.am.resource.memory.mb":                               "4096",
		"mr3.am.resource.cpu.cores":                               "1",
		"mr3.am.max.app.attempts":                                 "2",
		"ebb.am.attempt.failures.validity.interval.ms":            "-1",
		"ebb.am.priority":                                         "-1",
		"ebb.am.node.label.expression":                            "",
		"mr3.am.rm.heartbeat.interval.ms":                         "1000",
		"mr3.am.resourcescheduler.max.requests.per.taskscheduler": "10",
		"mr3.am.max.num.concurrent.dags":                          "128",
		"mr3.am.session.mode":                                     "false",
		"mr3.dag.recovery.enabled":                                "true",
		"ebb.packing.scheme":                                      "packed",
		"ebb.packing.high.threshold.percent":                      "60",
		"ebb.packing.min.nodes":                                   "5",
		"ebb.packing.locality.delay.ms":                           "250",
		"ebb.packing.ask.timeout.ms":                              "10000",
		"ebb.scheduler.scheme":                                    "fifo",
		"ebb.scheduler.reserve.percent":                           "10",
		"ebb.ras.control.cycle.secs":                              "30",
		"ebb.slowstart.completed.producers":                       "0.05", // Hadoop's mapreduce.job.reduce.slowstart.completedmaps
		"ebb.slowstart.preemption.percentage":                     "10",   // Tez's tez.am.preemption.percentage
		"ebb.slowstart.preemption.interval.ms":                    "3000", // Tez: 3 heartbeats between preemptions, 1 s each
		"ebb.auto.scale.predictive.enabled":                       "false",
		"ebb.auto.scale.target.p95.slowdown":                      "2",
		"ebb.speculation.enabled":                                 "false", // as mapreduce.map.speculative, tez.am.speculation.enabled
		"ebb.speculation.cap.percent":                             "10",    // LATE's SpeculativeCap
		"ebb.speculation.min.runtime.ms":                          "10000",
		"ebb.speculation.min.allowed.tasks":                       "10",  // mapreduce.job.speculative.minimum-allowed-tasks, tez.am.minimum.allowed.speculative.tasks
		"ebb.speculation.multiplier":                              "1.5", // spark.speculation.multiplier
		"ebb.billing.period.secs":                                 "0",
		"ebb.billing.start.offset.secs":                           "0",
		"ebb.auto.scale.node.boot.secs":                           "0",
		"ebb.auto.scale.headroom.window.secs":                     "0",
		"ebb.session.idle.timeout.secs":                           "300",
		"ebb.history.dir":                                         "",
		"ebb.history.checkpoint.interval.secs":                    "60",
		"ebb.fault.commit.hold.after":                             "none",
		"ebb.fault.am.hold.at":                                    "none",
		"ebb.am.event.log.enabled":                                "false",
		"ebb.am.event.log.max.mb":                                 "256",
		"ebb.am.dag.retained.count":                               "1000",
		"ebb.am.dag.retained.secs":                                "0",
		"ebb.am.dag.summary.retained.count":                       "10000",
		"ebb.lib.uri":                                             "",
		"ebb.log.roll.size.kb":                                    "65536",
		"ebb.log.roll.count":                                      "4",
		"ebb.log.aggregation.rolled.include.pattern":              `^(am\.log|worker\.log)\.[0-9]{4,}$`,
		"ebb.local.nodes":                                         "1",
		"ebb.local.node.memory.mb":                                "4096",
		"ebb.local.node.vcores":                                   "4",
		"ebb.local.node.resources":                                "",
		"ebb.local.max.nodes":                                     "4",
		"ebb.local.provision.delay.ms":                            "0",
		"ebb.local.node.idle.timeout.ms":                          "5000",
		"ebb.local.dir":                                           "",
		"ebb.conf.unknown.keys":                                   "error",
		"ebb.am.worker.heartbeat.interval.ms":                     "1000",
		"ebb.am.rm.heartbeat.initial.interval.ms":                 "200",
		"ebb.am.uber.enabled":                                     "false",
		"ebb.am.uber.max.tasks":                                   "10",
		"ebb.am.uber.max.input.mb":                                "128",
		"ebb.am.uber.memory.mb":                                   "1024",
		"mr3.master.mode":                                         "yarn",
		"mr3.k8s.client.config.file":                              "",
		"mr3.k8s.namespace":                                       "default",
		"mr3.k8s.pod.master.image":                                "ebb:latest",
		"mr3.k8s.pod.worker.image":                                "ebb:latest",
		"mr3.k8s.pod.image.pull.policy":                           "IfNotPresent",
		"mr3.k8s.pod.master.serviceaccount":                       "",
		"mr3.k8s.pod.worker.serviceaccount":                       "",
		"mr3.k8s.worker.secret":                                   "",
		"mr3.k8s.pod.creation.timeout.ms":                         "300000",
		"mr3.k8s.pod.worker.emptydirs":                            "/ebb/work",
		"ebb.k8s.pod.worker.priority.class.name":                  "",
		"ebb.k8s.pod.worker.preemption.policy":                    "PreemptLowerPriority",
		"ebb.k8s.am.port":                                         "7000",
	}
	c := Defaults()
	for name, def := range want {
		k, ok := Lookup(name)
		if !ok {
			t.Errorf("%s: missing from the table", name)
			continue
		}
		if k.Default != def {
			t.Errorf("%s: default %q, want %q", name, k.Default, def)
		}
		if got, _ := c.Raw(name); got != def {
			t.Errorf("%s: Defaults() has %q, want %q", name, got, def)
		}
		if got := c.Origin(name); got != "default" {
			t.Errorf("%s: origin %q", name, got)
		}
	}
	if len(KnownKeys()) != len(want) {
		t.Errorf("table has %d keys, this test pins %d: pin the new ones", len(KnownKeys()), len(want))
	}
}

func TestAllowed(t *testing.T) {
	tests := []struct {
		key  Key
		want string
	}{
		{Key{Type: Int, Bounds: between(0, 100)}, "an integer from 0 to 100"},
		{Key{Type: Int, Bounds: from(1)}, "an integer from 1 to 2147483647"},
		{Key{Type: Int}, "an integer from -2147483648 to 2147483647"},
		{Key{Type: Int64, Bounds: from(0)}, "an integer >= 0"},
		{Key{Type: Int64}, "an integer"},
		{Key{Type: Float, Bounds: between(0, 0.5)}, "a number from 0 to 0.5"},
		{Key{Type: Float, Bounds: Bounds{Max: 2, HasMax: true}}, "a number <= 2"},
		{Key{Type: Bool}, "true or false"},
		{Key{Type: Enum, Enum: []string{"a", "b"}}, "one of a, b"},
		{Key{Type: String}, "a string"},
	}
	for _, tt := range tests {
		if got := tt.key.Allowed(); got != tt.want {
			t.Errorf("%s %+v: Allowed() = %q, want %q", tt.key.Type, tt.key.Bounds, got, tt.want)
		}
	}
}

func TestParseValue(t *testing.T) {
	tests := []struct {
		key  Key
		in   string
		want any // nil = rejected
	}{
		{Key{Type: Int, Bounds: between(0, 100)}, " 42 ", 42},
		{Key{Type: Int, Bounds: between(0, 100)}, "100", 100},
		{Key{Type: Int, Bounds: between(0, 100)}, "101", nil},
		{Key{Type: Int, Bounds: between(0, 100)}, "-1", nil},
		{Key{Type: Int}, "2147483648", nil},
		{Key{Type: Int}, "1.5", nil},
		{Key{Type: Int}, "0x10", nil},
		{Key{Type: Int64}, "2147483648", int64(2147483648)},
		{Key{Type: Float, Bounds: between(0, 1)}, "0.25", 0.25},
		{Key{Type: Float}, "NaN", nil},
		{Key{Type: Float}, "Inf", nil},
		{Key{Type: Bool}, "TRUE", true},
		{Key{Type: Bool}, "False", false},
		{Key{Type: Bool}, "1", nil},
		{Key{Type: Enum, Enum: []string{"fifo", "fair"}}, "FAIR", "fair"},
		{Key{Type: Enum, Enum: []string{"fifo", "fair"}}, "ras", nil},
		{Key{Type: String}, " /tmp/x ", "/tmp/x"},
	}
	for _, tt := range tests {
		got, ok := tt.key.parse(tt.in)
		if tt.want == nil {
			if ok {
				t.Errorf("%s %q: accepted as %v", tt.key.Type, tt.in, got)
			}
			continue
		}
		if !ok || got != tt.want {
			t.Errorf("%s %q = %v (%T), %v; want %v (%T)", tt.key.Type, tt.in, got, got, ok, tt.want, tt.want)
		}
	}
}

func TestEnvName(t *testing.T) {
	tests := map[string]string{
		"mr3.auto.scale.out.threshold.percent": "EBB_MR3_AUTO_SCALE_OUT_THRESHOLD_PERCENT",
		"mr3.am.node-blacklisting.enabled":     "EBB_MR3_AM_NODE_BLACKLISTING_ENABLED",
		"ebb.local.nodes":                      "EBB_EBB_LOCAL_NODES",
	}
	for key, want := range tests {
		if got := EnvName(key); got != want {
			t.Errorf("EnvName(%s) = %s, want %s", key, got, want)
		}
	}
}

func TestNearest(t *testing.T) {
	tests := map[string]string{
		"mr3.auto.scale.out.threshold.precent": "mr3.auto.scale.out.threshold.percent",
		"mr3.enable.autoscaling":               "mr3.enable.auto.scaling",
		"ebb.local.node.memory":                "ebb.local.node.memory.mb",
		"mr3.am.node.blacklisting.enabled":     "mr3.am.node-blacklisting.enabled",
	}
	for in, want := range tests {
		if got := nearest(in); got != want {
			t.Errorf("nearest(%s) = %s, want %s", in, got, want)
		}
	}
	// kitten -> sitting: substitute k, substitute e, insert g = 3.
	if d := editDistance("kitten", "sitting"); d != 3 {
		t.Errorf("editDistance = %d, want 3", d)
	}
}

func TestMarkdown(t *testing.T) {
	md := Markdown()
	lines := strings.Split(strings.TrimSuffix(md, "\n"), "\n")
	if len(lines) != len(keys)+2 {
		t.Fatalf("%d lines, want a header, a rule and %d rows", len(lines), len(keys))
	}
	for i, k := range keys {
		row := lines[i+2]
		if !strings.HasPrefix(row, "| `"+k.Name+"` |") || !strings.Contains(row, k.Doc) || strings.Count(row, " | ") != 3 {
			t.Errorf("row for %s: %q", k.Name, row)
		}
	}
	if !strings.Contains(md, "| `ebb.local.dir` | (empty) | a string |") {
		t.Error("empty default not shown as (empty)")
	}
}
