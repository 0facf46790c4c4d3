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

# stop_pids, runs_as, stray_pids
. "$(dirname "$0")/../lib/procs.sh"

# The extra NodeManager of start-decommission.sh, in a JVM of its own.
if [[ -f "$rundir/nm2/pid" ]]; then
  pid="$(cat "$rundir/nm2/pid")"
  if runs_as "$pid" 'nodemanager\.NodeManager'; then
    say "stopping the extra NodeManager $pid"
    stop_pids "$timeout" "$pid"
  fi
  rm -f "$rundir/nm2/pid"
fi

if [[ -f "$rundir/pid" ]]; then
  pid="$(cat "$rundir/pid")"
  # Only a launcher: a stale pid file's pid may belong to someone else now.
  if runs_as "$pid" 'ebb\.minicluster\.Main'; then
    say "stopping JVM $pid"
    stop_pids "$timeout" "$pid"
  fi
  rm -f "$rundir/pid" "$rundir/ready"
fi

# Containers are separate processes; a NodeManager that was killed cannot
# clean them up. They are recognised by a working directory inside RUNDIR
# and a CONTAINER_ID in their environment (which the NM sets), so a shell
# someone left in a container directory is not among them.
mapfile -t strays < <(stray_pids "$rundir" '^CONTAINER_ID=container_')
if ((${#strays[@]} > 0)); then
  say "stopping ${#strays[@]} leftover container process(es): ${strays[*]}"
  stop_pids "$timeout" "${strays[@]}"
fi
say "stopped"
