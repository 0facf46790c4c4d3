#!/usr/bin/env bash
# MapReduce's TeraSort vs ebb's total-order sort (tera-sample, tera-map,
# tera-reduce) on the same TeraGen input and YARN cluster, side by side,
# each output checked by Hadoop's TeraValidate (issue #27, item 3).
#
# usage: scripts/bench/terasort.sh [--records N | --smoke] [--maps M] [--reduces R] [--runs N]
#                                  [--conf-dir DIR | --rundir DIR [--keep-cluster]]
#                                  [--out FILE.md] [--work DIR] [--hdfs-dir PATH] [--clean] [--tamper]
#                                  [--ebb-map-mb N] [--ebb-reduce-mb N] [--ebb-worker-mb N] [--ebb-am-mb N]
#                                  [--ebb-set k=v]... [--mr-set k=v]... [--timeout SECS]
#
# What it does, in order:
#  1. builds ebb and the Java side (scripts/bench/pom.xml: TeraGen, TeraSort,
#     TeraValidate and TeraChecksum come in hadoop-mapreduce-examples; jars
#     in ~/.m2, never committed) and starts the minicluster unless --conf-dir
#     names a running one (lib.sh);
#  2. runs TeraGen for N records (default 10,000,000: 1 GB) with M maps
#     (default: one file per 128 MiB block), into HDFS, once (a directory
#     named after N and M is reused), and TeraChecksum (TeraSum) over it;
#  3. for each run: MapReduce's TeraSort (R reduces, stock settings except
#     what Java 17 and this machine need, see lib.sh's mr_opts) and ebb's
#     sort (ebb submit of a sample -> map -> reduce DAG like
#     examples/terasort.yaml: min(10, M) sample tasks, M maps, R reduces),
#     alternating which goes first;
#  4. TeraValidate on each output: "accepted" when its report has no error
#     line and its checksum equals TeraSum's of the input; with --tamper,
#     also on a copy of ebb's first output with part-00000 and part-00001
#     swapped, which must be rejected (the check that the check checks);
#  5. the RM's report of each application (MB-seconds, vcore-seconds, its
#     start to finish) and its containers, into a markdown table (--out,
#     default WORK/terasort.md) and the rows as .tsv beside it.
#
# --smoke: 100,000 records (10 MB), 2 maps, 2 reduces, 1 run, --tamper.
# Exit status: 0 when every job succeeded and TeraValidate accepted every
# output (and rejected the tampered one); 1 otherwise (the table is still
# written); 2 on bad usage. Wall time is the client's (submit to exit, JVM
# or ebb start included). Say beside the numbers what else ran on the box.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=scripts/bench/lib.sh
source "$here/lib.sh"
usage() { sed -n '6,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

records=10000000
maps=""
reduces=4
runs=1
confdir=""
rundir="/tmp/ebb-bench-mc"
keep_cluster=""
out=""
work="/tmp/ebb-bench-terasort"
hdfs_dir="/bench-terasort"
clean=""
tamper=""
ebb_map_mb=256
ebb_reduce_mb=1024
ebb_worker_mb=""
ebb_am_mb=512
ebb_sets=()
mr_sets=()
job_timeout=3600
while (($# > 0)); do
  case "$1" in
    --records) records="${2:?--records needs a number}"; shift ;;
    --smoke) records=100000; maps=2; reduces=2; runs=1; tamper=1 ;;
    --maps) maps="${2:?--maps needs a number}"; shift ;;
    --reduces) reduces="${2:?--reduces needs a number}"; shift ;;
    --runs) runs="${2:?--runs needs a number}"; shift ;;
    --conf-dir) confdir="${2:?--conf-dir needs a directory}"; shift ;;
    --rundir) rundir="${2:?--rundir needs a directory}"; shift ;;
    --keep-cluster) keep_cluster=1 ;;
    --out) out="${2:?--out needs a file}"; shift ;;
    --work) work="${2:?--work needs a directory}"; shift ;;
    --hdfs-dir) hdfs_dir="${2:?--hdfs-dir needs a path}"; shift ;;
    --clean) clean=1 ;;
    --tamper) tamper=1 ;;
    --ebb-map-mb) ebb_map_mb="${2:?--ebb-map-mb needs a number}"; shift ;;
    --ebb-reduce-mb) ebb_reduce_mb="${2:?--ebb-reduce-mb needs a number}"; shift ;;
    --ebb-worker-mb) ebb_worker_mb="${2?--ebb-worker-mb needs a number (empty: leave it to ebb)}"; shift ;;
    --ebb-am-mb) ebb_am_mb="${2:?--ebb-am-mb needs a number}"; shift ;;
    --ebb-set) ebb_sets+=(--set "${2:?--ebb-set needs key=value}"); shift ;;
    --mr-set) mr_sets+=(-D "${2:?--mr-set needs key=value}"); shift ;;
    --timeout) job_timeout="${2:?--timeout needs seconds}"; shift ;;
    -h | --help) usage ;;
    *) say "unknown argument $1"; usage ;;
  esac
  shift
done
for v in records reduces runs job_timeout ebb_map_mb ebb_reduce_mb ebb_am_mb; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || { say "--${v//_/-} ${!v}: want a positive integer"; exit 2; }
done
[[ -z "$maps" || "$maps" =~ ^[1-9][0-9]*$ ]] || { say "--maps $maps: want a positive integer"; exit 2; }
[[ -z "$ebb_worker_mb" || "$ebb_worker_mb" =~ ^[1-9][0-9]*$ ]] || { say "--ebb-worker-mb $ebb_worker_mb: want MB or empty"; exit 2; }
[[ "$hdfs_dir" == /?* ]] || { say "--hdfs-dir $hdfs_dir: want an absolute HDFS path"; exit 2; }
# One TeraGen file per 128 MiB block, so MapReduce makes one split per file
# and both systems run the same number of maps.
maps="${maps:-$(((records * 100 + 134217727) / 134217728))}"
samples=$((maps < 10 ? maps : 10))

mkdir -p "$work"
work="$(cd "$work" && pwd)"
out="${out:-$work/terasort.md}"
tsv="${out%.md}.tsv"
log="$work/bench.log"
: >"$log"
say "work dir $work (log: $log)"
bench_tools
bench_build
bench_cluster
mr_opts

tera() { # tera CLASS ARGS...: one of the examples' terasort programs as a job
  local class="$1"
  shift
  timeout "$job_timeout" "$java" $opens -cp "$confdir:$here/target/classes:$jars" \
    "org.apache.hadoop.examples.terasort.$class" "${mr_d[@]}" ${mr_sets[@]+"${mr_sets[@]}"} "$@"
}

# -- the input and its checksum
input="$hdfs_dir/input/teragen-$records-$maps"
if fs -test -e "$input/_SUCCESS" 2>>"$log"; then
  say "input: reusing $input"
else
  say "input: TeraGen $records records with $maps maps into $input"
  fs -rm -r -f -skipTrash "$input" >>"$log" 2>&1
  fs -mkdir -p "$(dirname "$input")" >>"$log" 2>&1
  tera TeraGen -D "mapreduce.job.maps=$maps" "$records" "$input" >"$work/teragen.log" 2>&1 ||
    die "TeraGen failed (see $work/teragen.log)"
fi
sum_dir="$hdfs_dir/input/terasum-$records-$maps"
if ! fs -test -e "$sum_dir/_SUCCESS" 2>>"$log"; then
  say "input: TeraSum into $sum_dir"
  fs -rm -r -f -skipTrash "$sum_dir" >>"$log" 2>&1
  tera TeraChecksum "$input" "$sum_dir" >"$work/terasum.log" 2>&1 || die "TeraSum failed (see $work/terasum.log)"
fi
# TeraSum writes the checksum alone on its line (TeraValidate: "checksum\t" first).
input_sum="$(fs -cat "$sum_dir/part-r-*" 2>>"$log" | awk 'NF { print $NF; exit }')"
[[ -n "$input_sum" ]] || die "no checksum in $sum_dir"
say "input checksum $input_sum"

# validate DIR NAME: TeraValidate on DIR; prints "accepted", "REJECTED"
# (error lines in the report) or "CHECKSUM_MISMATCH"; the report is kept
# in WORK/NAME-validate.txt.
validate() {
  local report="$hdfs_dir/validate/$2" text="$work/$2-validate.txt" sum errors
  fs -rm -r -f -skipTrash "$report" >>"$log" 2>&1
  fs -mkdir -p "$(dirname "$report")" >>"$log" 2>&1
  if ! tera TeraValidate "$1" "$report" >"$work/$2-validate.log" 2>&1; then
    echo VALIDATE_FAILED
    return
  fi
  fs -cat "$report/part-r-*" >"$text" 2>>"$log" || true
  errors="$(grep -c '^error' "$text" || true)"
  sum="$(awk '$1 == "checksum" { print $2 }' "$text")"
  if ((errors > 0)); then
    echo REJECTED
  elif [[ "$sum" != "$input_sum" ]]; then
    echo CHECKSUM_MISMATCH
  else
    echo accepted
  fi
}

ebb_job() { # ebb_job OUTPUT_DIR RUNLOG
  local spec="${2%.log}.yaml" in="\"$namenode$input/part-m-*\""
  {
    echo "name: bench-terasort"
    echo "containerGroup: {name: bench-tera${ebb_worker_mb:+, workerMemoryMB: $ebb_worker_mb}}"
    echo "vertices:"
    echo "  - {name: sample, command: [ebb, task, tera-sample], parallelism: $samples, memoryMB: 128, inputs: [$in], recordLength: 100}"
    echo "  - {name: map, command: [ebb, task, tera-map], parallelism: $maps, memoryMB: $ebb_map_mb, inputs: [$in], recordLength: 100}"
    echo "  - {name: reduce, command: [ebb, task, tera-reduce], parallelism: $reduces, memoryMB: $ebb_reduce_mb}"
    echo "edges:"
    echo "  - {from: sample, to: map, type: broadcast}"
    echo "  - {from: map, to: reduce, type: scatter-gather}"
  } >"$spec"
  HADOOP_CONF_DIR="$confdir" timeout "$job_timeout" "$work/ebb" submit "$spec" \
    --output "$namenode$1" --set "mr3.am.resource.memory.mb=$ebb_am_mb" \
    ${ebb_sets[@]+"${ebb_sets[@]}"} >"$2" 2>&1
}

# run_one SYSTEM RUN ORDER: one sort, its report and its validation.
run_one() {
  local sys="$1" run="$2" order="$3"
  local outdir="$hdfs_dir/output/run-$run/$sys" runlog="$work/run$run-$sys.log"
  local t0 t1 rc=0 app="" final mbs vcs rm_s wall cont verdict="" tampered=""
  fs -rm -r -f -skipTrash "$outdir" >>"$log" 2>&1
  fs -mkdir -p "$(dirname "$outdir")" >>"$log" 2>&1
  say "run $run: $sys ($records records, $maps maps, $reduces reduces) ..."
  t0=$(now_ms)
  if [[ "$sys" == mr ]]; then
    tera TeraSort -D "mapreduce.job.reduces=$reduces" "$input" "$outdir" >"$runlog" 2>&1 || rc=$?
    app="$(grep -o 'Submitted application application_[0-9]*_[0-9]*' "$runlog" | head -n 1 | awk '{print $3}')" || true
  else
    ebb_job "$outdir" "$runlog" || rc=$?
    app="$(grep -o 'submitted application application_[0-9]*_[0-9]*' "$runlog" | head -n 1 | awk '{print $3}')" || true
  fi
  t1=$(now_ms)
  wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1000 }')"
  if [[ -z "$app" ]]; then
    say "run $run: $sys did not submit an application (exit $rc); its output: $runlog"
    tail -n 20 "$runlog" >&2 || true
    read -r final mbs vcs rm_s <<<"NOT_SUBMITTED ? ? ?"
  else
    read -r final mbs vcs rm_s <<<"$(app_report "$app")"
  fi
  [[ "$final" == SUCCEEDED && "$rc" != 0 ]] && final="CLIENT_EXIT_$rc"
  cont="$(containers "${app:-none}")"
  if [[ "$final" == SUCCEEDED ]]; then
    verdict="$(validate "$outdir" "run$run-$sys")"
    if [[ -n "$tamper" && "$sys" == ebb && "$run" == 1 ]]; then
      tampered="$(tamper_check "$outdir")"
    fi
  else
    say "run $run: $sys ended $final (client exit $rc); its output: $runlog"
  fi
  say "run $run: $sys $final in ${wall} s (RM $rm_s s), $mbs MB-s, $vcs vcore-s, $cont containers; TeraValidate: ${verdict:-not run}${tampered:+; swapped files: $tampered}"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
    "$records" "$run" "$sys" "$order" "${app:-}" "$final" "$wall" "$rm_s" "$mbs" "$vcs" "$cont" \
    "$maps" "$reduces" "${verdict:-}" "${tampered:-}" >>"$tsv.rows"
}

# tamper_check DIR: TeraValidate on a copy of DIR with its first two part
# files swapped, which orders the key ranges wrongly; prints its verdict,
# which must be REJECTED.
tamper_check() {
  local copy="$hdfs_dir/output/tampered" parts
  fs -rm -r -f -skipTrash "$copy" >>"$log" 2>&1
  fs -mkdir -p "$copy" >>"$log" 2>&1
  mapfile -t parts < <(fs -ls -C "$1/part-*" 2>>"$log" | sort)
  if ((${#parts[@]} < 2)); then
    echo "n/a"
    return
  fi
  fs -cp "${parts[0]}" "$copy/$(basename "${parts[1]}")" >>"$log" 2>&1
  fs -cp "${parts[1]}" "$copy/$(basename "${parts[0]}")" >>"$log" 2>&1
  local p
  for p in "${parts[@]:2}"; do fs -cp "$p" "$copy/" >>"$log" 2>&1; done
  validate "$copy" tampered
}

: >"$tsv.rows"
for ((run = 1; run <= runs; run++)); do
  # Alternate which system goes first, so neither always meets a cluster
  # warmed (page cache, JIT of the NodeManagers) by the other.
  if ((run % 2 == 1)); then order=(mr ebb); else order=(ebb mr); fi
  run_one "${order[0]}" "$run" 1
  run_one "${order[1]}" "$run" 2
done

header="records	run	system	first	app	final	wall_s	rm_s	mb_s	vcore_s	containers	maps	reduces	teravalidate	tampered"
{ echo "$header"; cat "$tsv.rows"; } >"$tsv"
rm -f "$tsv.rows"
{
  echo "MapReduce TeraSort vs ebb's sort, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
  echo "Cluster: $confdir. Input: TeraGen $records records ($maps files), checksum $input_sum. ebb $rev: AM ${ebb_am_mb} MB, maps ${ebb_map_mb} MB, reduces ${ebb_reduce_mb} MB, workers ${ebb_worker_mb:-sized by ebb}. MapReduce: stock settings, $reduces reduces."
  echo
  echo "| records | run | system | wall s | RM s | MB-seconds | vcore-seconds | containers | maps | reduces | final | TeraValidate |"
  echo "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|"
  awk -F'\t' 'NR > 1 {
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%s |\n", $1, $2, ($3 == "mr" ? "MapReduce TeraSort" : "ebb"),
      $7, $8, $9, $10, $11, $12, $13, $6, $14, ($15 == "" ? "" : "; swapped parts: " $15) }' "$tsv"
  echo
  awk -F'\t' 'NR > 1 && $6 == "SUCCEEDED" { w[$3] += $7; m[$3] += $9; n[$3]++ }
    END {
      if (n["mr"] && n["ebb"])
        printf "Mean over runs: MapReduce %.1f s, ebb %.1f s (%.1f× faster); MB-seconds %.0f vs %.0f (%.1f× fewer).\n",
          w["mr"] / n["mr"], w["ebb"] / n["ebb"], (w["mr"] / n["mr"]) / (w["ebb"] / n["ebb"]),
          m["mr"] / n["mr"], m["ebb"] / n["ebb"], (m["mr"] / n["mr"]) / (m["ebb"] / n["ebb"])
    }' "$tsv"
} >"$out"

cat "$out"
say "table: $out; rows: $tsv; job logs and TeraValidate reports: $work"
if awk -F'\t' 'NR > 1 && ($6 != "SUCCEEDED" || $14 != "accepted" || ($15 != "" && $15 != "REJECTED")) { bad = 1 } END { exit !bad }' "$tsv"; then
  say "some job failed, or TeraValidate did not accept an output (or accepted the tampered one): see the table"
  exit 1
fi
