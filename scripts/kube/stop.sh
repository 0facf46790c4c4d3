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

stop_pids() {
  local pids=("$@") deadline=$((SECONDS + timeout)) left
  kill -TERM "${pids[@]}" 2>/dev/null || true
  while :; do
    left=()
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && left+=("$p"); done
    ((${#left[@]} == 0)) && return 0
    if ((SECONDS >= deadline)); then
      say "still running after $timeout s, killing: ${left[*]}"
      kill -KILL "${left[@]}" 2>/dev/null || true
      return 0
    fi
    sleep 0.2
  done
}

for name in testca testkubelet kwok kube-scheduler kube-apiserver etcd; do
  f="$rundir/$name.pid"
  [[ -f "$f" ]] || continue
  pid="$(cat "$f")"
  # Only our binary: a stale pid file's pid may belong to someone else now.
  if tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q "/$name "; then
    stop_pids "$pid"
  fi
  rm -f "$f"
done

strays=()
for d in /proc/[0-9]*; do
  cwd="$(readlink "$d/cwd" 2>/dev/null)" || continue
  case "$cwd" in
    "$rundir"/pods/*)
      if tr '\0' '\n' 2>/dev/null <"$d/environ" | grep -q "^EBB_KUBE_POD_DIR=$rundir/pods/"; then
        strays+=("${d#/proc/}")
      fi
      ;;
  esac
done
if ((${#strays[@]} > 0)); then
  say "stopping ${#strays[@]} leftover pod process(es): ${strays[*]}"
  stop_pids "${strays[@]}"
fi
rm -f "$rundir/kube.env"
