package conf

import (
	"strings"
	"testing"
)

func TestMinAllocationMB(t *testing.T) {
	cases := []struct {
		name string
		set  map[string]string
		want int64
		err  string
	}{
		{name: "Hadoop's default", want: 1024},
		{name: "set", set: map[string]string{MinAllocationKey: "64"}, want: 64},
		{name: "zero", set: map[string]string{MinAllocationKey: "0"}, err: `--set: yarn.scheduler.minimum-allocation-mb = "0": want a positive number of MB`},
		{name: "words", set: map[string]string{MinAllocationKey: "1g"}, err: `yarn.scheduler.minimum-allocation-mb = "1g": want a positive number of MB`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _, err := Load(LoadOptions{Getenv: envOf(nil), Sets: tc.set})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.MinAllocationMB()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("MinAllocationMB = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

// The sizing and retry keys refuse values outside their bounds, naming the
// file, line, key, value and what is allowed.
func TestSizingKeysBounds(t *testing.T) {
	cases := []struct{ key, value, want string }{
		{"ebb.task.memory.retry.factor", "0.5", `mr3-site.xml:3: ebb.task.memory.retry.factor = "0.5": want a number from 1 to 100`},
		{"ebb.task.memory.retry.max.mb", "-1", `mr3-site.xml:3: ebb.task.memory.retry.max.mb = "-1": want an integer >= 0`},
		{"ebb.worker.auto.size.max.tasks", "0", `mr3-site.xml:3: ebb.worker.auto.size.max.tasks = "0": want an integer from 1 to 1024`},
	}
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "mr3-site.xml", site(prop(tc.key, tc.value)))
			_, _, err := Load(LoadOptions{Getenv: envOf(nil), ConfPath: path})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
