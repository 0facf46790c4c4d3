#!/usr/bin/env bash
# sim-sweep-300k.sh: the dial's sweep at production size (issue 37, item
# 6): a generated trace of 12,000 jobs and about 300,000 tasks of minutes
# each over 17 hours (long multi-GB tasks, the kind the target was not
# shaped on), replayed on the hourly cloud under the peers once and ebb at
# five targets, timed on the built binary. Limits: 10 minutes of wall time
# on this machine; the script exits 1 when they are exceeded.
#
# The trace is seeded (awk's srand(37)): every run replays the same jobs.
# Each job is a map vertex of 1-60 tasks (mean about 20) of 1-8 GB for
# 30-600 s, and half of them a reduce vertex of 1-10 tasks behind it.
#
# usage: scripts/bench/sim-sweep-300k.sh     (PARALLEL=0: one replay per core)
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sim-sweep-300k.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

awk 'BEGIN {
  srand(37); print "job,submit_secs,vertex,tasks,memory_mb,duration_secs,depends_on"
  t = 0; tasks = 0
  for (j = 0; j < 12000; j++) {
    t += -log(1 - rand()) * 5.1            # Poisson arrivals, 17 h
    n = 1 + int(rand() * rand() * 60 * 1.5); if (n > 60) n = 60
    mb = 1024 * (1 + int(rand() * rand() * 8))
    d = 30 + int(rand() * rand() * 570)
    printf "j%05d,%d,map,%d,%d,%d,\n", j, t, n, mb, d; tasks += n
    if (rand() < 0.5) {
      r = 1 + int(rand() * 10)
      printf "j%05d,%d,reduce,%d,%d,%d,map\n", j, t, r, (2 * mb > 16384 ? 16384 : 2 * mb), 30 + int(rand() * 300); tasks += r
    }
  }
  printf "%d jobs, %d tasks\n", 12000, tasks > "/dev/stderr"
}' > "$tmp/jobs.csv"

go build -o "$tmp/ebb" ./cmd/ebb
/usr/bin/time -v "$tmp/ebb" sim --trace "$tmp/jobs.csv" --format ebb-csv \
  --node-memory-mb 32768 --provision-delay 240s --billing-period 1h \
  --policies oracle,mr3,spark-da,k8s-ca,ebb --reference oracle --parallel "${PARALLEL:-0}" \
  --sweep ebb.auto.scale.target.p95.slowdown=1.25,1.5,2,3,5 > "$tmp/report.txt" 2> "$tmp/time.txt" || { cat "$tmp/time.txt"; exit 1; }
cat "$tmp/report.txt"
grep -E '^sim:|Elapsed|User time|System time|Maximum resident' "$tmp/time.txt"
awk -F': ' '
  /Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + p[i] }
  /Maximum resident set size/ { rss = $2 }
  END {
    ok = wall <= 600
    printf "limit (10 min): wall %.1f s, max RSS %d MB: %s\n", wall, rss / 1024, ok ? "within" : "EXCEEDED"
    exit !ok
  }' "$tmp/time.txt"
