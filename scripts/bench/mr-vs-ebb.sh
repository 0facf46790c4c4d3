#!/usr/bin/env bash
# MapReduce vs ebb: word count on the same inputs, on the same YARN cluster,
# side by side (issue #17, item 1).
#
# usage: scripts/bench/mr-vs-ebb.sh [--quick | --smoke] [--sizes LIST] [--runs N]
#                                   [--conf-dir DIR | --rundir DIR [--keep-cluster]]
#                                   [--out FILE.md] [--work DIR] [--hdfs-dir PATH] [--clean]
#                                   [--ebb-worker-mb N] [--ebb-task-mb N] [--ebb-am-mb N] [--ebb-uber on|off]
#                                   [--ebb-set k=v]... [--mr-set k=v]... [--timeout SECS]
#
# What it does, in order:
#  1. builds ebb (go build ./cmd/ebb) and the Java side (scripts/bench/pom.xml:
#     MapReduce's WordCount from hadoop-mapreduce-examples, the MapReduce
#     client/AM/task jars and ebb.bench.AppReport; jars in ~/.m2, never committed);
#  2. starts the project's minicluster (scripts/minicluster/start.sh RUNDIR:
#     3 NodeManagers of 4096 MB / 4 vcores running MapReduce's shuffle
#     service, one DataNode) and stops it at the end, unless --conf-dir names a
#     running cluster (then that one is used and left alone);
#  3. generates each input with benchgen (seeded: the same bytes every time)
#     straight into HDFS, once (a file named after its parameters is reused);
#  4. for each input and each run: MapReduce's WordCount (2 reducers, stock
#     settings except what Java 17 and this machine need, see mr_job) and ebb's
#     word count (ebb submit of a wc-map/wc-reduce DAG, as many maps as
#     MapReduce has splits, 2 reducers), alternating which goes first;
#  5. reads what the ResourceManager says about each application (AppReport:
#     final status, start/finish, MB-seconds and vcore-seconds of
#     ApplicationResourceUsageReport), counts its containers (container log
#     directories in the NodeManagers' log dirs), and compares the outputs as
#     word->count sets (every part file, normalised to "word<TAB>count" and
#     sorted; not the file layout);
#  6. prints a markdown table, writes it to --out (default WORK/mr-vs-ebb.md)
#     and the raw rows to the same name with .tsv.
#
# Modes: default = every size, 3 runs each. --quick = 1m and 256m, 1 run.
# --smoke = 1m, 1 run (what the Go smoke test runs on the test cluster).
# Sizes: 1m (1 MiB), 256m (256 MiB), 1g (1 GiB): zipf over 1,000,000 words;
# distinct (1.2 GiB): uniform over 14,800,000 words, nearly all present.
#
# Exit status: 0 when every job succeeded and every pair of outputs agreed;
# 1 otherwise (the table is still written: a failure is a result); 2 on bad
# usage. Wall time is the client's (submit to exit, JVM or ebb start
# included); "RM s" is the RM's finish minus start time. The machine is
# measured as it is: say beside the numbers what else ran on it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

# shellcheck source=scripts/bench/lib.sh
source "$here/lib.sh"
usage() { sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# -- options
sizes="1m,256m,1g,distinct"
runs=3
mode=full
confdir=""
rundir="/tmp/ebb-bench-mc"
keep_cluster=""
out=""
work="/tmp/ebb-bench"
hdfs_dir="/bench"
clean=""
ebb_worker_mb=1024
ebb_task_mb=256
ebb_am_mb=512
# Small DAGs in the AM's container (ebb.am.uber.enabled; off by default in
# ebb, as MapReduce's uber mode, whose stock settings the MR side keeps):
# the 1m word count qualifies, the larger inputs do not, and pay for the
# AM container's larger size (ebb.am.uber.memory.mb on top of the AM's).
ebb_uber=on
ebb_sets=()
mr_sets=()
job_timeout=3600
while (($# > 0)); do
  case "$1" in
    --quick) mode=quick; sizes="1m,256m"; runs=1 ;;
    --smoke) mode=smoke; sizes="1m"; runs=1 ;;
    --sizes) sizes="${2:?--sizes needs a list}"; shift ;;
    --runs) runs="${2:?--runs needs a number}"; shift ;;
    --conf-dir) confdir="${2:?--conf-dir needs a directory}"; shift ;;
    --rundir) rundir="${2:?--rundir needs a directory}"; shift ;;
    --keep-cluster) keep_cluster=1 ;;
    --out) out="${2:?--out needs a file}"; shift ;;
    --work) work="${2:?--work needs a directory}"; shift ;;
    --hdfs-dir) hdfs_dir="${2:?--hdfs-dir needs a path}"; shift ;;
    --clean) clean=1 ;;
    --ebb-worker-mb) ebb_worker_mb="${2?--ebb-worker-mb needs a number (empty: leave it to ebb)}"; shift ;;
    --ebb-task-mb) ebb_task_mb="${2?--ebb-task-mb needs a number (empty: leave it to ebb)}"; shift ;;
    --ebb-am-mb) ebb_am_mb="${2:?--ebb-am-mb needs a number}"; shift ;;
    --ebb-uber) ebb_uber="${2:?--ebb-uber needs on or off}"; shift ;;
    --ebb-set) ebb_sets+=(--set "${2:?--ebb-set needs key=value}"); shift ;;
    --mr-set) mr_sets+=(-D "${2:?--mr-set needs key=value}"); shift ;;
    --timeout) job_timeout="${2:?--timeout needs seconds}"; shift ;;
    -h | --help) usage ;;
    *) say "unknown argument $1"; usage ;;
  esac
  shift
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { say "--runs $runs: want a positive integer"; exit 2; }
[[ "$job_timeout" =~ ^[1-9][0-9]*$ ]] || { say "--timeout $job_timeout: want seconds"; exit 2; }
for n in "$ebb_worker_mb" "$ebb_task_mb"; do
  [[ -z "$n" || "$n" =~ ^[1-9][0-9]*$ ]] || { say "--ebb-worker-mb/--ebb-task-mb $n: want MB or empty"; exit 2; }
done
[[ "$ebb_uber" == on || "$ebb_uber" == off ]] || { say "--ebb-uber $ebb_uber: want on or off"; exit 2; }
uber_set=(--set "ebb.am.uber.enabled=$([[ "$ebb_uber" == on ]] && echo true || echo false)")
[[ "$hdfs_dir" == /?* ]] || { say "--hdfs-dir $hdfs_dir: want an absolute HDFS path"; exit 2; }

# input_spec NAME -> "BYTES DIST VOCAB SEED" (benchgen flags).
input_spec() {
  case "$1" in
    1m) echo "1048576 zipf 1000000 1" ;;
    256m) echo "268435456 zipf 1000000 2" ;;
    1g) echo "1073741824 zipf 1000000 3" ;;
    distinct) echo "1288490189 uniform 14800000 4" ;;
    *) return 1 ;;
  esac
}
IFS=, read -r -a size_list <<<"$sizes"
for s in "${size_list[@]}"; do
  input_spec "$s" >/dev/null || { say "--sizes: unknown size '$s' (want 1m, 256m, 1g, distinct)"; exit 2; }
done

mkdir -p "$work"
work="$(cd "$work" && pwd)"
out="${out:-$work/mr-vs-ebb.md}"
tsv="${out%.md}.tsv"
log="$work/bench.log"
: >"$log"
say "work dir $work (log: $log)"

# -- tools, the build and the cluster (lib.sh)
bench_tools
bench_build
go build -o "$work/benchgen" "$repo/scripts/bench/benchgen" >>"$log" 2>&1 || die "go build benchgen failed (see $log)"
bench_cluster
mr_opts

# -- inputs
# ensure_input NAME: the input's file in HDFS, generated once (its name
# carries its parameters, and -put renames into place only when complete).
ensure_input() {
  local name="$1" bytes dist vocab seed dir file
  read -r bytes dist vocab seed <<<"$(input_spec "$name")"
  dir="$hdfs_dir/input/$name"
  file="$dir/words-$bytes-$dist-$vocab-$seed.txt"
  if fs -test -e "$file" 2>>"$log"; then
    say "input $name: reusing $file"
  else
    say "input $name: generating $bytes bytes ($dist over $vocab words, seed $seed) into $file"
    fs -rm -r -f -skipTrash "$dir" >>"$log" 2>&1
    fs -mkdir -p "$dir" >>"$log" 2>&1
    "$work/benchgen" -bytes "$bytes" -dist "$dist" -vocab "$vocab" -seed "$seed" |
      fs -put - "$file" >>"$log" 2>&1 || die "writing $file failed (see $log)"
  fi
  echo "$file"
}

# mr_splits FILE: how many maps MapReduce's FileInputFormat makes of one file
# (a split per block, the last one up to 1.1 blocks), from its length and
# block size.
mr_splits() {
  local len block
  read -r len block <<<"$(fs -stat '%b %o' "$1" 2>>"$log")"
  awk -v len="$len" -v block="$block" 'BEGIN {
    n = 0; rest = len
    while (rest / block > 1.1) { n++; rest -= block }
    if (rest > 0) n++
    print n }'
}

# -- one job each

# mr_job INPUT_DIR OUTPUT_DIR RUNLOG: MapReduce's own WordCount, 2 reducers,
# stock settings beyond lib.sh's mr_opts (what Java 17 and this machine need).
mr_job() {
  timeout "$job_timeout" "$java" $opens -cp "$confdir:$here/target/classes:$jars" \
    org.apache.hadoop.examples.WordCount "${mr_d[@]}" -D mapreduce.job.reduces=2 \
    ${mr_sets[@]+"${mr_sets[@]}"} \
    "$1" "$2" >"$3" 2>&1
}

# ebb_job INPUT_DIR OUTPUT_DIR MAPS RUNLOG: ebb's word count as a DAG.
ebb_job() {
  local spec="${4%.log}.yaml"
  {
    echo "name: bench-wordcount"
    echo "containerGroup: {name: bench-wc${ebb_worker_mb:+, workerMemoryMB: $ebb_worker_mb}}"
    echo "vertices:"
    echo "  - {name: map, command: [ebb, task, wc-map], parallelism: $3${ebb_task_mb:+, memoryMB: $ebb_task_mb}, inputs: [\"$namenode$1\"]}"
    echo "  - {name: reduce, command: [ebb, task, wc-reduce], parallelism: 2${ebb_task_mb:+, memoryMB: $ebb_task_mb}}"
    echo "edges:"
    echo "  - {from: map, to: reduce, type: scatter-gather}"
  } >"$spec"
  HADOOP_CONF_DIR="$confdir" timeout "$job_timeout" "$work/ebb" submit "$spec" \
    --output "$namenode$2" --set "mr3.am.resource.memory.mb=$ebb_am_mb" "${uber_set[@]}" \
    ${ebb_sets[@]+"${ebb_sets[@]}"} >"$4" 2>&1
}

# digest OUTPUT_DIR NAME: normalise every part file to word<TAB>count lines,
# sort them bytewise, and print "sha256 distinct-words total-words".
digest() {
  local sorted="$work/$2.sorted"
  fs -cat "$1/*" 2>>"$log" | awk 'NF { print $1 "\t" $2 }' |
    LC_ALL=C sort -S 256M -T "$work" >"$sorted"
  echo "$(sha256sum <"$sorted" | cut -c1-16) $(wc -l <"$sorted") $(awk -F'\t' '{ s += $2 } END { printf "%d", s }' "$sorted")"
  rm -f "$sorted"
}

# run_one SYSTEM SIZE RUN ORDER INPUT MAPS: runs one job and appends its row.
run_one() {
  local sys="$1" size="$2" run="$3" order="$4" input="$5" maps="$6"
  local outdir="$hdfs_dir/output/$size/run-$run/$sys" runlog="$work/$size-run$run-$sys.log"
  local t0 t1 rc=0 app rep final="" mbs="" vcs="" rm_s="" wall cont dig=("" "" "")
  fs -rm -r -f -skipTrash "$outdir" >>"$log" 2>&1
  fs -mkdir -p "$(dirname "$outdir")" >>"$log" 2>&1
  say "$size run $run: $sys (maps $maps, reduces 2) ..."
  t0=$(now_ms)
  if [[ "$sys" == mr ]]; then
    mr_job "$(dirname "$input")" "$outdir" "$runlog" || rc=$?
    app="$(grep -o 'Submitted application application_[0-9]*_[0-9]*' "$runlog" | head -n 1 | awk '{print $3}')" || true
  else
    ebb_job "$(dirname "$input")" "$outdir" "$maps" "$runlog" || rc=$?
    app="$(grep -o 'submitted application application_[0-9]*_[0-9]*' "$runlog" | head -n 1 | awk '{print $3}')" || true
  fi
  t1=$(now_ms)
  wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1000 }')"
  if [[ -z "$app" ]]; then
    say "$size run $run: $sys did not submit an application (exit $rc); its output: $runlog"
    tail -n 20 "$runlog" >&2 || true
    final=NOT_SUBMITTED
  elif rep="$(jrun ebb.bench.AppReport "$app" 120 2>>"$log")"; then
    final="$(sed -n 's/^FINAL=//p' <<<"$rep")"
    mbs="$(sed -n 's/^MB_SECONDS=//p' <<<"$rep")"
    vcs="$(sed -n 's/^VCORE_SECONDS=//p' <<<"$rep")"
    rm_s="$(awk -v a="$(sed -n 's/^START_MS=//p' <<<"$rep")" -v b="$(sed -n 's/^FINISH_MS=//p' <<<"$rep")" \
      'BEGIN { printf "%.1f", (b - a) / 1000 }')"
  else
    final=NO_REPORT
  fi
  if [[ "$final" == SUCCEEDED && ! ("$mbs" =~ ^[0-9]+$ && "$vcs" =~ ^[0-9]+$ && -n "$rm_s") ]]; then
    final=INCOMPLETE_REPORT
  fi
  if [[ "$final" == SUCCEEDED && "$rc" != 0 ]]; then
    final="CLIENT_EXIT_$rc"
  fi
  cont="$(containers "${app:-none}")"
  if [[ "$final" == SUCCEEDED ]]; then
    read -r -a dig <<<"$(digest "$outdir" "$size-run$run-$sys")"
  else
    say "$size run $run: $sys ended $final (client exit $rc); its output: $runlog"
  fi
  say "$size run $run: $sys $final in ${wall} s (RM ${rm_s:-?} s), ${mbs:-?} MB-s, ${vcs:-?} vcore-s, $cont containers"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
    "$size" "$run" "$sys" "$order" "${app:-}" "$final" "$wall" "$rm_s" "$mbs" "$vcs" "$cont" "$maps" \
    "${dig[0]}" "${dig[1]}" "${dig[2]}" >>"$tsv.rows"
  fs -rm -r -f -skipTrash "$outdir" >>"$log" 2>&1 || true
}

# -- the runs
: >"$tsv.rows"
for size in "${size_list[@]}"; do
  input="$(ensure_input "$size")" || die "no input $size"
  maps="$(mr_splits "$input")"
  [[ "$maps" =~ ^[1-9][0-9]*$ ]] || die "cannot tell the split count of $input (got '$maps')"
  for ((run = 1; run <= runs; run++)); do
    # Alternate which system goes first, so neither always meets a cluster
    # warmed (page cache, JIT of the NodeManagers) by the other.
    if ((run % 2 == 1)); then order=(mr ebb); else order=(ebb mr); fi
    run_one "${order[0]}" "$size" "$run" 1 "$input" "$maps"
    run_one "${order[1]}" "$size" "$run" 2 "$input" "$maps"
  done
done

# -- the table. agree: both outputs present and equal as word->count sets.
header="size	run	system	first	app	final	wall_s	rm_s	mb_s	vcore_s	containers	maps	digest	distinct	words	agree"
awk -F'\t' -v OFS='\t' -v header="$header" '
  { row[NR] = $0; key = $1 SUBSEP $2; if ($6 == "SUCCEEDED") dig[key, $3] = "x" $13 }
  END {
    print header
    for (i = 1; i <= NR; i++) {
      split(row[i], f, "\t"); key = f[1] SUBSEP f[2]
      a = dig[key, "mr"]; b = dig[key, "ebb"]
      agree = (a == "" || b == "") ? "n/a" : (a == b ? "yes" : "NO")
      print row[i], agree
    }
  }' "$tsv.rows" >"$tsv"
rm -f "$tsv.rows"

worker_desc="${ebb_worker_mb:+$ebb_worker_mb MB}"
task_desc="${ebb_task_mb:+$ebb_task_mb MB}"
worker_desc="${worker_desc:-sized by ebb}"
task_desc="${task_desc:-sized by ebb}"
{
  echo "MapReduce WordCount vs ebb word count, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
  echo "Cluster: $confdir. ebb $rev: AM ${ebb_am_mb} MB, small DAGs in the AM's container $ebb_uber, workers $worker_desc, tasks $task_desc. MapReduce: stock settings, 2 reducers."
  echo
  echo "| input | run | system | wall s | RM s | MB-seconds | vcore-seconds | containers | maps | distinct words | final | outputs agree |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|"
  awk -F'\t' 'NR > 1 {
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, ($3 == "mr" ? "MapReduce" : "ebb"), $7, $8, $9, $10, $11, $12, $14, $6, $16 }' "$tsv"
  echo
  echo "Per input, medians over runs (MapReduce / ebb):"
  echo
  echo "| input | MR wall s | ebb wall s | wall MR/ebb | MR MB-s | ebb MB-s | MB-s MR/ebb |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  awk -F'\t' '
    function median(s,   a, n, i, j, t) {
      n = split(s, a, " "); if (n == 0) return ""
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function ratio(x, y) { return (x == "" || y == "" || y + 0 == 0) ? "n/a" : sprintf("%.1f×", x / y) }
    NR > 1 && $6 == "SUCCEEDED" { w[$1, $3] = w[$1, $3] " " $7; m[$1, $3] = m[$1, $3] " " $9 }
    NR > 1 && !($1 in seen) { seen[$1] = 1; order[++n] = $1 }
    END {
      for (i = 1; i <= n; i++) {
        s = order[i]
        mw = median(w[s, "mr"]); ew = median(w[s, "ebb"]); mm = median(m[s, "mr"]); em = median(m[s, "ebb"])
        printf "| %s | %s | %s | %s | %s | %s | %s |\n", s, mw == "" ? "failed" : mw, ew == "" ? "failed" : ew, ratio(mw, ew), mm == "" ? "failed" : mm, em == "" ? "failed" : em, ratio(mm, em)
      }
    }' "$tsv"
} >"$out"

cat "$out"
say "table: $out; rows: $tsv; job logs: $work"
if awk -F'\t' 'NR > 1 && ($6 != "SUCCEEDED" || $16 != "yes") { bad = 1 } END { exit !bad }' "$tsv"; then
  say "some job failed or some outputs differ (see the table)"
  exit 1
fi
