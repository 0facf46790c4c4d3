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
go vet -tags lockorder ./internal/lockorder/... ./worker/... ./am ./am/kubeworld
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

# -- Background clusters: besides the plain one, tests that need settings of
# their own each get a minicluster of their own, started here in the
# background so that they come up while the plain one does, and waited for
# (wait_background) before `go test`. Each is found by its tests through an
# environment variable; one given by the caller is used as it is. Under
# CI=true a cluster that does not start is a failure; elsewhere its tests
# skip loudly.
bg_names=()
declare -A bg_pid bg_dir bg_var bg_stop
# start_background NAME VAR COMMAND...: runs COMMAND RUNDIR in the background.
start_background() {
  local name=$1 var=$2
  shift 2
  if [ -n "${!var:-}" ] || [ -n "${EBB_NO_MINICLUSTER:-}" ] || [ ! -x scripts/minicluster/start.sh ]; then
    return 0
  fi
  local dir
  dir="$(mktemp -d "/tmp/ebb-test-$name.XXXXXX")"
  echo "== starting the $name minicluster in $dir (background)"
  "$@" "$dir" >"$dir.out" 2>"$dir.err" &
  bg_pid[$name]=$!
  bg_dir[$name]=$dir
  bg_var[$name]=$var
  bg_stop[$name]=scripts/minicluster/stop.sh
  case "$1" in scripts/*/start.sh) bg_stop[$name]="${1%start.sh}stop.sh" ;; esac
  bg_names+=("$name")
}
stop_background() {
  local name
  for name in "${bg_names[@]}"; do
    "${bg_stop[$name]}" "${bg_dir[$name]}" >/dev/null 2>&1 || true
  done
}
wait_background() {
  local name conf
  for name in "${bg_names[@]}"; do
    if wait "${bg_pid[$name]}" && conf=$(tail -n 1 "${bg_dir[$name]}.out") && [ -d "$conf" ]; then
      export "${bg_var[$name]}=$conf"
      echo "$name minicluster up: $conf ($(grep 'ready in' "${bg_dir[$name]}.err" || true))"
    elif [ "${CI:-}" = true ]; then
      tail -n 30 "${bg_dir[$name]}.err" >&2
      echo "the $name minicluster did not start (CI=true: that is a failure)" >&2
      exit 1
    else
      tail -n 30 "${bg_dir[$name]}.err" >&2
      echo "WARNING: the $name minicluster did not start: the tests that read ${bg_var[$name]} will skip" >&2
    fi
  done
}
trap stop_background EXIT

# Kerberos (issue 16): the Kerberos tests, with kinit from Debian's
# krb5-user. Tokens die after 30 s: security's
# TestSecureTokensPastMaxLifetime waits that long to show a keytab login
# outliving them.
if [ -z "${EBB_TEST_SECURE_HADOOP_CONF_DIR:-}" ] && ! command -v kinit >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq krb5-user) >/dev/null 2>&1 || true
fi
start_background secure EBB_TEST_SECURE_HADOOP_CONF_DIR \
  env EBB_MINICLUSTER_ARGS="--set dfs.namenode.delegation.token.max-lifetime=30000 --set dfs.namenode.delegation.token.renew-interval=30000" \
  scripts/minicluster/start.sh --secure
# Decommission (issue 23): a fourth NodeManager in a JVM of its own under
# 127.0.0.2, which the RM's exclude list can decommission alone.
start_background decommission EBB_TEST_DECOMMISSION_HADOOP_CONF_DIR scripts/minicluster/start-decommission.sh
# Preemption (issue 23): queues a and b with the CapacityScheduler's
# preemption policy (internal/testcluster/preemptargs).
start_background preempt EBB_TEST_PREEMPT_HADOOP_CONF_DIR \
  env EBB_MINICLUSTER_ARGS="$(go run ./internal/testcluster/preemptargs)" scripts/minicluster/start.sh
# Priority (issue 23): application priorities above 0 and one active AM per
# queue, so TestYarnPriorityActivatedFirst can fill its queue (other tests
# would wait behind each other's AMs there).
start_background priority EBB_TEST_PRIORITY_HADOOP_CONF_DIR \
  env EBB_MINICLUSTER_ARGS="--set yarn.cluster.max-application-priority=10 --set yarn.scheduler.capacity.maximum-am-resource-percent=0.01" \
  scripts/minicluster/start.sh
# GPU (issue 23): one yarn.io/gpu per NodeManager and the
# DominantResourceCalculator, for the resource-type tests; node labels on,
# stored under the cluster's hadoop.tmp.dir, with the default queue allowed
# partition "labelled", which the node-label tests create and give to one
# NodeManager while they run (cmd/ebb/yarn_labels_test.go).
start_background gpu EBB_TEST_GPU_HADOOP_CONF_DIR \
  env EBB_MINICLUSTER_ARGS="--set yarn.resource-types=yarn.io/gpu --set yarn.nodemanager.resource-type.yarn.io/gpu=1 --set yarn.scheduler.capacity.resource-calculator=org.apache.hadoop.yarn.util.resource.DominantResourceCalculator \
--set yarn.node-labels.enabled=true --set yarn.node-labels.fs-store.root-dir=file://\${hadoop.tmp.dir}/node-labels \
--set yarn.scheduler.capacity.root.accessible-node-labels=labelled --set yarn.scheduler.capacity.root.accessible-node-labels.labelled.capacity=100 \
--set yarn.scheduler.capacity.root.default.accessible-node-labels=labelled --set yarn.scheduler.capacity.root.default.accessible-node-labels.labelled.capacity=100" \
  scripts/minicluster/start.sh
# S3 (issue 35): s3proxy from Maven Central, for the s3:// file system, its
# committer's scenarios and the word count on S3 (s3fs, cmd/ebb). The AWS
# CLI from PyPI is the second client that reads back what ebb wrote.
if ! command -v aws >/dev/null 2>&1; then
  (python3 -m pip install -q awscli) >/dev/null 2>&1 || true
fi
command -v aws >/dev/null 2>&1 || echo "WARNING: the AWS CLI is missing: the S3 read-back tests will skip (or fail under CI=true)"
start_background s3 EBB_TEST_S3_DIR scripts/s3server/start.sh

# Faults (issue 33): two ResourceManagers (HA, manual failover through the
# launcher's control channel), RM recovery from a file-system state store,
# work-preserving, NodeManager recovery (supervised: containers outlive
# their NodeManager's restart), and daemons a test can stop and start
# (internal/testcluster/faultsargs, testcluster.Control). The tests that
# restart its daemons hold it exclusively.
start_background faults EBB_TEST_FAULTS_HADOOP_CONF_DIR \
  env EBB_MINICLUSTER_ARGS="$(go run ./internal/testcluster/faultsargs)" scripts/minicluster/start.sh

# Kubernetes (issue 36): a real etcd, kube-apiserver and kube-scheduler
# (built from the Go module proxy by scripts/kube/build.sh, cached in
# ~/.cache/ebb/kube like ~/.m2), kwok's nodes, testkubelet running pods as
# local processes, testca as the cluster autoscaler (docs/kubernetes.md).
start_background kube EBB_TEST_KUBE_DIR scripts/kube/start.sh

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
# The cluster tests run in the background (below); a run that stops early
# stops them too, before their clusters go.
clusters_pids=()
stop_cluster_tests() {
  local pid
  for pid in "${clusters_pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
}
# The clusters' directories (HDFS blocks, NodeManager dirs, logs: about 6 GB
# a run) stay after a failed run, for its post-mortem, and go after a run
# that passed: kept every time, they filled a developer's disk until the
# NodeManagers turned unhealthy and a later run failed for that alone.
# Only directories this run made go (not EBB_MINICLUSTER_DIR's).
passed=
remove_run_dirs() {
  local name dirs=()
  for name in "${bg_names[@]}"; do
    dirs+=("${bg_dir[$name]}" "${bg_dir[$name]}.out" "${bg_dir[$name]}.err")
  done
  if [ -z "${EBB_MINICLUSTER_DIR:-}" ]; then
    dirs+=("$clusterdir")
  fi
  if [ -n "$passed" ]; then
    rm -rf "${dirs[@]}" "${clusters_logs[@]}"
  elif [ "${#dirs[@]}" -gt 0 ]; then
    echo "the clusters' directories, kept for a post-mortem: ${dirs[*]}" >&2
  fi
}
clusters_logs=()
trap 'stop_cluster_tests; cleanup; stop_background; remove_run_dirs' EXIT # every cluster this run started
wait_background

# cmd/ebb holds most of the integration tests and is the run's long pole,
# so its tests on the clusters start as soon as the clusters are up, in two
# go test processes beside everything below: one takes the tests on the
# special clusters (Kerberos, S3, faults, GPUs, decommission, preemption,
# priorities, labels) and the simulator's CPU-heavy ones, the other the
# tests on the plain minicluster, all in that one process: some of them
# want the cluster's nodes or its sessions to themselves (a packed group on
# one node, no other session of the user), so no test in the first process
# may use the plain cluster. The tests that need no Hadoop
# cluster (the local world, the docs, Hadoop Streaming in local mode on both
# sides, the Kubernetes test cluster) run in the foreground with the other
# packages. The same patterns select and skip, so every test runs exactly
# once. -v gives each test's time, printed at the end slowest first.
ebb_local_only='^(TestLocal|TestDocs|TestGeneratedDocs|TestStreamingMatchesHadoopStreaming|TestKube)'
ebb_special='^(TestKerberos|TestYarnWordCountOnS3|TestYarnAMKilledInsideTheS3Commit|TestYarnKillInsideTheS3Commit|TestYarnNodeManager|TestYarnNameNodeRestart|TestYarnRMRestart|TestYarnRMFailover|TestYarnGPU|TestYarnDecommission|TestYarnPreemption|TestYarnPriority|TestYarnNodeLabel|TestYarnUnknownNodeLabel|TestSim|TestEbbPolicyProfileMatchesTheSim)'
clusters_logs=("$(mktemp)" "$(mktemp)")
go test -count=1 -v -timeout 40m -run "$ebb_special" ./cmd/ebb >"${clusters_logs[0]}" 2>&1 &
clusters_pids+=($!)
go test -count=1 -v -timeout 40m -skip "$ebb_local_only|$ebb_special" ./cmd/ebb >"${clusters_logs[1]}" 2>&1 &
clusters_pids+=($!)

# The test cluster's own module (scripts/kube, kept out of ebb's go.mod):
# vet, tidy, and its smoke test against the cluster started above (it
# fails under CI=true without one).
echo "== scripts/kube: go vet, go mod tidy, the test cluster's smoke test"
(cd scripts/kube && go vet ./... && go mod tidy -diff && go test -count=1 -timeout 5m ./...) || failed_kube=1

race_pkgs=$(go list "${race_patterns[@]}")
other_pkgs=$(go list ./... | grep -vxF -e "$race_pkgs" || true)
rest_pkgs=$(echo "$other_pkgs" | grep -vxF github.com/ebb-am/ebb/cmd/ebb || true)
# Both sets always run, so a failure in one does not hide failures in the
# other; the script fails if either did.
failed=${failed_kube:-}
echo "== go test -race (${race_patterns[*]})"
go test -count=1 -race -timeout 25m $race_pkgs || failed=1
# The lock-order checker (internal/lockorder) watches the worker's, the
# AM's and the Kubernetes world's mutexes in a build of its own, without -race: the checker's own mutex
# orders every goroutine that takes a checked lock, which would hide races
# from the race detector. Any inversion fails the package (its TestMain).
lock_patterns=(./internal/lockorder ./worker/... ./am ./am/kubeworld)
echo "== go test -tags lockorder (${lock_patterns[*]})"
go test -count=1 -tags lockorder -timeout 25m "${lock_patterns[@]}" || failed=1
echo "== go test (the other packages)"
go test -count=1 -timeout 25m -run "$ebb_local_only" ./cmd/ebb || failed=1
if [ -n "$rest_pkgs" ]; then
  go test -count=1 -timeout 25m $rest_pkgs || failed=1
fi
echo "== go test ./cmd/ebb (the tests on the clusters)"
for i in "${!clusters_pids[@]}"; do
  rc=0
  wait "${clusters_pids[$i]}" || rc=$?
  log="${clusters_logs[$i]}"
  if [ "$rc" != 0 ]; then
    failed=1
    cat "$log" # all of it: the failing test's output is somewhere in there
  else
    # Passed: each test's line with its wall time, slowest first (the long
    # pole of the run, to see what to move), then the package's own line.
    grep -E '^--- (PASS|SKIP)' "$log" | sort -t'(' -k2 -rn | head -n 25
    grep -E '^(ok|FAIL)[[:space:]]' "$log"
  fi
done
if [ -n "$failed" ]; then
  exit 1
fi
passed=1
