#!/usr/bin/env bash
# Hadoop Streaming vs ebb streaming: the same word count — awk scripts, and
# Python scripts — run by Hadoop Streaming 3.4.2 (a MapReduce job) and by
# `ebb streaming` (an ebb application) with the same command line, on the same
# input, on the same YARN cluster, side by side (issue #34, item 4).
#
# usage: scripts/bench/streaming.sh [--size BYTES] [--tools awk,python] [--systems hadoop,ebb] [--reduces N] [--task-mb MB]
#                                   [--conf-dir DIR | --rundir DIR [--keep-cluster]]
#                                   [--out FILE.md] [--work DIR] [--hdfs-dir PATH] [--timeout SECS]
#
#  1. builds ebb, benchgen and the Java side (scripts/bench/pom.xml for
#     AppReport; streaming/testdata/hadoop/pom.xml for hadoop-streaming 3.4.2);
#  2. starts the minicluster (or uses --conf-dir's, and leaves it running);
#  3. generates the input (zipf over 1,000,000 words, seeded) into HDFS once;
#  4. for each tool, runs Hadoop Streaming, then ebb streaming (--systems: one
#     alone, whose output is then not compared), both with
#     -D mapreduce.framework.name=yarn, -D mapreduce.job.reduces=N (2) and
#     -files mapper,reducer;
#  5. reads the ResourceManager's report of each application (MB-seconds,
#     vcore-seconds, run time), counts its containers, sums the spills ebb's
#     workers logged, samples the peak resident memory of Hadoop's task JVMs
#     and of ebb's workers (lib.sh's rss_watch), and compares the two outputs
#     byte for byte (the part files, in order);
#  6. prints a markdown table and writes it to --out (WORK/streaming.md).
#
# --task-mb sets both systems' map and reduce task memory
# (mapreduce.{map,reduce}.memory.mb; default: each system's own default), so
# a large input with small tasks shows the worker's RSS stays within them.
#
# Default size 1 GiB. Exit status: 0 when every job succeeded and every pair
# of outputs is identical; 1 otherwise (the table is still written); 2 on
# bad usage. Wall time is the client's (submit to exit, JVM or ebb start
# included). Say beside the numbers what else ran on the machine.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

# shellcheck source=scripts/bench/lib.sh
source "$here/lib.sh"
usage() { sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

size=1073741824
tools="awk,python"
systems="hadoop,ebb"
reduces=2
task_mb=""
confdir=""
rundir="/tmp/ebb-bench-mc"
keep_cluster=""
out=""
work="/tmp/ebb-bench-streaming"
hdfs_dir="/bench-streaming"
clean=""
job_timeout=3600
while (($# > 0)); do
  case "$1" in
    --size) size="${2:?--size needs bytes}"; shift ;;
    --tools) tools="${2:?--tools needs a list}"; shift ;;
    --systems) systems="${2:?--systems needs a list}"; shift ;;
    --reduces) reduces="${2:?--reduces needs a number}"; shift ;;
    --task-mb) task_mb="${2:?--task-mb needs megabytes}"; shift ;;
    --conf-dir) confdir="${2:?--conf-dir needs a directory}"; shift ;;
    --rundir) rundir="${2:?--rundir needs a directory}"; shift ;;
    --keep-cluster) keep_cluster=1 ;;
    --out) out="${2:?--out needs a file}"; shift ;;
    --work) work="${2:?--work needs a directory}"; shift ;;
    --hdfs-dir) hdfs_dir="${2:?--hdfs-dir needs a path}"; shift ;;
    --timeout) job_timeout="${2:?--timeout needs seconds}"; shift ;;
    -h | --help) usage ;;
    *) say "unknown argument $1"; usage ;;
  esac
  shift
done
[[ "$size" =~ ^[1-9][0-9]*$ ]] || { say "--size $size: want a number of bytes"; exit 2; }
[[ "$reduces" =~ ^[1-9][0-9]*$ ]] || { say "--reduces $reduces: want a positive integer"; exit 2; }
[[ -z "$task_mb" || "$task_mb" =~ ^[1-9][0-9]*$ ]] || { say "--task-mb $task_mb: want a positive number of megabytes"; exit 2; }
[[ "$hdfs_dir" == /?* ]] || { say "--hdfs-dir $hdfs_dir: want an absolute HDFS path"; exit 2; }
IFS=, read -r -a tool_list <<<"$tools"
IFS=, read -r -a system_list <<<"$systems"
for t in "${system_list[@]}"; do
  [[ "$t" == hadoop || "$t" == ebb ]] || { say "--systems: unknown system '$t' (want hadoop, ebb)"; exit 2; }
done
for t in "${tool_list[@]}"; do
  [[ "$t" == awk || "$t" == python ]] || { say "--tools: unknown tool '$t' (want awk, python)"; exit 2; }
done

mkdir -p "$work"
work="$(cd "$work" && pwd)"
out="${out:-$work/streaming.md}"
log="$work/bench.log"
: >"$log"
say "work dir $work (log: $log)"

bench_tools
bench_build
go build -o "$work/benchgen" "$repo/scripts/bench/benchgen" >>"$log" 2>&1 || die "go build benchgen failed (see $log)"
ref="$repo/streaming/testdata/hadoop"
if [[ ! -f "$ref/target/classpath.txt" ]]; then
  say "building the Hadoop Streaming reference ($ref/pom.xml)"
  mvn -o -q -B -f "$ref/pom.xml" compile >>"$log" 2>&1 || mvn -q -B -f "$ref/pom.xml" compile >>"$log" 2>&1 ||
    die "maven build of $ref failed (see $log)"
fi
streaming_jar="$(tr ':' '\n' <"$ref/target/classpath.txt" | grep '/hadoop-streaming-[0-9.]*\.jar$' | head -n 1)"
[[ -f "$streaming_jar" ]] || die "no hadoop-streaming jar in $ref/target/classpath.txt"
jars="$jars:$streaming_jar"
bench_cluster
mr_opts
# The cluster's own directory: its NodeManagers' containers run under it.
cluster_dir="$(cd "$confdir/.." && pwd -P)"

# -- the scripts, as a tutorial's
mkdir -p "$work/scripts"
cat >"$work/scripts/mapper.awk" <<'AWK'
#!/usr/bin/awk -f
{ for (i = 1; i <= NF; i++) print $i "\t1" }
AWK
cat >"$work/scripts/reducer.awk" <<'AWK'
#!/usr/bin/awk -f
BEGIN { FS = "\t" }
$1 != w { if (NR > 1) print w "\t" n; w = $1; n = 0 }
{ n += $2 }
END { if (NR > 0) print w "\t" n }
AWK
cp "$repo/examples/streaming/mapper.py" "$work/scripts/mapper.py"
cp "$repo/examples/streaming/reducer.py" "$work/scripts/reducer.py"
chmod +x "$work/scripts/"*

# -- the input
input="$hdfs_dir/input/words-$size-zipf-1000000-5.txt"
if fs -test -e "$input" 2>>"$log"; then
  say "input: reusing $input"
else
  say "input: generating $size bytes into $input"
  fs -mkdir -p "$hdfs_dir/input" >>"$log" 2>&1
  "$work/benchgen" -bytes "$size" -dist zipf -vocab 1000000 -seed 5 | fs -put - "$input" >>"$log" 2>&1 ||
    die "writing $input failed (see $log)"
fi

# job_args TOOL OUTPUT: the streaming arguments both systems get.
job_args() {
  local m r
  case "$1" in
    awk) m=mapper.awk r=reducer.awk ;;
    python) m=mapper.py r=reducer.py ;;
  esac
  args=(-D mapreduce.framework.name=yarn -D "mapreduce.job.reduces=$reduces" -D "mapreduce.job.name=bench-$1"
    -files "$work/scripts/$m,$work/scripts/$r" -input "$namenode$input" -output "$namenode$2"
    -mapper "./$m" -reducer "./$r")
  if [[ -n "$task_mb" ]]; then
    args=(-D "mapreduce.map.memory.mb=$task_mb" -D "mapreduce.reduce.memory.mb=$task_mb" "${args[@]}")
  fi
}

rows=()
status=0
for tool in "${tool_list[@]}"; do
  for sys in "${system_list[@]}"; do
    outdir="$hdfs_dir/out/$tool-$sys"
    fs -rm -r -f -skipTrash "$outdir" >>"$log" 2>&1 || true
    job_args "$tool" "$outdir"
    runlog="$work/$tool-$sys.log"
    say "$tool: $sys streaming"
    # Peak resident memory of the task processes: Hadoop's task JVMs
    # (YarnChild, which hold the sort buffer), ebb's workers (likewise);
    # the programs they run (awk, python) are not counted on either side.
    if [[ "$sys" == hadoop ]]; then
      rss_watch '^[^ ]*java .*org[.]apache[.]hadoop[.]mapred[.]YarnChild' "$cluster_dir" "$work/$tool-$sys.rss"
    else
      rss_watch '^[^ ]*ebb worker' "$cluster_dir" "$work/$tool-$sys.rss"
    fi
    t0=$(now_ms)
    rc=0
    if [[ "$sys" == hadoop ]]; then
      timeout "$job_timeout" "$java" $opens -cp "$confdir:$here/target/classes:$jars" org.apache.hadoop.streaming.HadoopStreaming \
        "${mr_d[@]}" "${args[@]}" >"$runlog" 2>&1 || rc=$?
    else
      HADOOP_CONF_DIR="$confdir" EBB_MR3_AM_RESOURCE_MEMORY_MB=512 timeout "$job_timeout" "$work/ebb" streaming \
        "${args[@]}" >"$runlog" 2>&1 || rc=$?
    fi
    wall=$(( ($(now_ms) - t0) / 1000 ))
    rss_stop
    read -r rss_one rss_all <"$work/$tool-$sys.rss"
    app="$(grep -oiE 'submitted application application_[0-9]+_[0-9]+' "$runlog" | head -n 1 | awk '{print $3}' || true)"
    read -r final mbs vcs rm_s <<<"$(app_report "${app:-none}")"
    cont="$(containers "${app:-none}")"
    spills=n/a
    if [[ "$sys" == ebb && -n "$nm_log_dirs" && -n "$app" ]]; then
      spills=0
      IFS=, read -r -a dirs <<<"$nm_log_dirs"
      for d in "${dirs[@]}"; do
        [[ -d "$d/$app" ]] || continue
        n="$( (grep -rhoE 'spills=[0-9]+' "$d/$app" 2>/dev/null || true) | awk -F= '{s += $2} END {print s + 0}')"
        spills=$((spills + n))
      done
    fi
    [[ "$rc" == 0 ]] || status=1
    say "$tool $sys: exit $rc in $wall s (RM ${rm_s:-?} s), ${mbs:-?} MB-s, $cont containers, spills $spills, peak RSS $rss_one MB per task process, $rss_all MB together"
    rows+=("| $tool | $sys streaming | $rc | $wall | ${rm_s:-?} | ${mbs:-?} | ${vcs:-?} | $cont | $rss_one | $rss_all | $spills |")
    fs -cat "$outdir/part-*" >"$work/$tool-$sys.out" 2>>"$log" || true
  done
  if ((${#system_list[@]} < 2)); then
    agree="not compared (one system run)"
  elif cmp -s "$work/$tool-hadoop.out" "$work/$tool-ebb.out" && [[ -s "$work/$tool-hadoop.out" ]]; then
    agree="identical ($(wc -l <"$work/$tool-hadoop.out") lines)"
  else
    agree="DIFFER"
    status=1
  fi
  rows+=("| $tool | outputs | | | | | | | | | $agree |")
done

{
  echo "Hadoop Streaming 3.4.2 vs ebb streaming, word count of $size bytes (zipf over 1,000,000 words), $reduces reducers${task_mb:+, $task_mb MB tasks}, on $(hostname) (ebb $rev)"
  echo
  echo "| tool | system | exit | wall s | RM s | MB-seconds | vcore-seconds | containers | peak RSS per task process, MB | peak RSS together, MB | spills / outputs |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} | tee "$out"
exit "$status"
