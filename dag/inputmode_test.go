package dag

import (
	"strings"
	"testing"
)

func TestInputModes(t *testing.T) {
	for _, mode := range []string{"stream", "file"} {
		s, err := Parse("wc.yaml", []byte(strings.Replace(good, "inputs: [input.txt]", "inputs: [input.txt]\n    inputMode: "+mode, 1)))
		if err != nil || s.Vertices[0].InputMode != mode {
			t.Errorf("inputMode %s: %v, parsed %+v", mode, err, s)
		}
	}
	_, err := Parse("bad.yaml", []byte(strings.Replace(good, "inputs: [input.txt]", "inputs: [input.txt]\n    inputMode: copy", 1)))
	want := `bad.yaml:12: vertices[0].inputMode: "copy": want stream (the default: a named pipe fed while the task reads) or file (a copy made before it starts)`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

// TestRecordLength: a vertex with inputs may say its files hold
// fixed-length records; a negative length, or one on a vertex without
// inputs, is refused naming the field.
func TestRecordLength(t *testing.T) {
	s, err := Parse("tera.yaml", []byte(strings.Replace(good, "inputs: [input.txt]", "inputs: [input.txt]\n    recordLength: 100", 1)))
	if err != nil || s.Vertices[0].RecordLength != 100 {
		t.Fatalf("recordLength 100: %v, parsed %+v", err, s)
	}
	for bad, want := range map[string]string{
		"inputs: [input.txt]\n    recordLength: -1": `bad.yaml:12: vertices[0].recordLength: -1: want 0 (lines) or a record size in bytes`,
		"recordLength: 100":                         `bad.yaml:11: vertices[0].recordLength: 100 with no inputs: it says how to split inputs`,
	} {
		_, err := Parse("bad.yaml", []byte(strings.Replace(good, "inputs: [input.txt]", bad, 1)))
		if err == nil || err.Error() != want {
			t.Errorf("%q: error\n got %v\nwant %s", bad, err, want)
		}
	}
}
