#!/usr/bin/env bash
# sim-24k.sh: issue 13's scale check: a 24k-job day under five policies
# in at most 60 s and 1 GB (max RSS), timed on the built binary.
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
# The policies replay one at a time (PARALLEL=1, the default here): each
# replay holds its own cluster and core state, and two at a time peak at
# about 1.2 GB on this day; PARALLEL=0 runs one per core.
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
  --policies static-40,mr3,spark-da,k8s-ca,ebb --parallel "${PARALLEL:-1}" > "$tmp/report.txt" 2> "$tmp/time.txt" || { cat "$tmp/time.txt"; exit 1; }
cat "$tmp/report.txt"
grep -E '^sim:|Elapsed|User time|System time|Maximum resident' "$tmp/time.txt"
