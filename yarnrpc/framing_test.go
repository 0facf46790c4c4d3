package yarnrpc

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

func TestPreambleBytes(t *testing.T) {
	for _, c := range []struct {
		sasl bool
		want []byte
	}{
		{false, []byte{'h', 'r', 'p', 'c', 9, 0, 0x00}},
		{true, []byte{'h', 'r', 'p', 'c', 9, 0, 0xDF}},
	} {
		var b bytes.Buffer
		if err := WritePreamble(&b, c.sasl); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), c.want) {
			t.Errorf("sasl=%v: % x, want % x", c.sasl, b.Bytes(), c.want)
		}
		got, err := ReadPreamble(&b)
		if err != nil || got != c.sasl {
			t.Errorf("read back sasl=%v err=%v", got, err)
		}
	}
}

// A call packet by hand: header {rpcKind 2, rpcOp 0, callId 1 (zigzag 2),
// clientId "", retryCount 0}, then RequestHeaderProto.
func TestRequestPacketLayout(t *testing.T) {
	pkt, err := EncodePacket(requestHeader(1, nil, 0), methodHeader("P", "m"))
	if err != nil {
		t.Fatal(err)
	}
	hdr := []byte{0x08, 0x02, 0x10, 0x00, 0x18, 0x02, 0x22, 0x00, 0x28, 0x00}
	// RequestHeaderProto: 0a 01 'm' · 12 01 'P' · 18 01
	mh := []byte{0x0a, 0x01, 'm', 0x12, 0x01, 'P', 0x18, 0x01}
	want := []byte{0, 0, 0, byte(1 + len(hdr) + 1 + len(mh))}
	want = append(want, byte(len(hdr)))
	want = append(want, hdr...)
	want = append(want, byte(len(mh)))
	want = append(want, mh...)
	if !bytes.Equal(pkt, want) {
		t.Errorf("packet\n got % x\nwant % x", pkt, want)
	}
}

func TestRequestRoundTrip(t *testing.T) {
	var b bytes.Buffer
	req := &hadooppb.GetClusterNodesRequestProto{NodeStates: []hadooppb.NodeStateProto{hadooppb.NodeStateProto_NS_RUNNING}}
	if err := WritePacket(&b, requestHeader(-33, []byte("0123456789abcdef"), -1), methodHeader("P", "getClusterNodes"), req); err != nil {
		t.Fatal(err)
	}
	h, parts, err := ReadRequest(&b)
	if err != nil {
		t.Fatal(err)
	}
	if h.GetCallId() != -33 || h.GetRetryCount() != -1 || string(h.GetClientId()) != "0123456789abcdef" || len(parts) != 2 {
		t.Fatalf("header %v, %d parts", h, len(parts))
	}
	got := &hadooppb.GetClusterNodesRequestProto{}
	if err := proto.Unmarshal(parts[1], got); err != nil || !proto.Equal(got, req) {
		t.Errorf("request %v (%v), want %v", got, err, req)
	}
}

// serverPacket plays the server: response header + optional body.
func serverPacket(t testing.TB, h *hadooppb.RpcResponseHeaderProto, body proto.Message) []byte {
	t.Helper()
	msgs := []proto.Message{h}
	if body != nil {
		msgs = append(msgs, body)
	}
	b, err := EncodePacket(msgs...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func okHeader(callID int32) *hadooppb.RpcResponseHeaderProto {
	return &hadooppb.RpcResponseHeaderProto{
		CallId: proto.Uint32(uint32(callID)),
		Status: hadooppb.RpcResponseHeaderProto_SUCCESS.Enum(),
	}
}

func TestResponseRoundTrip(t *testing.T) {
	body := &hadooppb.GetClusterMetricsResponseProto{ClusterMetrics: &hadooppb.YarnClusterMetricsProto{NumNodeManagers: proto.Int32(3)}}
	// -33 travels as the uint32 4294967263 and must come back as -33.
	pkt := serverPacket(t, okHeader(-33), body)
	r, err := ReadResponse(bytes.NewReader(pkt))
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.GetCallId() != 4294967263 || r.CallID() != -33 {
		t.Errorf("call id raw %d, signed %d", r.Header.GetCallId(), r.CallID())
	}
	got := &hadooppb.GetClusterMetricsResponseProto{}
	if err := r.Decode(got); err != nil || !proto.Equal(got, body) {
		t.Errorf("body %v (%v)", got, err)
	}
}

func TestReadResponseErrors(t *testing.T) {
	good := serverPacket(t, okHeader(7), &hadooppb.GetClusterMetricsResponseProto{})
	huge := make([]byte, 4)
	binary.BigEndian.PutUint32(huge, maxPacket+1)
	cases := []struct {
		name  string
		in    []byte
		eof   bool // the error should be (unexpected) EOF, not a protocol error
		proto bool
	}{
		{name: "nothing", in: nil, eof: true},
		{name: "short length", in: []byte{0, 0}, eof: true},
		{name: "short body", in: good[:len(good)-1], eof: true},
		{name: "too big", in: huge, proto: true},
		{name: "header not delimited", in: []byte{0, 0, 0, 1, 0x05}, proto: true},
		{name: "header missing required status", in: []byte{0, 0, 0, 3, 0x02, 0x08, 0x07}, proto: true},
	}
	for _, c := range cases {
		_, err := ReadResponse(bytes.NewReader(c.in))
		switch {
		case err == nil:
			t.Errorf("%s: no error", c.name)
		case c.eof && !errorIs(err, io.EOF) && !errorIs(err, io.ErrUnexpectedEOF):
			t.Errorf("%s: %v, want EOF", c.name, err)
		case c.proto && !errorIs(err, ErrProtocol):
			t.Errorf("%s: %v, want ErrProtocol", c.name, err)
		}
	}
}

func TestDecodeBadBody(t *testing.T) {
	r := &Response{Header: okHeader(0), Body: []byte{0x09, 0x01}} // claims 9 bytes, has 1
	if err := r.Decode(&hadooppb.GetClusterMetricsResponseProto{}); !errorIs(err, ErrProtocol) {
		t.Errorf("got %v, want ErrProtocol", err)
	}
}
