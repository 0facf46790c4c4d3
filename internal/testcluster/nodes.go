package testcluster

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// NodeIDs lists the NodeManagers as the RM names them (host:port, the port
// being part of the node name because yarn.scheduler.include-port-in-node-name
// is on), in launcher order: NM0, NM1, ...
func NodeIDs(t testing.TB) []string {
	t.Helper()
	env := Env(t)
	n, err := strconv.Atoi(env["NM_COUNT"])
	if err != nil {
		t.Fatalf("testcluster: NM_COUNT=%q: %v", env["NM_COUNT"], err)
	}
	ids := make([]string, n)
	for i := range ids {
		key := "NM" + strconv.Itoa(i) + "_NODE_ID"
		if ids[i] = env[key]; ids[i] == "" {
			t.Fatalf("testcluster: cluster.env has no %s", key)
		}
	}
	return ids
}

// ContainerLogDirs finds an application's container log directories on every
// NodeManager: container id -> directory (holding stdout, stderr, ...). They
// survive the application because the NMs keep them for
// yarn.nodemanager.delete.debug-delay-sec.
func ContainerLogDirs(t testing.TB, appID string) map[string]string {
	t.Helper()
	return containerLogDirs(NMLogDirs(t), appID)
}

func containerLogDirs(logDirs []string, appID string) map[string]string {
	out := make(map[string]string)
	for _, dir := range logDirs {
		entries, err := os.ReadDir(filepath.Join(dir, appID))
		if err != nil {
			continue // this NM ran nothing of the application
		}
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), "container_") {
				out[e.Name()] = filepath.Join(dir, appID, e.Name())
			}
		}
	}
	return out
}
