package worker

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"
)

// The stderr protocol as Hadoop Streaming's MRErrorThread reads it: the
// reporter's lines are taken out, every other line reaches the log
// unchanged, and the counters are the sums of the well-formed increments.
func TestReporterReadsStreamingsStderrProtocol(t *testing.T) {
	log, hook := test.NewNullLogger()
	r := newReporter("", log)
	var out bytes.Buffer
	w := &reporterWriter{r: r, out: &out}
	in := "plain line\n" +
		"reporter:counter:G,lines,1\n" +
		"reporter:counter:G,lines,+2\r\n" + // CRLF: the CR is no part of the amount
		"reporter:counter: G2 ,n,-4 \n" + // the rest is trimmed, the fields are not
		"reporter:status: half done \n" +
		"reporter:counter:G,bad\n" + // two fields: warned about
		"reporter:counter:G,spaced, 5\n" + // Long.parseLong(" 5") fails: warned about
		"reporter:counter:G,trailing,3,,\n" + // Java's split drops trailing empty fields
		"reporter:whatever\n" + // neither counter nor status: warned about
		"Reporter:counter:G,case,1\n" + // the prefix is case-sensitive
		"tail without end"
	// Written in pieces that cut lines anywhere.
	for i := 0; i < len(in); i += 7 {
		if _, err := w.Write([]byte(in[i:min(i+7, len(in))])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "plain line\nReporter:counter:G,case,1\ntail without end"; out.String() != want {
		t.Errorf("the log got %q, want %q", out.String(), want)
	}
	got := ""
	for _, c := range r.counters() {
		got += fmt.Sprintf("%s/%s=%d;", c.Group, c.Name, c.Value)
	}
	if want := "G/lines=3;G/trailing=3;G2 /n=-4;"; got != want {
		t.Errorf("counters %s, want %s", got, want)
	}
	if s := r.currentStatus(); s != "half done" {
		t.Errorf("status %q, want %q", s, "half done")
	}
	if n := len(hook.AllEntries()); n != 3 {
		t.Errorf("%d warnings, want 3 (two malformed counters, one unknown reporter line)", n)
	}
	for _, e := range hook.AllEntries() {
		if e.Level != logrus.WarnLevel {
			t.Errorf("%s: %s, want a warning", e.Level, e.Message)
		}
	}
}

// Another prefix (stream.stderr.reporter.prefix) replaces reporter:, which
// is then an ordinary line.
func TestReporterPrefix(t *testing.T) {
	log, _ := test.NewNullLogger()
	r := newReporter("ME:", log)
	var out bytes.Buffer
	w := &reporterWriter{r: r, out: &out}
	_, _ = w.Write([]byte("ME:counter:a,b,7\nreporter:counter:a,b,1\nME:status:ok\n"))
	if out.String() != "reporter:counter:a,b,1\n" {
		t.Errorf("the log got %q", out.String())
	}
	if cs := r.counters(); len(cs) != 1 || cs[0].Value != 7 || r.currentStatus() != "ok" {
		t.Errorf("counters %v status %q", cs, r.currentStatus())
	}
}
