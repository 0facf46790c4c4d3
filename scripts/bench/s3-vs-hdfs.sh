#!/usr/bin/env bash
# S3 vs HDFS: ebb's word count reading its input from and committing its
# output to S3, against the same DAG on HDFS (on YARN) and on local files
# (ebb local run), on the same machine (issue #35, item 5).
#
# usage: scripts/bench/s3-vs-hdfs.sh [--size BYTES] [--maps N] [--runs N]
#                                    [--s3-dir DIR] [--conf-dir DIR] [--work DIR]
#
#  --size   input bytes (default 1073741824, 1 GiB; benchgen's zipf text)
#  --maps   map tasks (default: one per 128 MiB); 2 reducers
#  --s3-dir a running scripts/s3server (default $EBB_TEST_S3_DIR, else one is
#           started in WORK/s3 and stopped at the end)
#  --conf-dir a running minicluster's HADOOP_CONF_DIR (default
#           $EBB_TEST_HADOOP_CONF_DIR); without one the YARN rows are skipped
#
# For each run and each of: local files -> local files (ebb local run),
# s3 -> s3 (ebb local run), hdfs -> hdfs (ebb submit), s3 -> s3 (ebb submit),
# it prints the wall time, the input read rate (input bytes / wall time: the
# splits' reads and everything else), the output's size, and for local runs
# the largest resident set of any `ebb worker` process (sampled every 0.2 s),
# which shows a split or a part file is streamed, not held whole. Outputs are
# compared as sorted word\tcount lines: every row must agree.
# Then, locally, the two halves apart: a read-only DAG (each map streams its
# split to /dev/null) from local files and from S3, and a write-only DAG (each
# task writes SIZE/MAPS bytes) to local files and to S3, each with its rate
# (bytes / wall time). The write-only S3 run's extra time over the files run
# is the multipart upload's; the script prints that rate too.
# Needs: go, the AWS CLI, curl (WebHDFS upload). Exit 0 when every run
# succeeded and agreed.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
size=1073741824 maps="" runs=1 s3dir="${EBB_TEST_S3_DIR:-}" confdir="${EBB_TEST_HADOOP_CONF_DIR:-}"
work="${TMPDIR:-/tmp}/ebb-s3-bench"
while (($#)); do
  case "$1" in
    --size) size="$2"; shift 2 ;;
    --maps) maps="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --s3-dir) s3dir="$2"; shift 2 ;;
    --conf-dir) confdir="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) echo "usage: see the head of $0" >&2; exit 2 ;;
  esac
done
say() { echo "bench: $*" >&2; }
[[ -n "$maps" ]] || maps=$(( (size + 134217727) / 134217728 ))
mkdir -p "$work"
work="$(cd "$work" && pwd)"
command -v aws >/dev/null || { say "the AWS CLI is missing (python3 -m pip install awscli)"; exit 2; }

started_s3=""
if [[ -z "$s3dir" ]]; then
  s3dir="$("$repo/scripts/s3server/start.sh" "$work/s3")"
  started_s3=1
fi
trap '[[ -z "$started_s3" ]] || "$repo/scripts/s3server/stop.sh" "$s3dir"' EXIT
set -a; source "$s3dir/s3.env"; set +a
export AWS_DEFAULT_REGION="$AWS_REGION"
awsc() { aws --endpoint-url "$S3_ENDPOINT" "$@"; }
mkdir -p "$work/conf"
cat >"$work/conf/mr3-site.xml" <<XML
<configuration>
<property><name>fs.s3a.endpoint</name><value>$S3_ENDPOINT</value></property>
<property><name>fs.s3a.path.style.access</name><value>true</value></property>
<property><name>fs.s3a.endpoint.region</name><value>$AWS_REGION</value></property>
</configuration>
XML

(cd "$repo" && go build -o "$work/ebb" ./cmd/ebb)
input="$work/input-$size.txt"
[[ -s "$input" ]] || (cd "$repo" && go run ./scripts/bench/benchgen -bytes "$size" >"$input")
bytes=$(stat -c %s "$input")
bucket="ebb-bench-$(date +%s)"
awsc s3 mb "s3://$bucket" >/dev/null
awsc s3 cp --only-show-errors "$input" "s3://$bucket/in/input.txt"

spec() { # spec INPUT -> a DAG file
  local f="$work/wc-$RANDOM.yaml"
  cat >"$f" <<YAML
name: s3bench
containerGroup: {name: b, workerMemoryMB: 1024}
vertices:
  - {name: map, command: [ebb, task, wc-map], parallelism: $maps, memoryMB: 512, inputs: ["$1"]}
  - {name: reduce, command: [ebb, task, wc-reduce], parallelism: 2, memoryMB: 512}
edges:
  - {from: map, to: reduce, type: scatter-gather}
YAML
  echo "$f"
}
# rss_watch: largest RSS (kB) of any `ebb worker` until the file $1 exists.
rss_watch() {
  local max=0 r
  while [[ ! -e "$1" ]]; do
    for r in $(ps -eo rss=,args= | awk '/ebb worker/ && !/awk/ {print $1}'); do ((r > max)) && max=$r; done
    sleep 0.2
  done
  echo "$max"
}
counts() { sort | awk -F'\t' 'NF==2' | md5sum | cut -c1-12; }

rows=() ref=""
row() { # row NAME SECONDS OUTPUT_BYTES RSS_KB SUM
  local rate
  rate=$(awk -v b="$bytes" -v s="$2" 'BEGIN { printf "%.1f", b / 1048576 / s }')
  rows+=("| $1 | $2 | $rate | $3 | $4 | $5 |")
  [[ -n "$ref" ]] || ref="$5"
  [[ "$5" == "$ref" ]] || { say "$1: the output differs ($5, want $ref)"; bad=1; }
}
bad=""
timed() { local t0; t0=$(date +%s.%N); "$@"; awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }' >"$work/secs"; }

for run in $(seq 1 "$runs"); do
  # local files -> local files
  out="$work/out-local-$run"; rm -rf "$out"; rm -f "$work/done"
  rss_watch "$work/done" >"$work/rss" &
  timed env HADOOP_CONF_DIR= EBB_CONF_DIR="$work/conf" PATH="$work:$PATH" "$work/ebb" local run "$(spec "$input")" --output "$out" >"$work/log" 2>&1 || { cat "$work/log" >&2; bad=1; }
  touch "$work/done"; wait
  row "local run: file -> file" "$(cat "$work/secs")" "$(cat "$out"/part-* | wc -c)" "$(cat "$work/rss")" "$(cat "$out"/part-* | counts)"
  # s3 -> s3, locally
  out="s3://$bucket/out-local-$run"; rm -f "$work/done"
  rss_watch "$work/done" >"$work/rss" &
  timed env HADOOP_CONF_DIR= EBB_CONF_DIR="$work/conf" PATH="$work:$PATH" "$work/ebb" local run "$(spec "s3://$bucket/in/*.txt")" --output "$out" >"$work/log" 2>&1 || { cat "$work/log" >&2; bad=1; }
  touch "$work/done"; wait
  rm -rf "$work/got"; awsc s3 cp --recursive --only-show-errors "$out" "$work/got"
  row "local run: s3 -> s3" "$(cat "$work/secs")" "$(cat "$work/got"/part-* | wc -c)" "$(cat "$work/rss")" "$(cat "$work/got"/part-* | counts)"
  [[ -n "$confdir" ]] || continue
  nn_http=$(sed -n 's/^NAMENODE_HTTP=//p' "$(dirname "$confdir")/cluster.env")
  nn=$(sed -n 's/^NAMENODE=//p' "$(dirname "$confdir")/cluster.env")
  hdir="/user/$(id -un)/ebb-s3-bench"
  if [[ $run == 1 ]]; then
    loc=$(curl -s -o /dev/null -w '%{redirect_url}' -X PUT "http://$nn_http/webhdfs/v1$hdir/input.txt?op=CREATE&overwrite=true&user.name=$(id -un)")
    curl -s -X PUT -T "$input" "$loc" >/dev/null
  fi
  curl -s -X DELETE "http://$nn_http/webhdfs/v1$hdir/out-$run?op=DELETE&recursive=true&user.name=$(id -un)" >/dev/null
  yarn_sets=(--set mr3.am.resource.memory.mb=512)
  timed env HADOOP_CONF_DIR="$confdir" EBB_CONF_DIR="$work/conf" "$work/ebb" submit "$(spec "$nn$hdir/input.txt")" --output "$nn$hdir/out-$run" "${yarn_sets[@]}" >"$work/log" 2>&1 || { cat "$work/log" >&2; bad=1; }
  rm -rf "$work/got"; mkdir -p "$work/got"
  for p in part-00000-00000 part-00000-00001 part-00000 part-00001; do
    curl -s -L "http://$nn_http/webhdfs/v1$hdir/out-$run/$p?op=OPEN&user.name=$(id -un)" -o "$work/got/$p" || true
    grep -q RemoteException "$work/got/$p" 2>/dev/null && rm -f "$work/got/$p"
  done
  row "ebb submit: hdfs -> hdfs" "$(cat "$work/secs")" "$(cat "$work/got"/part-* | wc -c)" "-" "$(cat "$work/got"/part-* | counts)"
  out="s3://$bucket/out-yarn-$run"
  timed env HADOOP_CONF_DIR="$confdir" EBB_CONF_DIR="$work/conf" "$work/ebb" submit "$(spec "s3://$bucket/in/*.txt")" --output "$out" "${yarn_sets[@]}" >"$work/log" 2>&1 || { cat "$work/log" >&2; bad=1; }
  rm -rf "$work/got"; awsc s3 cp --recursive --only-show-errors "$out" "$work/got"
  row "ebb submit: s3 -> s3" "$(cat "$work/secs")" "$(cat "$work/got"/part-* | wc -c)" "-" "$(cat "$work/got"/part-* | counts)"
done
# The halves apart, locally (run 1 only).
prow() { # prow NAME SECONDS
  prows+=("| $1 | $2 | $(awk -v b="$bytes" -v s="$2" 'BEGIN { printf "%.1f", b / 1048576 / s }') |")
}
prows=()
reader="$work/read.yaml" writer="$work/write.yaml"
cat >"$reader" <<YAML
name: s3read
containerGroup: {name: b, workerMemoryMB: 1024}
vertices:
  - {name: read, command: 'cat "\$EBB_INPUT_DIR"/_splits/* >/dev/null', parallelism: $maps, memoryMB: 512, inputs: ["@IN@"]}
YAML
cat >"$writer" <<YAML
name: s3write
containerGroup: {name: b, workerMemoryMB: 1024}
vertices:
  - {name: write, command: 'head -c $((bytes / maps)) /dev/urandom >"\$EBB_OUTPUT_DIR/part"', parallelism: $maps, memoryMB: 512}
YAML
lrun() { timed env HADOOP_CONF_DIR= EBB_CONF_DIR="$work/conf" PATH="$work:$PATH" "$work/ebb" local run "$@" >"$work/log" 2>&1 || { cat "$work/log" >&2; bad=1; }; }
sed "s|@IN@|$input|" "$reader" >"$work/r1.yaml"; rm -rf "$work/rout"
lrun "$work/r1.yaml" --output "$work/rout"; prow "read only: file" "$(cat "$work/secs")"
sed "s|@IN@|s3://$bucket/in/*.txt|" "$reader" >"$work/r2.yaml"
lrun "$work/r2.yaml" --output "$work/rout" --overwrite; prow "read only: s3" "$(cat "$work/secs")"
rm -rf "$work/wout"; lrun "$writer" --output "$work/wout"; wfile=$(cat "$work/secs"); prow "write only: file" "$wfile"
lrun "$writer" --output "s3://$bucket/wout"; ws3=$(cat "$work/secs"); prow "write only: s3" "$ws3"
upload=$(awk -v b="$bytes" -v a="$wfile" -v c="$ws3" 'BEGIN { if (c > a) printf "%.1f", b / 1048576 / (c - a); else print "-" }')

pending=$(awsc s3api list-multipart-uploads --bucket "$bucket" --query 'length(Uploads || `[]`)')
echo "word count of $bytes bytes, $maps maps, 2 reducers; $(nproc) cores; multipart uploads left pending: $pending"
echo
echo "| run | wall s | input MiB/s | output bytes | max worker RSS kB | output sum |"
echo "| --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
echo
echo "| half (ebb local run) | wall s | MiB/s |"
echo "| --- | --- | --- |"
printf '%s\n' "${prows[@]}"
echo
echo "multipart upload rate (write only, s3 over file): $upload MiB/s"
[[ -z "$bad" && "$pending" == 0 ]]
