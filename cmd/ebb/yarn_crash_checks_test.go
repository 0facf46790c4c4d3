package main

import (
	"os"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/commit"
)

// What the minicluster tests share: their input, and the checks the crash
// tests make once attempt 1 of the AM was killed.

// wantSucceeded checks that the followed `ebb submit` exited 0 and the
// application ended FINISHED SUCCEEDED; with secondAM, that a second AM
// attempt ran (else the kill missed the moment it meant to hit).
func (y *yarnTest) wantSucceeded(t *testing.T, id yarn.AppID, res submitted, secondAM bool) {
	t.Helper()
	t.Logf("the following ebb submit said (%v):\n%s", res.err, res.out)
	if res.err != nil {
		t.Errorf("ebb submit: %v, want exit 0", res.err)
	}
	r := y.report(id)
	if r.State != yarn.StateFinished || r.Final != yarn.Succeeded {
		t.Fatalf("application %s %s (%s), want FINISHED SUCCEEDED", r.State, r.Final, r.Diagnostics)
	}
	if secondAM && !y.secondAMRan(id) {
		t.Errorf("no second AM attempt ran: the test did not kill the AM where it meant to")
	}
}

// takeCommitMarkers checks that an output tree holds an empty _SUCCESS
// and exactly one commit marker (this DAG's), and removes them from got,
// leaving the results.
func takeCommitMarkers(t *testing.T, got map[string]string) {
	t.Helper()
	if s, ok := got[commit.SuccessMarker]; !ok || s != "" {
		t.Errorf("_SUCCESS: present %v, holding %q; want it there and empty", ok, s)
	}
	delete(got, commit.SuccessMarker)
	markers := 0
	for name := range got {
		if strings.HasPrefix(name, "_ebb-commit-") {
			markers++
			delete(got, name)
		}
	}
	if markers != 1 {
		t.Errorf("%d commit markers in the output, want this DAG's one", markers)
	}
}

// wordCountInput is the examples' word-count input.
func wordCountInput(t *testing.T) []byte {
	t.Helper()
	text, err := os.ReadFile("../../examples/wordcount-input.txt")
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// putInput writes data into HDFS as y.dir/input/name, the directory
// private to the test's user.
func (y *yarnTest) putInput(name string, data []byte) {
	y.t.Helper()
	if err := y.fs.MkdirPrivate(y.dir + "/input"); err != nil {
		y.t.Fatal(err)
	}
	if _, err := y.fs.WriteFile(y.dir+"/input/"+name, data, 0o644); err != nil {
		y.t.Fatal(err)
	}
}
