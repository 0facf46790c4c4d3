package task

import (
	"errors"
	"strings"
	"testing"
)

func fullEnv() map[string]string {
	return map[string]string{
		EnvDAGID: "dag_1", EnvDAGName: "wc", EnvVertex: "map", EnvTaskIndex: "3", EnvAttempt: "1",
		EnvAttemptID: "dag_1_map_3_1", EnvParallelism: "8", EnvMemoryMB: "512", EnvWorkDir: "/w",
		EnvInputDir: "/w/input", EnvOutputDir: "/w/output", EnvOutputs: "reduce:4,stats:1", EnvProgressFile: "/w/progress",
	}
}

func lookupIn(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

func TestFromEnvReadsTheContract(t *testing.T) {
	c, err := fromLookup(lookupIn(fullEnv()))
	if err != nil {
		t.Fatal(err)
	}
	if c.TaskIndex != 3 || c.Attempt != 1 || c.Parallelism != 8 || c.MemoryMB != 512 || c.Vertex != "map" ||
		c.InputDir != "/w/input" || c.OutputDir != "/w/output" || c.ProgressFile != "/w/progress" {
		t.Errorf("context = %+v", c)
	}
	if len(c.Outputs) != 2 || c.Outputs[0] != (Output{"reduce", 4}) || c.Outputs[1] != (Output{"stats", 1}) {
		t.Errorf("outputs = %v", c.Outputs)
	}
}

func TestFromEnvNamesWhatIsWrong(t *testing.T) {
	cases := []struct {
		change   func(map[string]string)
		wantText string
	}{
		{func(e map[string]string) { delete(e, EnvInputDir) }, "EBB_INPUT_DIR is not set"},
		{func(e map[string]string) { delete(e, EnvTaskIndex) }, "EBB_TASK_INDEX is not set"},
		{func(e map[string]string) { delete(e, EnvOutputs) }, "EBB_OUTPUTS is not set"},
		{func(e map[string]string) { e[EnvAttempt] = "one" }, `EBB_ATTEMPT="one" is not an integer`},
		{func(e map[string]string) { e[EnvOutputs] = "reduce" }, "EBB_OUTPUTS"},
		{func(e map[string]string) { e[EnvOutputs] = "reduce:0" }, "positive"},
	}
	for _, c := range cases {
		env := fullEnv()
		c.change(env)
		_, err := fromLookup(lookupIn(env))
		if err == nil || !strings.Contains(err.Error(), c.wantText) {
			t.Errorf("error %v, want it to contain %q", err, c.wantText)
		}
	}
	env := fullEnv()
	delete(env, EnvVertex)
	var me *MissingEnvError
	if _, err := fromLookup(lookupIn(env)); !errors.As(err, &me) || me.Name != EnvVertex {
		t.Errorf("error %v, want MissingEnvError for %s", err, EnvVertex)
	}
	// A sink: EBB_OUTPUTS set but empty.
	env = fullEnv()
	env[EnvOutputs] = ""
	if c, err := fromLookup(lookupIn(env)); err != nil || !c.IsSink() {
		t.Errorf("empty EBB_OUTPUTS: %v, sink=%v", err, c != nil && c.IsSink())
	}
}

func TestOutputsRoundTrip(t *testing.T) {
	outs := []Output{{"a", 1}, {"b-c", 12}}
	got, err := ParseOutputs(FormatOutputs(outs))
	if err != nil || len(got) != 2 || got[0] != outs[0] || got[1] != outs[1] {
		t.Errorf("round trip = %v, %v", got, err)
	}
}

func TestReadLinesHandlesLineEndsAndLongLines(t *testing.T) {
	long := strings.Repeat("z", 200<<10)
	c := newTestContext(t, map[string]string{
		"a/0":       "one\r\ntwo\n\nthree",
		"b/1":       long + "\n",
		"_splits/0": "",
	})
	var got []string
	err := c.ReadLines(func(_ string, line []byte) error { got = append(got, string(line)); return nil })
	if err != nil {
		t.Fatal(err)
	}
	// Files are read in path order: _splits/0 (empty, no lines), a/0, b/1.
	want := []string{"one", "two", "", "three", long}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %.20q, want %.20q", i, got[i], want[i])
		}
	}
	if p := readFile(t, c.ProgressFile); p != "1.0000" {
		t.Errorf("progress after reading everything = %q", p)
	}
}
