#!/usr/bin/env bash
# Stops the s3proxy that start.sh started in RUNDIR (TERM, then KILL after
# 20 s). Exits 0 also when nothing ran.
# usage: scripts/s3server/stop.sh [RUNDIR]   (default: /tmp/ebb-s3server)
set -euo pipefail
rundir="${1:-/tmp/ebb-s3server}"
[[ -f "$rundir/pid" ]] || exit 0
pid="$(cat "$rundir/pid")"
if tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q 'org\.gaul\.s3proxy\.Main'; then
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -KILL "$pid" 2>/dev/null || true
fi
rm -f "$rundir/pid" "$rundir/s3.env"
