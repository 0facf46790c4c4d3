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
