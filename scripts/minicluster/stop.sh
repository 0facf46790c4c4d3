#!/usr/bin/env bash
# Stops the cluster that start.sh started in RUNDIR.
#
# usage: scripts/minicluster/stop.sh [RUNDIR]   (default: $EBB_MINICLUSTER_DIR or /tmp/ebb-minicluster)
#
# Sends SIGTERM to the JVM (its signal handler stops the NodeManagers, the
# RM, then HDFS), waits up to $EBB_MINICLUSTER_STOP_TIMEOUT seconds (default
# 60), then SIGKILLs it. Container processes left behind (working directory
# under RUNDIR and a CONTAINER_ID in their environment) are ended the same
# way. Exits 0 when nothing of the cluster runs any more, also when nothing
# ran. RUNDIR itself is kept for post-mortems.
set -euo pipefail

rundir="${1:-${EBB_MINICLUSTER_DIR:-/tmp/ebb-minicluster}}"
timeout="${EBB_MINICLUSTER_STOP_TIMEOUT:-60}"
say() { echo "minicluster: $*" >&2; }

[[ -d "$rundir" ]] || { say "no $rundir; nothing to stop"; exit 0; }
rundir="$(cd "$rundir" && pwd)"
[[ "$rundir" != "/" ]] || { say "refusing RUNDIR /"; exit 1; }

# stop_pids PID...: TERM, wait with a deadline, then KILL.
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

# The extra NodeManager of start-decommission.sh, in a JVM of its own.
if [[ -f "$rundir/nm2/pid" ]]; then
  pid="$(cat "$rundir/nm2/pid")"
  if tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q 'nodemanager\.NodeManager'; then
    say "stopping the extra NodeManager $pid"
    stop_pids "$pid"
  fi
  rm -f "$rundir/nm2/pid"
fi

if [[ -f "$rundir/pid" ]]; then
  pid="$(cat "$rundir/pid")"
  # Only a launcher: a stale pid file's pid may belong to someone else now.
  if tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q 'ebb\.minicluster\.Main'; then
    say "stopping JVM $pid"
    stop_pids "$pid"
  fi
  rm -f "$rundir/pid" "$rundir/ready"
fi

# Containers are separate processes; a NodeManager that was killed cannot
# clean them up. They are recognised by a working directory inside RUNDIR
# and a CONTAINER_ID in their environment (which the NM sets), so a shell
# someone left in a container directory is not among them.
strays=()
for d in /proc/[0-9]*; do
  cwd="$(readlink "$d/cwd" 2>/dev/null)" || continue
  case "$cwd" in
    "$rundir"/*)
      if tr '\0' '\n' 2>/dev/null <"$d/environ" | grep -q '^CONTAINER_ID=container_'; then
        strays+=("${d#/proc/}")
      fi
      ;;
  esac
done
if ((${#strays[@]} > 0)); then
  say "stopping ${#strays[@]} leftover container process(es): ${strays[*]}"
  stop_pids "${strays[@]}"
fi
say "stopped"
