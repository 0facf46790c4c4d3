package yarnrpc

import (
	"errors"
	"testing"
)

func TestDelegationOwner(t *testing.T) {
	// AbstractDelegationTokenIdentifier: version 0, Text owner, Text
	// renewer, Text realUser, then dates and numbers (ignored here).
	id := []byte{0}
	for _, s := range []string{"ebb@EXAMPLE.COM", "hadoop/localhost@EXAMPLE.COM", ""} {
		id = appendVLong(id, int64(len(s)))
		id = append(id, s...)
	}
	id = appendVLong(id, 1700000000000)
	owner, err := Token{Identifier: id}.DelegationOwner()
	if err != nil || owner != "ebb@EXAMPLE.COM" {
		t.Fatalf("owner %q, %v", owner, err)
	}
	for _, bad := range [][]byte{nil, {0}, {0, 20, 'a'}} {
		if _, err := (Token{Identifier: bad}).DelegationOwner(); !errors.Is(err, ErrBadCredentials) {
			t.Errorf("identifier %x: %v", bad, err)
		}
	}
}
