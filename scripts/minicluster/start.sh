#!/usr/bin/env bash
# Starts ebb's test Hadoop: one JVM with a ResourceManager, 3 NodeManagers
# (4096 MB / 4 vcores each), a NameNode and a DataNode on ephemeral ports.
#
# usage: scripts/minicluster/start.sh [--secure] [RUNDIR]
#        (RUNDIR default: $EBB_MINICLUSTER_DIR, or /tmp/ebb-minicluster, or
#        /tmp/ebb-minicluster-secure with --secure)
#
# --secure: Kerberos everywhere. A KDC (Hadoop's MiniKdc) runs in the same
# JVM; RM, NodeManagers, NameNode and DataNode authenticate with Kerberos;
# cluster.env then also names KRB5_CONFIG, USER_PRINCIPAL and USER_KEYTAB
# (the test user, "ebb", with its own keytab). See README.md.
# EBB_MINICLUSTER_ARGS adds launcher arguments (e.g. "--set key=value").
#
# PRINTS on stdout exactly one line, the last one: the absolute path of the
# HADOOP_CONF_DIR it wrote (RUNDIR/conf, holding core-site.xml, yarn-site.xml,
# hdfs-site.xml with the live addresses). Everything else goes to stderr.
# Typical use:  export EBB_TEST_HADOOP_CONF_DIR=$(scripts/minicluster/start.sh)
#
# Exit status 0 once the RM reports every NodeManager RUNNING and HDFS is up;
# non-zero (with the tail of the JVM's log on stderr) if the build fails, the
# JVM dies, or the cluster is not ready within $EBB_MINICLUSTER_TIMEOUT seconds
# (default 240). If RUNDIR already holds a live, ready cluster it just prints
# its conf dir again. Stop it with scripts/minicluster/stop.sh [RUNDIR].
#
# Files in RUNDIR: pid (the JVM), ready (present while the cluster is up),
# cluster.env (KEY=value lines: RM_ADDRESS, RM_WEBAPP, NAMENODE, NM_LOG_DIRS,
# ...), minicluster.log (the JVM's log), conf/, dfs/, target/ (NodeManager
# local and log dirs).
#
# The first run downloads hadoop-minicluster and its dependencies from Maven
# Central into ~/.m2 (some hundreds of MB); later runs build offline.
# Environment: EBB_MINICLUSTER_JAVA_OPTS replaces the default heap/GC options;
# EBB_MINICLUSTER_JAVA names the java binary (else a Java 8..21 is looked for).
# EBB_MINICLUSTER_CLASSPATH is put first on the JVM's classpath: a directory
# with a yarn-site.xml there is what the RM re-reads on `rmadmin -refreshNodes`
# (the decommission test's exclude list).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
secure=""
if [[ "${1:-}" == --secure ]]; then
  secure=1
  shift
fi
if [[ -n "$secure" ]]; then
  rundir="${1:-${EBB_MINICLUSTER_DIR:-/tmp/ebb-minicluster-secure}}"
else
  rundir="${1:-${EBB_MINICLUSTER_DIR:-/tmp/ebb-minicluster}}"
fi
launcher_args=(--no-stdin ${secure:+--secure})
read -r -a extra_args <<<"${EBB_MINICLUSTER_ARGS:-}"
launcher_args+=("${extra_args[@]}")
timeout="${EBB_MINICLUSTER_TIMEOUT:-240}"

say() { echo "minicluster: $*" >&2; }
die() { say "$*"; exit 1; }

case "$rundir" in
  "" | "/") die "refusing RUNDIR '$rundir'" ;;
esac
mkdir -p "$rundir"
rundir="$(cd "$rundir" && pwd)"
confdir="$rundir/conf"
pidfile="$rundir/pid"
log="$rundir/minicluster.log"

# alive: the pid file names a running launcher. Checking the command line
# keeps a stale pid file, whose pid was reused, from pointing at a stranger.
alive() {
  [[ -f "$pidfile" ]] || return 1
  tr '\0' ' ' 2>/dev/null <"/proc/$(cat "$pidfile")/cmdline" | grep -q 'ebb\.minicluster\.Main'
}

# One start at a time per RUNDIR: a second caller waits and then finds the
# first one's cluster.
exec 9>"$rundir/start.lock"
flock -w "$timeout" 9 || die "another start.sh holds $rundir/start.lock"

if alive && [[ -f "$rundir/ready" ]]; then
  say "already running (pid $(cat "$pidfile")) in $rundir"
  echo "$confdir"
  exit 0
fi
if alive; then
  # Not ready although no start.sh holds the lock: a launcher that failed to
  # come up or is shutting down. Replace it.
  say "pid $(cat "$pidfile") runs but is not ready; stopping it first"
  "$here/stop.sh" "$rundir"
fi

# Every NodeManager and the RM use the machine's host name; it must resolve.
host="$(hostname)"
if ! getent hosts "$host" >/dev/null; then
  say "host name $host does not resolve; adding it to /etc/hosts"
  echo "127.0.0.1 $host" >>/etc/hosts || die "cannot add $host to /etc/hosts (need root)"
fi

# Hadoop 3.4 runs on Java 8 to 17 (21 with the same opens); from Java 23 on
# its Subject.getSubject calls fail. Pick a fitting JVM even when the PATH
# or JAVA_HOME names a newer one (this machine kind also has a JDK 25).
java_major() {
  local v
  v="$("$1" -version 2>&1 | sed -n 's/.*version "\([0-9][0-9.]*\).*/\1/p' | head -n 1)"
  v="${v#1.}"
  echo "${v%%.*}"
}
java=""
for cand in ${EBB_MINICLUSTER_JAVA:-} ${JAVA_HOME:+$JAVA_HOME/bin/java} "$(command -v java || true)" \
  /usr/lib/jvm/java-17-openjdk-amd64/bin/java /usr/lib/jvm/*17*/bin/java /usr/lib/jvm/*11*/bin/java /usr/lib/jvm/*21*/bin/java; do
  [[ -x "$cand" ]] || continue
  major="$(java_major "$cand")"
  if [[ -n "$major" ]] && ((major >= 8 && major <= 21)); then
    java="$cand"
    break
  fi
done
[[ -n "$java" ]] || die "no Java 8..21 found for Hadoop 3.4 (set EBB_MINICLUSTER_JAVA to a java binary)"
command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"

# Build the launcher and resolve the class path. Skipped when nothing changed
# and every jar is still in ~/.m2; offline first so a warm machine needs no
# network, online as the fallback (first run, or a changed pom).
cp_file="$here/target/classpath.txt"
build_needed() {
  [[ -f "$cp_file" && -f "$here/target/classes/ebb/minicluster/Main.class" ]] || return 0
  [[ -z "$(find "$here/pom.xml" "$here/src" -newer "$cp_file" -print -quit)" ]] || return 0
  local jar
  while IFS= read -r jar; do
    [[ -f "$jar" ]] || return 0
  done < <(tr ':' '\n' <"$cp_file")
  return 1
}
# Two clusters may start at once (scripts/test.sh starts the secure one in
# the background): one build at a time in this directory, and the second
# finds the first one's result.
mkdir -p "$here/target"
exec 8>"$here/target/build.lock"
flock -w "$timeout" 8 || die "another start.sh is building the launcher ($here/target/build.lock)"
if build_needed; then
  t0=$SECONDS
  mvnlog="$rundir/mvn.log"
  if mvn -o -q -f "$here/pom.xml" compile >"$mvnlog" 2>&1; then
    say "built launcher offline in $((SECONDS - t0)) s"
  else
    say "offline build failed; building online (first run downloads Hadoop's jars into ~/.m2)"
    mvn -q -B -f "$here/pom.xml" compile >"$mvnlog" 2>&1 || { tail -n 40 "$mvnlog" >&2; die "maven build failed; see $mvnlog"; }
    say "built launcher online in $((SECONDS - t0)) s"
  fi
  # build-classpath leaves an unchanged file alone; mark this build as done.
  touch "$cp_file"
fi
exec 8>&-

# A fresh cluster every start: HDFS is formatted anyway, and old NodeManager
# directories would confuse tests that look for their containers' logs.
rm -rf "$rundir/conf" "$rundir/dfs" "$rundir/target" "$rundir/tmp" "$rundir/app-logs" \
  "$rundir/ready" "$rundir/cluster.env" "$rundir/pid" "$rundir/kdc"

# Hadoop 3.4 predates official Java 17 support; these opens let its
# reflection (Guava, Netty, UGI, Jetty) work as on Java 8.
opens=()
for p in java.base/java.lang java.base/java.lang.reflect java.base/java.io java.base/java.net \
  java.base/java.nio java.base/java.util java.base/java.util.concurrent \
  java.base/java.util.concurrent.atomic java.base/java.security java.base/javax.security.auth \
  java.base/sun.nio.ch java.base/sun.net.dns java.base/sun.net.util \
  java.security.jgss/sun.security.krb5; do
  opens+=("--add-opens=$p=ALL-UNNAMED")
done
# Small heap, serial GC and C1 only: a 2-core box shared with the tests.
read -r -a jopts <<<"${EBB_MINICLUSTER_JAVA_OPTS:--Xmx768m -Xss512k -XX:+UseSerialGC -XX:TieredStopAtLevel=1}"

t0=$SECONDS
# MiniYARNCluster puts its NodeManagers' directories under ./target/, so the
# JVM runs in RUNDIR. setsid: the cluster outlives the shell that started it
# and does not get its terminal's signals; stop.sh ends it.
# 9>&-: the JVM must not inherit the start lock, or the next start.sh would
# wait on it for as long as the cluster runs.
(
  cd "$rundir"
  exec 9>&- 8>&-
  # As on a real cluster, the NodeManagers' HADOOP_CONF_DIR reaches containers
  # through yarn.nodemanager.env-whitelist.
  HADOOP_CONF_DIR="$confdir" exec setsid "$java" "${opens[@]}" "${jopts[@]}" -Djava.net.preferIPv4Stack=true \
    -cp "${EBB_MINICLUSTER_CLASSPATH:+$EBB_MINICLUSTER_CLASSPATH:}$here/target/classes:$(cat "$cp_file")" \
    ebb.minicluster.Main "$rundir" "${launcher_args[@]}" </dev/null >"$log" 2>&1
) &
pid=$!
echo "$pid" >"$pidfile"
say "JVM pid $pid ($java), log $log"

deadline=$((SECONDS + timeout))
until [[ -f "$rundir/ready" ]]; do
  if ! kill -0 "$pid" 2>/dev/null; then
    tail -n 60 "$log" >&2
    die "the JVM exited before the cluster was ready (log: $log)"
  fi
  if ((SECONDS >= deadline)); then
    tail -n 60 "$log" >&2
    "$here/stop.sh" "$rundir" || true
    die "not ready after $timeout s; stopped it (log: $log)"
  fi
  sleep 0.2
done
say "ready in $((SECONDS - t0)) s"
echo "$confdir"
