#!/usr/bin/env bash
# Runs every test: static checks (go vet, gofmt, go mod tidy, golangci-lint),
# the protobuf staleness check, then `go test` (with -race for the packages in
# race_patterns) with a real Hadoop minicluster (ResourceManager, three
# NodeManagers, NameNode, DataNode) started once for the whole run.
#
# With CI=true a cluster that cannot start is a failure; elsewhere the
# integration tests skip with a loud reason (set EBB_NO_MINICLUSTER=1 to
# skip starting it on purpose).
set -euo pipefail
cd "$(dirname "$0")/.."

# The linter is built from the Go module proxy at a pinned version (no
# download script, no committed binary, nothing added to go.mod). The first
# run builds it; the Go build cache and golangci-lint's own analysis cache
# make later runs take seconds.
GOLANGCI_LINT=github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0

# Packages whose tests run under the race detector: the pure packages and the
# ones that start goroutines. Everything else is tested without -race; each
# package is tested exactly once.
# sim/trace is a parser with no goroutines whose tests replay whole traces:
# under -race they take 4 minutes instead of 20 s, for nothing to find.
# So is sim itself (one goroutine replays virtual time; the core it drives
# is raced in ./am/...): its trace replays, TestEbbNotDominated among them,
# run about ten times slower under -race.
race_patterns=(./dag/... ./scheduler/... ./packing/... ./conf/... ./cluster/... ./yarnrpc/... ./worker/... ./am/... ./sim/cloud ./sim/report)

echo "== go vet"
go vet ./...
go vet -tags lockorder ./internal/lockorder/... ./worker/... ./am
echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' | grep -v '\.pb\.go$') 2>/dev/null || true)
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi

echo "== go mod tidy"
# -diff prints what tidy would change and exits non-zero, without writing.
if ! go mod tidy -diff; then
  echo "go.mod/go.sum are not tidy: run go mod tidy and commit the result" >&2
  exit 1
fi

echo "== golangci-lint (.golangci.yml)"
go run "$GOLANGCI_LINT" run ./...
# The checking half of internal/lockorder exists only under its tag.
go run "$GOLANGCI_LINT" run --build-tags lockorder ./internal/lockorder/...

echo "== generated protobuf code is current"
if ! command -v protoc >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq protobuf-compiler) >/dev/null 2>&1 || true
fi
if command -v protoc >/dev/null 2>&1; then
  scripts/genproto.sh --check
elif [ "${CI:-}" = true ]; then
  echo "protoc is missing and could not be installed" >&2
  exit 1
else
  echo "WARNING: protoc missing: the generated-code check is skipped"
fi

echo "== a browser for the UI test (cmd/ebb TestBrowserUI)"
# Debian's chromium, installed like protoc above when missing and root.
# Under CI=true the browser test fails without it; elsewhere it skips loudly.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 || true
fi
command -v chromium >/dev/null 2>&1 || echo "WARNING: chromium missing: the browser test will skip (or fail under CI=true)"
export EBB_UI_SCREENSHOTS="${EBB_UI_SCREENSHOTS:-/tmp/ebb-ui-screenshots}"
echo "UI screenshots go to $EBB_UI_SCREENSHOTS"

# -- Kerberos cluster (issue 16), part 1 of 2: a second, secure minicluster
# for the Kerberos tests, started in the background so that it comes up
# while the plain one does; part 2 waits for it before `go test`.
secure_pid=
securedir=
secure_stop() {
  if [ -n "$securedir" ]; then
    scripts/minicluster/stop.sh "$securedir" >/dev/null 2>&1 || true
  fi
}
if [ -z "${EBB_TEST_SECURE_HADOOP_CONF_DIR:-}" ] && [ -z "${EBB_NO_MINICLUSTER:-}" ] && [ -x scripts/minicluster/start.sh ]; then
  if ! command -v kinit >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq krb5-user) >/dev/null 2>&1 || true
  fi
  securedir="$(mktemp -d /tmp/ebb-test-secure.XXXXXX)"
  echo "== starting the Kerberos minicluster in $securedir (background)"
  # Tokens that die after 30 s: security's TestSecureTokensPastMaxLifetime
  # waits that long to show a keytab login outliving them.
  EBB_MINICLUSTER_ARGS="--set dfs.namenode.delegation.token.max-lifetime=30000 --set dfs.namenode.delegation.token.renew-interval=30000" \
    scripts/minicluster/start.sh --secure "$securedir" >"$securedir.out" 2>"$securedir.err" &
  secure_pid=$!
  trap secure_stop EXIT
fi
# -- end of Kerberos part 1

# -- Priority cluster (issue 23), part 1 of 2: application priorities above
# 0 (yarn.cluster.max-application-priority) and one active AM per queue, so
# TestYarnPriorityActivatedFirst can fill its queue; the other tests would
# wait behind each other's AMs there, so it is a cluster of its own.
prio_pid=
priodir=
prio_stop() {
  if [ -n "$priodir" ]; then
    scripts/minicluster/stop.sh "$priodir" >/dev/null 2>&1 || true
  fi
}
if [ -z "${EBB_TEST_PRIORITY_HADOOP_CONF_DIR:-}" ] && [ -z "${EBB_NO_MINICLUSTER:-}" ] && [ -x scripts/minicluster/start.sh ]; then
  priodir="$(mktemp -d /tmp/ebb-test-priority.XXXXXX)"
  echo "== starting the priority minicluster in $priodir (background)"
  EBB_MINICLUSTER_ARGS="--set yarn.cluster.max-application-priority=10 --set yarn.scheduler.capacity.maximum-am-resource-percent=0.01" \
    scripts/minicluster/start.sh "$priodir" >"$priodir.out" 2>"$priodir.err" &
  prio_pid=$!
  trap 'secure_stop; prio_stop' EXIT
fi
# -- end of priority part 1

# -- GPU cluster (issue 23): one yarn.io/gpu per NodeManager and the
# DominantResourceCalculator, for TestYarnGPUWorkersOnePerNode.
gpu_pid=
gpudir=
gpu_stop() {
  if [ -n "$gpudir" ]; then
    scripts/minicluster/stop.sh "$gpudir" >/dev/null 2>&1 || true
  fi
}
if [ -z "${EBB_TEST_GPU_HADOOP_CONF_DIR:-}" ] && [ -z "${EBB_NO_MINICLUSTER:-}" ] && [ -x scripts/minicluster/start.sh ]; then
  gpudir="$(mktemp -d /tmp/ebb-test-gpu.XXXXXX)"
  echo "== starting the GPU minicluster in $gpudir (background)"
  EBB_MINICLUSTER_ARGS="--set yarn.resource-types=yarn.io/gpu --set yarn.nodemanager.resource-type.yarn.io/gpu=1 --set yarn.scheduler.capacity.resource-calculator=org.apache.hadoop.yarn.util.resource.DominantResourceCalculator" \
    scripts/minicluster/start.sh "$gpudir" >"$gpudir.out" 2>"$gpudir.err" &
  gpu_pid=$!
  trap 'secure_stop; prio_stop; gpu_stop' EXIT
fi

cluster_started=
# A cluster of this run's own, in its own directory, so a run never reuses
# or stops a cluster somebody else started.
clusterdir="${EBB_MINICLUSTER_DIR:-$(mktemp -d /tmp/ebb-test-cluster.XXXXXX)}"
if [ -z "${EBB_TEST_HADOOP_CONF_DIR:-}" ] && [ -z "${EBB_NO_MINICLUSTER:-}" ] && [ -x scripts/minicluster/start.sh ]; then
  echo "== starting the Hadoop minicluster in $clusterdir"
  if confdir=$(scripts/minicluster/start.sh "$clusterdir" | tail -n 1) && [ -d "$confdir" ]; then
    export EBB_TEST_HADOOP_CONF_DIR="$confdir"
    cluster_started=1
    echo "minicluster up: HADOOP_CONF_DIR=$confdir"
  elif [ "${CI:-}" = true ]; then
    echo "the Hadoop minicluster did not start (CI=true: that is a failure)" >&2
    exit 1
  else
    echo "WARNING: the Hadoop minicluster did not start: the YARN/HDFS integration tests will skip" >&2
  fi
fi
cleanup() {
  if [ -n "$cluster_started" ]; then
    scripts/minicluster/stop.sh "$clusterdir" >/dev/null 2>&1 || true
  fi
}
trap 'cleanup; secure_stop; prio_stop; gpu_stop' EXIT

# -- Kerberos cluster, part 2 of 2: wait for it; CI=true makes a failed
# start a failure, elsewhere the Kerberos tests skip loudly.
if [ -n "$secure_pid" ]; then
  trap 'cleanup; secure_stop; prio_stop; gpu_stop' EXIT
  if wait "$secure_pid" && sconf=$(tail -n 1 "$securedir.out") && [ -d "$sconf" ]; then
    export EBB_TEST_SECURE_HADOOP_CONF_DIR="$sconf"
    echo "Kerberos minicluster up: $sconf ($(grep 'ready in' "$securedir.err" || true))"
  elif [ "${CI:-}" = true ]; then
    tail -n 30 "$securedir.err" >&2
    echo "the Kerberos minicluster did not start (CI=true: that is a failure)" >&2
    exit 1
  else
    tail -n 30 "$securedir.err" >&2
    echo "WARNING: the Kerberos minicluster did not start: the Kerberos tests will skip" >&2
  fi
fi
# -- end of Kerberos part 2

# -- Priority cluster, part 2 of 2.
if [ -n "$prio_pid" ]; then
  trap 'cleanup; secure_stop; prio_stop; gpu_stop' EXIT
  if wait "$prio_pid" && pconf=$(tail -n 1 "$priodir.out") && [ -d "$pconf" ]; then
    export EBB_TEST_PRIORITY_HADOOP_CONF_DIR="$pconf"
    echo "priority minicluster up: $pconf"
  elif [ "${CI:-}" = true ]; then
    tail -n 30 "$priodir.err" >&2
    echo "the priority minicluster did not start (CI=true: that is a failure)" >&2
    exit 1
  else
    tail -n 30 "$priodir.err" >&2
    echo "WARNING: the priority minicluster did not start: the priority test will skip" >&2
  fi
fi
# -- end of priority part 2

# -- GPU cluster, part 2 of 2.
if [ -n "$gpu_pid" ]; then
  if wait "$gpu_pid" && gconf=$(tail -n 1 "$gpudir.out") && [ -d "$gconf" ]; then
    export EBB_TEST_GPU_HADOOP_CONF_DIR="$gconf"
    echo "GPU minicluster up: $gconf"
  elif [ "${CI:-}" = true ]; then
    tail -n 30 "$gpudir.err" >&2
    echo "the GPU minicluster did not start (CI=true: that is a failure)" >&2
    exit 1
  else
    tail -n 30 "$gpudir.err" >&2
    echo "WARNING: the GPU minicluster did not start: the GPU test will skip" >&2
  fi
fi

race_pkgs=$(go list "${race_patterns[@]}")
other_pkgs=$(go list ./... | grep -vxF -e "$race_pkgs" || true)
# Both sets always run, so a failure in one does not hide failures in the
# other; the script fails if either did.
failed=
echo "== go test -race (${race_patterns[*]})"
go test -count=1 -race -timeout 25m $race_pkgs || failed=1
# The lock-order checker (internal/lockorder) watches the worker's and the
# AM's mutexes in a build of its own, without -race: the checker's own mutex
# orders every goroutine that takes a checked lock, which would hide races
# from the race detector. Any inversion fails the package (its TestMain).
lock_patterns=(./internal/lockorder ./worker/... ./am)
echo "== go test -tags lockorder (${lock_patterns[*]})"
go test -count=1 -tags lockorder -timeout 25m "${lock_patterns[@]}" || failed=1
echo "== go test (the other packages)"
if [ -n "$other_pkgs" ]; then
  go test -count=1 -timeout 25m $other_pkgs || failed=1
fi
if [ -n "$failed" ]; then
  exit 1
fi
