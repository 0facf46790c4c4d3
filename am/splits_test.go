package am

import (
	"reflect"
	"testing"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/fsys"
)

// TestCutRecords: with a record length every cut lands on a record
// boundary of its file, and the ranges still tile each file exactly.
func TestCutRecords(t *testing.T) {
	files := []fsys.FileInfo{{Path: "a", Size: 1000}, {Path: "b", Size: 550}}
	got := cut(files, 3, 100)
	// total 1550: task cuts at 516 and 1033 (global). 516 is a's byte 516,
	// back to 500; 1033 is b's byte 33, back to 0; b's short last record
	// (500..550) stays with the last task.
	want := [][]core.Split{
		{{Path: "a", Offset: 0, Length: 500, RecordLength: 100}},
		{{Path: "a", Offset: 500, Length: 500, RecordLength: 100}},
		{{Path: "b", Offset: 0, Length: 550, RecordLength: 100}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cut records\n got %+v\nwant %+v", got, want)
	}
	// Lines: the same cuts stay where they fall (workers widen them).
	lines := cut(files, 3, 0)
	if lines[0][0].Length != 516 || lines[1][1].Length != 33 {
		t.Errorf("cut lines: %+v", lines)
	}
}
