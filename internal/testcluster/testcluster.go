package testcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// EnvConfDir names the variable that points tests at a cluster's conf dir.
const EnvConfDir = "EBB_TEST_HADOOP_CONF_DIR"

// startHint is what a skipped or failed test tells a developer to do.
const startHint = "start one with\n\texport " + EnvConfDir + "=$(scripts/minicluster/start.sh)\n" +
	"and stop it afterwards with scripts/minicluster/stop.sh (see scripts/minicluster/README.md)"

// errNotRunning: cluster.env is there but ready is not, so the minicluster
// was stopped or died after the variable was exported.
var errNotRunning = errors.New("minicluster is not running (no ready marker)")

// ConfDir returns the HADOOP_CONF_DIR of the test cluster. Without
// EBB_TEST_HADOOP_CONF_DIR the test is skipped with a loud reason, or fails
// under CI=true. A variable that points at no usable conf dir, or at a
// minicluster that is no longer running, always fails: that is a broken
// setup, not a missing one.
func ConfDir(t testing.TB) string {
	t.Helper()
	dir, err := locate(os.Getenv)
	switch {
	case err == nil:
		return dir
	case errors.Is(err, errUnset) && os.Getenv("CI") != "true":
		t.Skipf("SKIPPING INTEGRATION TEST %s: no Hadoop cluster (%s is unset); %s", t.Name(), EnvConfDir, startHint)
	default:
		t.Fatalf("integration test %s needs a Hadoop cluster: %v; %s", t.Name(), err, startHint)
	}
	return ""
}

var errUnset = errors.New(EnvConfDir + " is unset")

// locate is ConfDir without testing.TB, so each outcome can be tested.
func locate(getenv func(string) string) (string, error) {
	return locateVar(getenv, EnvConfDir, errUnset)
}

// locateVar finds the conf dir the variable name points at; unset is the
// error for an unset variable.
func locateVar(getenv func(string) string, name string, unset error) (string, error) {
	dir := getenv(name)
	if dir == "" {
		if getenv("CI") == "true" {
			return "", fmt.Errorf("%w and CI=true: CI must run the integration tests", unset)
		}
		return "", unset
	}
	if _, err := os.Stat(filepath.Join(dir, "yarn-site.xml")); err != nil {
		return "", fmt.Errorf("%s=%s is not a Hadoop conf dir: %w", name, dir, err)
	}
	run := filepath.Dir(dir)
	if exists(filepath.Join(run, "cluster.env")) && !exists(filepath.Join(run, "ready")) {
		return "", fmt.Errorf("%s: %w", run, errNotRunning)
	}
	return dir, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Env returns the minicluster's cluster.env (next to the conf dir) as a map.
// Keys include RM_ADDRESS, RM_SCHEDULER_ADDRESS, RM_WEBAPP, NAMENODE,
// NAMENODE_HTTP, MAX_ALLOCATION_MB, NM_COUNT, NM_LOG_DIRS, NM_LOCAL_DIRS and
// per NodeManager NMi_NODE_ID, NMi_HTTP, NMi_LOG_DIRS, NMi_LOCAL_DIRS.
// A cluster that is not a minicluster has no such file: the test fails.
func Env(t testing.TB) map[string]string {
	t.Helper()
	path := filepath.Join(filepath.Dir(ConfDir(t)), "cluster.env")
	env, err := ReadEnv(path)
	if err != nil {
		t.Fatalf("testcluster: %v", err)
	}
	return env
}

// EnvValue returns one key of Env, failing the test when it is missing.
func EnvValue(t testing.TB, key string) string {
	t.Helper()
	v, ok := Env(t)[key]
	if !ok {
		t.Fatalf("testcluster: cluster.env has no %s", key)
	}
	return v
}

// Property returns key from file (for example "yarn-site.xml") in the conf
// dir, failing the test when the file or the key is missing.
func Property(t testing.TB, file, key string) string {
	t.Helper()
	v, err := lookup(filepath.Join(ConfDir(t), file), key)
	if err != nil {
		t.Fatalf("testcluster: %v", err)
	}
	return v
}

// RMAddress is the ResourceManager's client RPC address (host:port), where
// ApplicationClientProtocol is served.
func RMAddress(t testing.TB) string {
	t.Helper()
	return Property(t, "yarn-site.xml", "yarn.resourcemanager.address")
}

// SchedulerAddress is the RM's ApplicationMasterProtocol address (host:port).
func SchedulerAddress(t testing.TB) string {
	t.Helper()
	return Property(t, "yarn-site.xml", "yarn.resourcemanager.scheduler.address")
}

// RMWebURL is the base URL of the RM's web app and REST API, without a
// trailing slash, e.g. RMWebURL(t)+"/ws/v1/cluster/apps".
func RMWebURL(t testing.TB) string {
	t.Helper()
	return "http://" + Property(t, "yarn-site.xml", "yarn.resourcemanager.webapp.address")
}

// DefaultFS is the cluster's default file system, hdfs://host:port.
func DefaultFS(t testing.TB) string {
	t.Helper()
	return Property(t, "core-site.xml", "fs.defaultFS")
}

// MaxAllocationMB is yarn.scheduler.maximum-allocation-mb, the largest
// container the RM grants; asks above it are rejected.
func MaxAllocationMB(t testing.TB) int {
	t.Helper()
	s := Property(t, "yarn-site.xml", "yarn.scheduler.maximum-allocation-mb")
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		t.Fatalf("testcluster: yarn.scheduler.maximum-allocation-mb=%q: %v", s, err)
	}
	return n
}

// JVMLog is the minicluster JVM's own log (the RM's, NMs' and HDFS's
// lines together), for tests that check what the RM did.
func JVMLog(t testing.TB) string {
	t.Helper()
	return filepath.Join(EnvValue(t, "RUNDIR"), "minicluster.log")
}

// NMLogDirs lists every NodeManager's log directory; container logs are
// under <dir>/<application id>/<container id>/.
func NMLogDirs(t testing.TB) []string {
	t.Helper()
	return splitList(EnvValue(t, "NM_LOG_DIRS"))
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
