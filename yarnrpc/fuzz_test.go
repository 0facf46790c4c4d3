package yarnrpc

import (
	"bytes"
	"runtime"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// FuzzReadResponse: arbitrary server bytes must never panic or over-allocate,
// and a packet that decodes must re-encode to an equivalent header.
func FuzzReadResponse(f *testing.F) {
	f.Add(serverPacket(f, okHeader(0), &hadooppb.GetClusterMetricsResponseProto{}))
	f.Add(serverPacket(f, okHeader(-33), &hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_SUCCESS.Enum(), Token: []byte("rspauth=x")}))
	f.Add(serverPacket(f, &hadooppb.RpcResponseHeaderProto{
		CallId: proto.Uint32(3), Status: hadooppb.RpcResponseHeaderProto_ERROR.Enum(),
		ExceptionClassName: proto.String("org.apache.hadoop.yarn.exceptions.YarnException"), ErrorMsg: proto.String("boom"),
	}, nil))
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0x07, 0xff, 0xff, 0xff, 0}) // claims 128 MiB, sends one byte
	if _, server, err := readTestdata("simple_getClusterMetrics"); err == nil {
		f.Add(server)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		// Never over-allocate: what reading costs is bounded by the bytes
		// that arrived, whatever length the packet claims.
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r, err := ReadResponse(bytes.NewReader(in))
		runtime.ReadMemStats(&after)
		if alloc, limit := after.TotalAlloc-before.TotalAlloc, uint64(64<<10+8*len(in)); alloc > limit {
			t.Fatalf("reading %d bytes allocated %d bytes (limit %d)", len(in), alloc, limit)
		}
		if err != nil {
			return
		}
		_ = r.CallID()
		_ = r.Decode(&hadooppb.AllocateResponseProto{})
		b, err := proto.Marshal(r.Header)
		if err != nil {
			t.Fatalf("decoded header does not re-encode: %v", err)
		}
		var h hadooppb.RpcResponseHeaderProto
		if err := proto.Unmarshal(b, &h); err != nil || !proto.Equal(&h, r.Header) {
			t.Fatalf("header round trip: %v", err)
		}
	})
}

// FuzzReadCredentials: arbitrary token files must never panic, and a file
// that decodes must survive our writer and reader unchanged.
func FuzzReadCredentials(f *testing.F) {
	f.Add(sampleCredentials().MarshalWritable())
	pb, _ := sampleCredentials().MarshalProtobuf()
	f.Add(pb)
	f.Add([]byte("HDTS\x00\x00\x00"))
	f.Add([]byte("HDTS\x00\x8c\x7f\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := ReadCredentials(bytes.NewReader(in))
		if err != nil {
			return
		}
		again, err := ReadCredentials(bytes.NewReader(c.MarshalWritable()))
		if err != nil {
			t.Fatalf("our own encoding of a decoded file does not decode: %v", err)
		}
		if len(again.Tokens) != len(c.Tokens) || len(again.Secrets) != len(c.Secrets) {
			t.Fatalf("round trip changed counts: %d/%d -> %d/%d", len(c.Tokens), len(c.Secrets), len(again.Tokens), len(again.Secrets))
		}
		for i := range c.Tokens {
			a, b := c.Tokens[i], again.Tokens[i]
			if a.Alias != b.Alias || a.Token.Kind != b.Token.Kind || a.Token.Service != b.Token.Service ||
				!bytes.Equal(a.Token.Identifier, b.Token.Identifier) || !bytes.Equal(a.Token.Password, b.Token.Password) {
				t.Fatalf("token %d changed: %+v -> %+v", i, a, b)
			}
		}
	})
}
