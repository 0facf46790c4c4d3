package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runSimArgs runs `ebb sim` in-process and returns stdout.
func runSimArgs(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newSimCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

const smallTrace = "../../sim/trace/testdata/jobs.csv"

// --sweep runs each policy at each value of the key (once where the key
// does not apply), prints one point per run and draws the plot.
func TestSimSweep(t *testing.T) {
	dir := t.TempDir()
	out, err := runSimArgs(t, "--trace", smallTrace, "--policies", "static-2,oracle,spark-da,ebb",
		"--sweep", "mr3.auto.scale.out.threshold.percent=60,90", "--json", "--plots", dir)
	if err != nil {
		t.Fatal(err)
	}
	var sw struct {
		Key    string
		Points []struct {
			Policy       string  `json:"policy"`
			Value        string  `json:"value"`
			CostToOracle float64 `json:"cost_to_oracle"`
		}
	}
	if err := json.Unmarshal([]byte(out), &sw); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var got []string
	for _, p := range sw.Points {
		got = append(got, p.Policy+"@"+p.Value)
	}
	// The autoscaler's threshold means nothing to the oracle or spark-da.
	if want := "static-2@ oracle@ spark-da@ ebb@60 ebb@90"; strings.Join(got, " ") != want {
		t.Errorf("points %v, want %s", got, want)
	}
	if sw.Points[1].CostToOracle != 1 {
		t.Errorf("the oracle's cost over its own: %g, want 1", sw.Points[1].CostToOracle)
	}
	for _, f := range []string{"sweep.png", "sweep.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// Settings that would silently do nothing are errors naming where they
// came from.
func TestSimSettingErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "policy.conf")
	if err := os.WriteFile(file, []byte("# ebb, hourly\nebb:mr3.auto.scale.in.threshold.percent=40\nnonsense\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "mr3.auto.scale.bogus=1"}, `unknown policy key "mr3.auto.scale.bogus"`},
		{[]string{"--set", "spark-da:mr3.auto.scale.in.threshold.percent=30"}, "applies to none of policy spark-da"},
		{[]string{"--set", "ebb:mr3.auto.scale.in.min.hosts=x"}, `mr3.auto.scale.in.min.hosts = "x"`},
		{[]string{"--policy-file", file}, "policy.conf:3: \"nonsense\": want [POLICY:]KEY=VALUE"},
		{[]string{"--sweep", "ebb.packing.scheme"}, "want KEY=v1,v2"},
		{[]string{"--parallel", "-1"}, "--parallel -1: want 0 (one per core) or more"},
	} {
		args := append([]string{"--trace", smallTrace, "--policies", "spark-da,ebb", "--plots", ""}, c.args...)
		if _, err := runSimArgs(t, args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want %q", c.args, err, c.want)
		}
	}
}
