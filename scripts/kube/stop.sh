#!/usr/bin/env bash
# Stops the test Kubernetes cluster that start.sh started in RUNDIR: testca,
# testkubelet (which ends the pods' processes it runs), kwok, the scheduler,
# the apiserver, then etcd; each TERM, then KILL after
# $EBB_KUBE_STOP_TIMEOUT seconds (default 20). Pod processes left behind (a
# working directory under RUNDIR/pods and EBB_KUBE_POD_DIR in their
# environment, which testkubelet sets) are ended the same way. Exits 0 when
# nothing of the cluster runs any more, also when nothing ran. RUNDIR is kept
# for post-mortems (logs, pods/).
#
# usage: scripts/kube/stop.sh [RUNDIR]   (default: /tmp/ebb-kube)
set -euo pipefail

rundir="${1:-/tmp/ebb-kube}"
timeout="${EBB_KUBE_STOP_TIMEOUT:-20}"
say() { echo "kube: $*" >&2; }
[[ -d "$rundir" ]] || exit 0
rundir="$(cd "$rundir" && pwd)"
[[ "$rundir" != "/" ]] || { say "refusing RUNDIR /"; exit 1; }

# stop_pids, runs_as, stray_pids
. "$(dirname "$0")/../lib/procs.sh"

for name in testca testkubelet kwok kube-scheduler kube-apiserver etcd; do
  f="$rundir/$name.pid"
  [[ -f "$f" ]] || continue
  pid="$(cat "$f")"
  # Only our binary: a stale pid file's pid may belong to someone else now.
  if runs_as "$pid" "/$name "; then
    stop_pids "$timeout" "$pid"
  fi
  rm -f "$f"
done

mapfile -t strays < <(stray_pids "$rundir/pods" "^EBB_KUBE_POD_DIR=$rundir/pods/")
if ((${#strays[@]} > 0)); then
  say "stopping ${#strays[@]} leftover pod process(es): ${strays[*]}"
  stop_pids "$timeout" "${strays[@]}"
fi
rm -f "$rundir/kube.env"
