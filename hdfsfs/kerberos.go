package hdfsfs

import (
	"context"
	"fmt"
	"net"

	"github.com/colinmarc/hdfs/v2"

	"github.com/ebb-am/ebb/kerberos"
)

// KeyNameNodePrincipal is the Hadoop key naming the NameNode's principal.
const KeyNameNodePrincipal = "dfs.namenode.kerberos.principal"

// DialKerberos connects to the NameNode of defaultFS as the logged-in
// principal (hadoop.security.authentication=kerberos). principal is
// dfs.namenode.kerberos.principal, _HOST allowed.
//
// colinmarc/hdfs would put the NameNode's address literally in place of
// _HOST; Hadoop's clients use the canonical name of that address, which is
// what the NameNode logged in with, so it is resolved here.
func DialKerberos(ctx context.Context, defaultFS string, login *kerberos.Login, principal string) (*FS, error) {
	host, err := namenodeOf(defaultFS)
	if err != nil {
		return nil, err
	}
	if principal == "" {
		return nil, fmt.Errorf("hdfsfs: %s is not set: the NameNode's Kerberos principal is needed on a secure cluster", KeyNameNodePrincipal)
	}
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	spn := kerberos.ServicePrincipal(ctx, principal, h)
	// colinmarc/hdfs wants the name without the realm; the realm is the
	// client's (cross-realm NameNodes are not supported there).
	name, _, _ := cutRealm(spn)
	return open(host, hdfs.ClientOptions{
		Addresses:                    []string{host},
		KerberosClient:               login.Client(),
		KerberosServicePrincipleName: name,
	})
}

func cutRealm(p string) (name, realm string, ok bool) {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '@' {
			return p[:i], p[i+1:], true
		}
	}
	return p, "", false
}
