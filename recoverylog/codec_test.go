package recoverylog

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func sample() []Record {
	return []Record{
		{DAGAccepted: &DAGAccepted{DAG: "dag_0001", SpecName: "wc.yaml", Spec: []byte("name: wc\n"), Output: "hdfs://nn/out",
			Splits:       map[string][][]Split{"map": {{{Path: "hdfs://nn/in", Offset: 0, Length: 10}}}},
			Conf:         map[string]string{"mr3.dag.recovery.enabled": "true"},
			SubmitUnixMs: 1700000000000}},
		{TaskSucceeded: &TaskSucceeded{DAG: "dag_0001", Vertex: "map", Task: 0, Attempt: "dag_0001_map_000000_0",
			Worker: "container_1_0001_01_000002", Address: "node1:4000"}},
		{TaskSucceeded: &TaskSucceeded{DAG: "dag_0001", Vertex: "reduce", Task: 3, Attempt: "dag_0001_reduce_000003_1"}},
		{DAGEnded: &DAGEnded{DAG: "dag_0001", State: "SUCCEEDED", FinishUnixMs: 1700000001000}},
	}
}

func encode(t *testing.T, rs []Record) []byte {
	t.Helper()
	var buf []byte
	for _, r := range rs {
		var err error
		if buf, err = Append(buf, r); err != nil {
			t.Fatal(err)
		}
	}
	return buf
}

func TestRoundTrip(t *testing.T) {
	got, torn, err := Decode(encode(t, sample()))
	if err != nil || torn != nil {
		t.Fatalf("Decode: %v, torn %v", err, torn)
	}
	if !reflect.DeepEqual(got, sample()) {
		t.Fatalf("got %+v\nwant %+v", got, sample())
	}
}

// TestLastRecordCutAnywhere: the writer died inside its last record. At
// every cut (including the classic one, in half) the records before it
// come back whole, and the log says what it skipped; it is never an error.
func TestLastRecordCutAnywhere(t *testing.T) {
	whole := encode(t, sample())
	before := encode(t, sample()[:3])
	last := len(whole) - len(before)
	for cut := 1; cut < last; cut++ {
		data := whole[:len(before)+cut]
		got, torn, err := Decode(data)
		if err != nil {
			t.Fatalf("cut at %d of %d: %v", cut, last, err)
		}
		if !reflect.DeepEqual(got, sample()[:3]) {
			t.Fatalf("cut at %d of %d: got %d records, want the 3 before the cut", cut, last, len(got))
		}
		if torn == nil || torn.Offset != len(before) || torn.Skipped != cut {
			t.Fatalf("cut at %d of %d: torn = %v, want offset %d and %d bytes skipped", cut, last, torn, len(before), cut)
		}
	}
	got, torn, _ := Decode(whole[:len(before)+last/2])
	t.Logf("cut in half: %d records, %s", len(got), torn)
}

func TestCorruptRecordEndsTheLog(t *testing.T) {
	data := encode(t, sample())
	first := len(encode(t, sample()[:1]))
	data[first+10] ^= 0xff // inside the second record's payload
	got, torn, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || torn == nil || torn.Offset != first || !strings.Contains(torn.Reason, "checksum") {
		t.Fatalf("got %d records, torn %v; want the first record and a checksum mismatch at %d", len(got), torn, first)
	}
}

func TestNewerVersionIsAnError(t *testing.T) {
	data := encode(t, sample()[:2])
	first := len(encode(t, sample()[:1]))
	data[first+1] = Version + 1
	got, _, err := Decode(data)
	var ve *VersionError
	if !errors.As(err, &ve) || ve.Offset != first || len(got) != 1 {
		t.Fatalf("Decode = %d records, %v; want 1 record and a *VersionError at %d", len(got), err, first)
	}
}

func TestGarbageLengthIsTornNotAnAllocation(t *testing.T) {
	data := []byte{magic, Version, byte(KindDAGEnded), 0xff, 0xff, 0xff, 0xff, '{'}
	got, torn, err := Decode(data)
	if err != nil || len(got) != 0 || torn == nil || torn.Offset != 0 {
		t.Fatalf("Decode = %v, %v, %v", got, torn, err)
	}
}

// TestRecordSize holds the framing's overhead: 1 magic + 1 version + 1
// kind + 4 length + 4 crc = 11 bytes around the JSON payload.
func TestRecordSize(t *testing.T) {
	r := Record{DAGEnded: &DAGEnded{DAG: "d", State: "KILLED", FinishUnixMs: 5}}
	b, err := Append(nil, r)
	if err != nil {
		t.Fatal(err)
	}
	payload := `{"dag":"d","state":"KILLED","finishMs":5}`
	if len(b) != 11+len(payload) || string(b[7:7+len(payload)]) != payload {
		t.Fatalf("record is %d bytes %q; want 11 + %d", len(b), b, len(payload))
	}
}

func TestEmptyRecordIsRefused(t *testing.T) {
	if _, err := Append(nil, Record{}); err == nil {
		t.Fatal("Append of an empty record succeeded")
	}
}
