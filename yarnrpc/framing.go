package yarnrpc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// Framing: pure functions over io.Reader/io.Writer, no connection state.
//
// Once per connection the client writes the preamble:
//
//	+----+----+----+----+---------+---------------+-----------+
//	| 'h'| 'r'| 'p'| 'c'| version | service class | auth      |
//	| 68 | 72 | 70 | 63 |   09    |      00       | 00 or DF  |
//	+----+----+----+----+---------+---------------+-----------+
//
// auth 00 means SIMPLE (no SASL exchange follows), DF (-33) means SASL.
//
// Every packet in both directions is a 4-byte big-endian length followed by
// that many bytes of varint-length-delimited protobuf messages:
//
//	+------------------+---------+-----------+---------+-----------+ ...
//	| total len (BE32) | varint  | message 1 | varint  | message 2 |
//	+------------------+---------+-----------+---------+-----------+ ...
//
// Requests:  RpcRequestHeaderProto, then RequestHeaderProto + the request
// (normal calls), RpcSaslProto (call id -33) or IpcConnectionContextProto
// (call id -3). Responses: RpcResponseHeaderProto, then on SUCCESS the
// response message (or RpcSaslProto during SASL).

const (
	ipcVersion   = 9
	authSimple   = 0x00
	authSASL     = 0xDF
	serviceClass = 0x00

	// Special call ids (Hadoop's RpcConstants).
	callIDSASL              = -33
	callIDConnectionContext = -3
	callIDPing              = -4

	// maxPacket bounds a response we are willing to buffer; Hadoop's own
	// limit (ipc.maximum.response.length) defaults to 128 MiB.
	maxPacket = 128 << 20
)

// WritePreamble writes the 7-byte connection preamble. sasl selects the
// auth byte.
func WritePreamble(w io.Writer, sasl bool) error {
	auth := byte(authSimple)
	if sasl {
		auth = authSASL
	}
	_, err := w.Write([]byte{'h', 'r', 'p', 'c', ipcVersion, serviceClass, auth})
	if err != nil {
		return fmt.Errorf("write preamble: %w", err)
	}
	return nil
}

// WritePacket writes msgs as one packet: the total length, then each
// message prefixed by its varint length. The packet goes out in one Write so
// that concurrent writers (serialised by the caller) never interleave.
func WritePacket(w io.Writer, msgs ...proto.Message) error {
	buf, err := EncodePacket(msgs...)
	if err != nil {
		return err
	}
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("write packet: %w", err)
	}
	return nil
}

// EncodePacket returns the bytes WritePacket would write.
func EncodePacket(msgs ...proto.Message) ([]byte, error) {
	body := make([]byte, 4, 256)
	for _, m := range msgs {
		b, err := proto.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("%w: marshal %s: %v", ErrProtocol, m.ProtoReflect().Descriptor().FullName(), err)
		}
		body = protowire.AppendVarint(body, uint64(len(b)))
		body = append(body, b...)
	}
	if len(body)-4 > maxPacket {
		return nil, fmt.Errorf("%w: request of %d bytes exceeds %d", ErrProtocol, len(body)-4, maxPacket)
	}
	binary.BigEndian.PutUint32(body, uint32(len(body)-4))
	return body, nil
}

// Response is one decoded response packet: its header, and the remaining
// bytes of the packet (the varint-delimited response message on SUCCESS,
// usually nothing on ERROR/FATAL).
type Response struct {
	Header *hadooppb.RpcResponseHeaderProto
	Body   []byte
}

// CallID returns the header's call id as the signed value the request used:
// the response carries it as a uint32, so -33 arrives as 4294967263.
func (r *Response) CallID() int32 { return int32(r.Header.GetCallId()) }

// Decode unmarshals the varint-delimited message at the start of Body into m.
func (r *Response) Decode(m proto.Message) error {
	b, n := protowire.ConsumeBytes(r.Body)
	if n < 0 {
		return fmt.Errorf("%w: response body of %d bytes is not a length-delimited message", ErrProtocol, len(r.Body))
	}
	if err := proto.Unmarshal(b, m); err != nil {
		return fmt.Errorf("%w: decode %s: %v", ErrProtocol, m.ProtoReflect().Descriptor().FullName(), err)
	}
	return nil
}

// ReadResponse reads one response packet. Errors from r come back wrapped
// (io.EOF stays visible to errors.Is); malformed packets are ErrProtocol.
func ReadResponse(r io.Reader) (*Response, error) {
	var lenBuf [4]byte
	if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
		return nil, fmt.Errorf("read packet length: %w", err)
	}
	n := binary.BigEndian.Uint32(lenBuf[:])
	if n > maxPacket {
		return nil, fmt.Errorf("%w: response packet of %d bytes exceeds %d", ErrProtocol, n, maxPacket)
	}
	// Grow the buffer as bytes arrive rather than trusting the length: a
	// peer that claims 100 MB and sends 4 bytes costs 4 bytes, not 100 MB.
	var buf bytes.Buffer
	got, err := buf.ReadFrom(io.LimitReader(r, int64(n)))
	if err == nil && got < int64(n) {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, fmt.Errorf("read packet of %d bytes: %w", n, err)
	}
	packet := buf.Bytes()
	hb, hn := protowire.ConsumeBytes(packet)
	if hn < 0 {
		return nil, fmt.Errorf("%w: packet of %d bytes has no delimited response header", ErrProtocol, n)
	}
	h := &hadooppb.RpcResponseHeaderProto{}
	if err := proto.Unmarshal(hb, h); err != nil {
		return nil, fmt.Errorf("%w: decode response header: %v", ErrProtocol, err)
	}
	return &Response{Header: h, Body: packet[hn:]}, nil
}

// requestHeader builds the RpcRequestHeaderProto of one packet.
func requestHeader(callID int32, clientID []byte, retry int32) *hadooppb.RpcRequestHeaderProto {
	return &hadooppb.RpcRequestHeaderProto{
		RpcKind:    hadooppb.RpcKindProto_RPC_PROTOCOL_BUFFER.Enum(),
		RpcOp:      hadooppb.RpcRequestHeaderProto_RPC_FINAL_PACKET.Enum(),
		CallId:     proto.Int32(callID),
		ClientId:   append([]byte{}, clientID...), // required: empty, never absent, on SASL packets
		RetryCount: proto.Int32(retry),
	}
}

// methodHeader builds the RequestHeaderProto naming a call's method.
func methodHeader(protocol, method string) *hadooppb.RequestHeaderProto {
	return &hadooppb.RequestHeaderProto{
		MethodName:                 proto.String(method),
		DeclaringClassProtocolName: proto.String(protocol),
		ClientProtocolVersion:      proto.Uint64(1),
	}
}

// ReadPreamble parses a connection preamble (used by tests and fakes that
// play the server). It returns whether the client asked for SASL.
func ReadPreamble(r io.Reader) (sasl bool, err error) {
	var p [7]byte
	if _, err := io.ReadFull(r, p[:]); err != nil {
		return false, fmt.Errorf("read preamble: %w", err)
	}
	if !bytes.Equal(p[:4], []byte("hrpc")) || p[4] != ipcVersion {
		return false, fmt.Errorf("%w: bad preamble % x", ErrProtocol, p)
	}
	switch p[6] {
	case authSimple:
		return false, nil
	case authSASL:
		return true, nil
	}
	return false, fmt.Errorf("%w: unknown auth byte %#x", ErrProtocol, p[6])
}

// ReadRequest reads one request packet and splits it into its delimited
// messages (for tests and fakes that play the server).
func ReadRequest(r io.Reader) (*hadooppb.RpcRequestHeaderProto, [][]byte, error) {
	var lenBuf [4]byte
	if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
		return nil, nil, fmt.Errorf("read packet length: %w", err)
	}
	n := binary.BigEndian.Uint32(lenBuf[:])
	if n > maxPacket {
		return nil, nil, fmt.Errorf("%w: request packet of %d bytes", ErrProtocol, n)
	}
	packet := make([]byte, n)
	if _, err := io.ReadFull(r, packet); err != nil {
		return nil, nil, fmt.Errorf("read packet: %w", err)
	}
	var parts [][]byte
	for len(packet) > 0 {
		b, k := protowire.ConsumeBytes(packet)
		if k < 0 {
			return nil, nil, fmt.Errorf("%w: truncated message in request packet", ErrProtocol)
		}
		parts = append(parts, b)
		packet = packet[k:]
	}
	if len(parts) == 0 {
		return nil, nil, fmt.Errorf("%w: empty request packet", ErrProtocol)
	}
	h := &hadooppb.RpcRequestHeaderProto{}
	if err := proto.Unmarshal(parts[0], h); err != nil {
		return nil, nil, fmt.Errorf("%w: decode request header: %v", ErrProtocol, err)
	}
	return h, parts[1:], nil
}
