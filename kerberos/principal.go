package kerberos

import (
	"context"
	"net"
	"strings"
)

// splitRealm splits "name@REALM" (realm "" when absent).
func splitRealm(p string) (name, realm string) {
	if i := strings.LastIndexByte(p, '@'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return p, ""
}

// ShortName is Hadoop's DEFAULT auth_to_local mapping: the first component
// of the principal ("ebb/admin@R" and "ebb@R" are both "ebb").
func ShortName(principal string) string {
	name, _ := splitRealm(principal)
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return name
}

// ServicePrincipal turns a configured server principal such as
// "rm/_HOST@EXAMPLE.COM" (yarn.resourcemanager.principal,
// dfs.namenode.kerberos.principal) into the one to ask the KDC for, for the
// server at host. As Hadoop's clients do, _HOST becomes the canonical name of
// the server's address, lower case: an IP address or an alias is resolved
// and looked up in reverse, so "127.0.0.1" and a CNAME give the name the
// server logged in with. A name that does not resolve is used as given.
func ServicePrincipal(ctx context.Context, configured, host string) string {
	if !strings.Contains(configured, "_HOST") {
		return configured
	}
	return strings.Replace(configured, "_HOST", CanonicalHost(ctx, host), 1)
}

// CanonicalHost is host's canonical name, lower case, without a trailing dot.
func CanonicalHost(ctx context.Context, host string) string {
	ip := host
	if net.ParseIP(host) == nil {
		addrs, err := net.DefaultResolver.LookupHost(ctx, host)
		if err != nil || len(addrs) == 0 {
			return strings.ToLower(host)
		}
		ip = addrs[0]
	}
	names, err := net.DefaultResolver.LookupAddr(ctx, ip)
	if err != nil || len(names) == 0 {
		return strings.ToLower(host)
	}
	return strings.ToLower(strings.TrimSuffix(names[0], "."))
}
