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

// DelegationInfo is what a delegation token's identifier says about it
// (HDFS_DELEGATION_TOKEN, RM_DELEGATION_TOKEN: Hadoop's
// AbstractDelegationTokenIdentifier, a Writable):
//
//	version byte | Text owner | Text renewer | Text realUser |
//	vlong issueDate (ms) | vlong maxDate (ms) | vint sequence | vint masterKeyId
type DelegationInfo struct {
	Owner, Renewer, RealUser string
	Issued, MaxDate          time.Time // MaxDate: no renewal extends the token past it
}

// Delegation parses the identifier.
func (t Token) Delegation() (DelegationInfo, error) {
	r := bufio.NewReader(bytes.NewReader(t.Identifier))
	if _, err := r.ReadByte(); err != nil {
		return DelegationInfo{}, fmt.Errorf("%w: empty token identifier", ErrBadCredentials)
	}
	text := func(what string) (string, error) {
		n, err := readVLong(r)
		if err != nil || n < 0 || n > int64(len(t.Identifier)) {
			return "", fmt.Errorf("%w: token identifier %s length", ErrBadCredentials, what)
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return "", fmt.Errorf("%w: token identifier %s: %w", ErrBadCredentials, what, err)
		}
		return string(b), nil
	}
	var d DelegationInfo
	var err error
	if d.Owner, err = text("owner"); err != nil {
		return d, err
	}
	if d.Renewer, err = text("renewer"); err != nil {
		return d, err
	}
	if d.RealUser, err = text("real user"); err != nil {
		return d, err
	}
	issued, err1 := readVLong(r)
	maxDate, err2 := readVLong(r)
	if err1 != nil || err2 != nil {
		return d, fmt.Errorf("%w: token identifier dates", ErrBadCredentials)
	}
	d.Issued, d.MaxDate = time.UnixMilli(issued), time.UnixMilli(maxDate)
	return d, nil
}

// DelegationOwner is the token's owner: the user the server knows a
// token-authenticated connection by.
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
