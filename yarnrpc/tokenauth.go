package yarnrpc

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"time"
)

// AuthenticateWithToken writes the SASL preamble on a fresh connection and
// runs TOKEN/DIGEST-MD5 with tok. Afterwards the server expects the
// connection context. It is for other Hadoop RPC clients (colinmarc/hdfs
// through hdfsfs) that cannot authenticate with a delegation token
// themselves. ctx bounds the exchange.
func AuthenticateWithToken(ctx context.Context, nc net.Conn, tok Token) error {
	if dl, ok := ctx.Deadline(); ok {
		if err := nc.SetDeadline(dl); err != nil {
			return fmt.Errorf("sasl: %w", err)
		}
		defer func() { _ = nc.SetDeadline(time.Time{}) }() // a broken socket shows on the next read or write
	}
	stop := context.AfterFunc(ctx, func() {
		_ = nc.SetDeadline(time.Unix(1, 0)) // wakes the blocked read; the exchange reports ctx's error
	})
	defer stop()
	if err := WritePreamble(nc, true); err != nil {
		return err
	}
	if err := saslHandshake(nc, tok, newCnonce); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return err
	}
	return nil
}

// DelegationOwner reads the owner out of a delegation token's identifier
// (HDFS_DELEGATION_TOKEN, RM_DELEGATION_TOKEN: Hadoop's
// AbstractDelegationTokenIdentifier, a Writable): a version byte, then the
// owner as Text. The server knows a token-authenticated connection by this
// name.
func (t Token) DelegationOwner() (string, error) {
	r := bufio.NewReader(bytes.NewReader(t.Identifier))
	if _, err := r.ReadByte(); err != nil {
		return "", fmt.Errorf("%w: empty token identifier", ErrBadCredentials)
	}
	n, err := readVLong(r)
	if err != nil || n < 0 || n > int64(len(t.Identifier)) {
		return "", fmt.Errorf("%w: token identifier owner length", ErrBadCredentials)
	}
	owner := make([]byte, n)
	if _, err := io.ReadFull(r, owner); err != nil {
		return "", fmt.Errorf("%w: token identifier owner: %w", ErrBadCredentials, err)
	}
	return string(owner), nil
}
