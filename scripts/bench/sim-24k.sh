#!/usr/bin/env bash
# sim-24k.sh: the scale check of issues 13, 26 and 27: a 24k-job day under
# the six default policies, all replayed at once, in at most 60 s and 1 GB
# (max RSS), timed on the built binary. It exits 1 when either is exceeded.
#
# The day: the two FB-2009 day files (5,894 and 6,638 jobs), each once as
# it is and once with its submit times shifted by 12 hours (cyclically, so
# the copy stays within the day): 25,064 real job sizes, arriving along
# the trace's own daily pattern at four times its density, with no burst
# doubled in the same second (an unshifted copy would stack every burst on
# itself). It is a busier cluster's day built only from measured jobs, not
# a resampling. sim.BenchmarkDay24k builds the same jobs in memory.
#
# usage: scripts/bench/sim-24k.sh [TRACES_DIR]   (default ../shared/traces)
#
# The six policies replay side by side (PARALLEL=6, the default here; each
# replay holds its own cluster and core state, so memory grows with it);
# PARALLEL=1 replays one at a time, PARALLEL=0 one per core. POLICIES
# replaces the list. On 2 cores the wall time is about half the CPU time:
# read the user and system times beside it on a busy machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
traces=${1:-../shared/traces}
fb=$traces/swim_facebook
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sim-24k.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Columns: job id, submit s, gap s, map input B, shuffle B, output B. The
# sim reads the submit time (the gap is not used); ids get the copy's tag.
for f in 0 1; do
  awk -F'\t' -v OFS='\t' -v tag="f$f-" '{ $1 = tag $1; print }' "$fb/FB-2009_samples_24_times_1hr_$f.tsv"
  awk -F'\t' -v OFS='\t' -v tag="f$f-12h-" '{ $1 = tag $1; $2 = ($2 + 43200) % 86400; print }' "$fb/FB-2009_samples_24_times_1hr_$f.tsv"
done | sort -t$'\t' -k2,2n -s > "$tmp/day24k.tsv"
echo "jobs: $(wc -l < "$tmp/day24k.tsv")"

go build -o "$tmp/ebb" ./cmd/ebb
/usr/bin/time -v "$tmp/ebb" sim --trace "$tmp/day24k.tsv" --format swim \
  --policies "${POLICIES:-static-40,oracle,mr3,spark-da,k8s-ca,ebb}" --parallel "${PARALLEL:-6}" > "$tmp/report.txt" 2> "$tmp/time.txt" || { cat "$tmp/time.txt"; exit 1; }
cat "$tmp/report.txt"
grep -E '^sim:|Elapsed|User time|System time|Maximum resident' "$tmp/time.txt"

# The limits: 60 s of wall time, 1 GB (1,048,576 kB) of max RSS.
awk -F': ' '
  /Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + p[i] }
  /Maximum resident set size/ { rss = $2 }
  END {
    ok = wall <= 60 && rss <= 1048576
    printf "limits (60 s, 1 GB): wall %.1f s, max RSS %d MB: %s\n", wall, rss / 1024, ok ? "within" : "EXCEEDED"
    exit !ok
  }' "$tmp/time.txt"
