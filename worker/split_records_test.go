package worker

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// TestRecordSplitsCopyExactly: a split of fixed-length records is copied
// byte for byte even where records hold newlines (as TeraGen's random keys
// do), so the splits of a file joined are the file; a file shorter than
// its split is an error, not a silent short read.
func TestRecordSplitsCopyExactly(t *testing.T) {
	// Four 5-byte records, newlines inside: the line rule would move
	// bytes between splits.
	file := []byte("ab\ncd\nefgh\n\nijk\nlmno")
	var all bytes.Buffer
	for off := int64(0); off < int64(len(file)); off += 10 {
		sp := &ebbpb.InputSplit{Path: "f", Offset: off, Length: 10, RecordLength: 5}
		n, err := copyInputSplit(&all, bytes.NewReader(file), sp)
		if err != nil || n != 10 {
			t.Fatalf("split at %d: %d bytes, %v", off, n, err)
		}
	}
	if !bytes.Equal(all.Bytes(), file) {
		t.Errorf("splits joined = %q, want %q", all.Bytes(), file)
	}
	sp := &ebbpb.InputSplit{Path: "f", Offset: 15, Length: 10, RecordLength: 5}
	if _, err := copyInputSplit(io.Discard, bytes.NewReader(file), sp); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("split past the end: %v, want unexpected EOF", err)
	}
}
