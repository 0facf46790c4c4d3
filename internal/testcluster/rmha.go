package testcluster

import (
	"path/filepath"
	"strings"
	"testing"
)

// RMAddresses are the ResourceManagers' client RPC addresses: under RM HA
// (the faults cluster) one per yarn.resourcemanager.ha.rm-ids entry, in
// that order; otherwise RMAddress alone.
func RMAddresses(t testing.TB) []string {
	t.Helper()
	return rmKeys(t, "yarn.resourcemanager.address")
}

// RMWebURLs are the RMs' web app base URLs, as RMAddresses.
func RMWebURLs(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, a := range rmKeys(t, "yarn.resourcemanager.webapp.address") {
		out = append(out, "http://"+a)
	}
	return out
}

func rmKeys(t testing.TB, key string) []string {
	t.Helper()
	props, err := ReadSite(filepath.Join(ConfDir(t), "yarn-site.xml"))
	if err != nil {
		t.Fatalf("testcluster: %v", err)
	}
	if props["yarn.resourcemanager.ha.enabled"] != "true" {
		return []string{Property(t, "yarn-site.xml", key)}
	}
	var out []string
	for _, id := range splitList(props["yarn.resourcemanager.ha.rm-ids"]) {
		v := strings.TrimSpace(props[key+"."+id])
		if v == "" {
			t.Fatalf("testcluster: yarn-site.xml has RM HA but no %s.%s", key, id)
		}
		out = append(out, v)
	}
	return out
}
