package yarnrpc

import (
	"errors"
	"testing"
	"time"
)

func TestDelegationOwner(t *testing.T) {
	// AbstractDelegationTokenIdentifier: version 0, Text owner, Text
	// renewer, Text realUser, then dates and numbers (ignored here).
	id := []byte{0}
	for _, s := range []string{"ebb@EXAMPLE.COM", "hadoop/localhost@EXAMPLE.COM", ""} {
		id = appendVLong(id, int64(len(s)))
		id = append(id, s...)
	}
	id = appendVLong(id, 1700000000000) // issued
	id = appendVLong(id, 1700000060000) // max date: a minute later
	id = appendVLong(id, 7)
	id = appendVLong(id, 2)
	owner, err := Token{Identifier: id}.DelegationOwner()
	if err != nil || owner != "ebb@EXAMPLE.COM" {
		t.Fatalf("owner %q, %v", owner, err)
	}
	d, err := Token{Identifier: id}.Delegation()
	if err != nil || d.Owner != "ebb@EXAMPLE.COM" || d.Renewer != "hadoop/localhost@EXAMPLE.COM" || d.RealUser != "" ||
		d.Issued.UnixMilli() != 1700000000000 || d.MaxDate.Sub(d.Issued) != time.Minute {
		t.Fatalf("%+v, %v", d, err)
	}
	if _, err := (Token{Identifier: id[:len(id)-8]}).Delegation(); !errors.Is(err, ErrBadCredentials) {
		t.Errorf("truncated dates: %v", err)
	}
	for _, bad := range [][]byte{nil, {0}, {0, 20, 'a'}} {
		if _, err := (Token{Identifier: bad}).DelegationOwner(); !errors.Is(err, ErrBadCredentials) {
			t.Errorf("identifier %x: %v", bad, err)
		}
	}
}
