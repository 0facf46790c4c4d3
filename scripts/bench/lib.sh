# Shared by the benchmarks that run MapReduce and ebb side by side on one
# YARN cluster (mr-vs-ebb.sh, terasort.sh). Source it after setting repo
# and here; call the bench_* steps after setting work, log, rundir,
# confdir (empty: start a cluster in rundir), keep_cluster, clean, hdfs_dir.
#
#   bench_tools     finds Java 8..21, mvn and go; sets java, java_home, opens
#   bench_build     builds ebb into $work/ebb and the Java side; sets jars, rev
#   bench_cluster   starts or checks the cluster; sets confdir, namenode,
#                   nm_log_dirs, started_cluster and an EXIT trap to stop it
#   jrun, fs        a JVM on the cluster's class path; Hadoop's FsShell
#   mr_opts         the -D settings every MapReduce job here gets
#   app_report APP  prints "final mb_s vcore_s rm_s" from the RM's report
#   containers APP  container log directories of APP over every NodeManager
#   rss_watch PATTERN DIR FILE, rss_stop  peak resident memory of matching processes

say() { echo "bench: $*" >&2; }
die() { say "$*"; exit 1; }

bench_tools() {
  java=""
  local cand v
  for cand in ${EBB_BENCH_JAVA:-} ${JAVA_HOME:+$JAVA_HOME/bin/java} /usr/lib/jvm/java-17-openjdk-amd64/bin/java "$(command -v java || true)"; do
    [[ -x "$cand" ]] || continue
    v="$("$cand" -version 2>&1 | sed -n 's/.*version "\([0-9][0-9.]*\).*/\1/p' | head -n 1)"
    v="${v#1.}"
    v="${v%%.*}"
    if [[ -n "$v" ]] && ((v >= 8 && v <= 21)); then java="$cand"; break; fi
  done
  [[ -n "$java" ]] || die "no Java 8..21 (Hadoop 3.4's range) found: set EBB_BENCH_JAVA to a java binary"
  java_home="$(dirname "$(dirname "$(readlink -f "$java")")")"
  command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
  command -v go >/dev/null || die "go not found"
  # Hadoop 3.4 on Java 17 needs these opens (its reflection into the JDK);
  # the same list for our clients, MapReduce's AM and its tasks.
  opens=""
  local p
  for p in java.base/java.lang java.base/java.lang.reflect java.base/java.io java.base/java.net \
    java.base/java.nio java.base/java.util java.base/java.util.concurrent \
    java.base/java.util.concurrent.atomic java.base/sun.nio.ch java.base/sun.net.util; do
    opens+=" --add-opens=$p=ALL-UNNAMED"
  done
  opens="${opens# }"
}

bench_build() {
  # The commit measured: taken before the build, so edits during a long
  # run do not mislabel it.
  rev="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  git -C "$repo" diff --quiet HEAD 2>/dev/null || rev+=" with uncommitted changes"
  say "building ebb"
  go build -o "$work/ebb" "$repo/cmd/ebb" >>"$log" 2>&1 || die "go build ./cmd/ebb failed (see $log)"
  # The Java side: offline first (a warm ~/.m2 needs no network), online as
  # the fallback; skipped when nothing changed since the last build.
  local cp_file="$here/target/classpath.txt"
  if [[ ! -f "$cp_file" || ! -f "$here/target/classes/ebb/bench/AppReport.class" ||
    -n "$(find "$here/pom.xml" "$here/src" -newer "$cp_file" -print -quit)" ]]; then
    say "building the Java side (scripts/bench/pom.xml)"
    if ! mvn -o -q -B -f "$here/pom.xml" compile >>"$log" 2>&1; then
      mvn -q -B -f "$here/pom.xml" compile >>"$log" 2>&1 || die "maven build of scripts/bench failed (see $log)"
    fi
    touch "$cp_file"
  fi
  jars="$(cat "$cp_file")"
}

bench_cluster() {
  started_cluster=""
  trap bench_cleanup EXIT
  if [[ -z "$confdir" ]]; then
    say "starting the minicluster in $rundir"
    confdir="$("$repo/scripts/minicluster/start.sh" "$rundir" 2>>"$log" | tail -n 1)" ||
      die "scripts/minicluster/start.sh $rundir failed (see $log)"
    started_cluster=1
  fi
  [[ -f "$confdir/yarn-site.xml" ]] || die "--conf-dir $confdir: no yarn-site.xml there"
  confdir="$(cd "$confdir" && pwd)"
  grep -q 'mapreduce_shuffle' "$confdir/yarn-site.xml" ||
    die "the cluster in $confdir runs no mapreduce_shuffle aux service (yarn.nodemanager.aux-services): start it with this checkout's scripts/minicluster/start.sh"
  nm_log_dirs=""
  if [[ -f "$confdir/../cluster.env" ]]; then
    nm_log_dirs="$(sed -n 's/^NM_LOG_DIRS=//p' "$confdir/../cluster.env" | tr -d "'")"
  fi
  namenode="$(tr -d ' \n' <"$confdir/core-site.xml" | sed -n 's|.*<name>fs.defaultFS</name><value>\([^<]*\)</value>.*|\1|p')"
  [[ "$namenode" == hdfs://* ]] || die "no hdfs:// fs.defaultFS in $confdir/core-site.xml"
  say "cluster: HADOOP_CONF_DIR=$confdir, HDFS $namenode"
}

bench_cleanup() {
  if [[ -n "$clean" && -n "$confdir" ]]; then
    fs -rm -r -f -skipTrash "$hdfs_dir" >>"$log" 2>&1 || true
  fi
  if [[ -n "$started_cluster" && -z "$keep_cluster" ]]; then
    say "stopping the cluster in $rundir"
    "$repo/scripts/minicluster/stop.sh" "$rundir" >>"$log" 2>&1 || true
  fi
}

# Every JVM call is bounded: a hung cluster must not hang the run.
jrun() { timeout 600 "$java" $opens -cp "$confdir:$here/target/classes:$jars" "$@"; }
fs() { jrun org.apache.hadoop.fs.FsShell "$@"; }

# mr_opts: settings beyond the stock ones for every MapReduce job: the
# job's class path (the jars resolved here; the NodeManagers run on this
# machine); JAVA_HOME and the Java 17 opens for the AM and tasks; the
# minicluster's StaticMapping (a test class) replaced by the default rack
# mapping; no job history server.
mr_opts() {
  mr_d=(-D mapreduce.framework.name=yarn
    -D "mapreduce.application.classpath=$jars"
    -D net.topology.node.switch.mapping.impl=org.apache.hadoop.net.ScriptBasedMapping
    -D "yarn.app.mapreduce.am.env=JAVA_HOME=$java_home"
    -D "mapreduce.map.env=JAVA_HOME=$java_home"
    -D "mapreduce.reduce.env=JAVA_HOME=$java_home"
    -D "yarn.app.mapreduce.am.command-opts=-Xmx1024m $opens"
    -D "mapreduce.map.java.opts=$opens"
    -D "mapreduce.reduce.java.opts=$opens"
    -D mapreduce.jobhistory.address=)
}

# app_report APP: "final mb_s vcore_s rm_s" from the RM (fields "?" when
# it did not answer).
app_report() {
  local rep final mbs vcs rm_s
  if ! rep="$(jrun ebb.bench.AppReport "$1" 120 2>>"$log")"; then
    echo "NO_REPORT ? ? ?"
    return
  fi
  final="$(sed -n 's/^FINAL=//p' <<<"$rep")"
  mbs="$(sed -n 's/^MB_SECONDS=//p' <<<"$rep")"
  vcs="$(sed -n 's/^VCORE_SECONDS=//p' <<<"$rep")"
  rm_s="$(awk -v a="$(sed -n 's/^START_MS=//p' <<<"$rep")" -v b="$(sed -n 's/^FINISH_MS=//p' <<<"$rep")" \
    'BEGIN { printf "%.1f", (b - a) / 1000 }')"
  echo "${final:-?} ${mbs:-?} ${vcs:-?} ${rm_s:-?}"
}

# containers APP: container log directories of APP over every NodeManager
# (log aggregation is off on the minicluster); "n/a" elsewhere.
containers() {
  [[ -n "$nm_log_dirs" ]] || { echo n/a; return; }
  local n=0 d dirs
  IFS=, read -r -a dirs <<<"$nm_log_dirs"
  for d in "${dirs[@]}"; do
    [[ -d "$d/$1" ]] && n=$((n + $(find "$d/$1" -mindepth 1 -maxdepth 1 -name 'container_*' | wc -l)))
  done
  echo "$n"
}

now_ms() { date +%s%3N; }

# rss_watch PATTERN DIR FILE: samples, once a second until rss_stop, the
# resident memory of every process whose command line (ps's args) matches
# the extended regex PATTERN and whose working directory is under DIR (the
# cluster's NodeManager directories: not another cluster's processes on
# the same machine), and keeps in FILE "peak_single_mb peak_sum_mb": the
# most one such process held, and the most all of them held at once.
# Sampled, so a peak shorter than a second may be missed.
rss_watch() {
  local pattern="$1" dir="$2" file="$3"
  echo "0 0" >"$file"
  (
    single=0 sum=0
    while :; do
      s=0 t=0
      while read -r pid rss; do
        [[ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" == "$dir"/* ]] || continue
        ((rss > s)) && s=$rss
        t=$((t + rss))
      done < <(ps -eo pid=,rss=,args= | awk -v p="$pattern" '{ pid = $1; r = $2; sub(/^ *[0-9]+ +[0-9]+ /, "") } $0 ~ p { print pid, r }')
      ((s > single)) && single=$s
      ((t > sum)) && sum=$t
      echo "$((single / 1024)) $((sum / 1024))" >"$file"
      sleep 1
    done
  ) &
  rss_pid=$!
}

# rss_stop: ends rss_watch's sampler.
rss_stop() {
  if [[ -n "${rss_pid:-}" ]]; then
    kill "$rss_pid" 2>/dev/null || true
    wait "$rss_pid" 2>/dev/null || true # its status is the kill's, not a failure
  fi
  rss_pid=""
}
