package streaming

import (
	"os"
	"strings"
	"testing"
)

// TestDocListsTheKeys: docs/streaming.md's table of -D keys is KeyTable,
// so the documentation names exactly the keys the code reads.
func TestDocListsTheKeys(t *testing.T) {
	doc, err := os.ReadFile("../docs/streaming.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), KeyTable()) {
		t.Errorf("docs/streaming.md does not hold the key table; put this in it:\n%s", KeyTable())
	}
}
