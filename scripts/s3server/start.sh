#!/usr/bin/env bash
# Starts ebb's test S3 server: s3proxy (org.gaul:s3proxy from Maven Central,
# Apache-2.0) over its filesystem-nio2 blob store, on 127.0.0.1 and a free
# port, with SigV2/V4 authentication and a throwaway key pair. It serves
# multipart uploads and ListMultipartUploads, which ebb's S3 committer needs.
#
# usage: scripts/s3server/start.sh [RUNDIR]   (default: /tmp/ebb-s3server)
#
# PRINTS on stdout exactly one line, the last one: RUNDIR, which holds
# s3.env (KEY=value lines: S3_ENDPOINT, AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY, AWS_REGION). Tests find it through EBB_TEST_S3_DIR:
#   export EBB_TEST_S3_DIR=$(scripts/s3server/start.sh)
# Everything else goes to stderr. Exit status 0 once the server answers;
# non-zero with the tail of its log if the build fails, the JVM dies or it
# does not answer within $EBB_S3SERVER_TIMEOUT seconds (default 120). A RUNDIR
# with a live server just prints RUNDIR again. Stop it with stop.sh RUNDIR.
#
# The first run resolves s3proxy's jars into ~/.m2 (about 60 MB); later runs
# resolve offline. The objects live under RUNDIR/data, new each start.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rundir="${1:-/tmp/ebb-s3server}"
timeout="${EBB_S3SERVER_TIMEOUT:-120}"
say() { echo "s3server: $*" >&2; }
die() { say "$*"; exit 1; }
case "$rundir" in "" | "/") die "refusing RUNDIR '$rundir'" ;; esac
mkdir -p "$rundir"
rundir="$(cd "$rundir" && pwd)"
pidfile="$rundir/pid"
log="$rundir/s3proxy.log"

alive() {
  [[ -f "$pidfile" ]] || return 1
  tr '\0' ' ' 2>/dev/null <"/proc/$(cat "$pidfile")/cmdline" | grep -q 'org\.gaul\.s3proxy\.Main'
}
exec 9>"$rundir/start.lock"
flock -w "$timeout" 9 || die "another start.sh holds $rundir/start.lock"
if alive && [[ -f "$rundir/s3.env" ]]; then
  say "already running (pid $(cat "$pidfile")) in $rundir"
  echo "$rundir"
  exit 0
fi
alive && "$here/stop.sh" "$rundir"

java=""
for cand in ${EBB_S3SERVER_JAVA:-} ${JAVA_HOME:+$JAVA_HOME/bin/java} "$(command -v java || true)" \
  /usr/lib/jvm/java-17-openjdk-amd64/bin/java /usr/lib/jvm/*17*/bin/java /usr/lib/jvm/*21*/bin/java; do
  [[ -x "$cand" ]] || continue
  v="$("$cand" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)"
  if [[ -n "$v" ]] && ((v >= 17)); then java="$cand"; break; fi
done
[[ -n "$java" ]] || die "no Java 17 or later found for s3proxy (set EBB_S3SERVER_JAVA)"
command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"

# Resolve the class path: offline first (a warm ~/.m2 needs no network).
cp_file="$here/target/classpath.txt"
mkdir -p "$here/target"
exec 8>"$here/target/build.lock"
flock -w "$timeout" 8 || die "another start.sh is resolving s3proxy"
stale=""
[[ -f "$cp_file" && -z "$(find "$here/pom.xml" -newer "$cp_file" -print -quit)" ]] || stale=1
if [[ -z "$stale" ]]; then
  while IFS= read -r jar; do [[ -f "$jar" ]] || stale=1; done < <(tr ':' '\n' <"$cp_file")
fi
if [[ -n "$stale" ]]; then
  if ! mvn -o -q -B -f "$here/pom.xml" generate-resources >"$rundir/mvn.log" 2>&1; then
    say "offline resolution failed; resolving online (first run downloads s3proxy into ~/.m2)"
    mvn -q -B -f "$here/pom.xml" generate-resources >"$rundir/mvn.log" 2>&1 ||
      { tail -n 30 "$rundir/mvn.log" >&2; die "maven failed; see $rundir/mvn.log"; }
  fi
  touch "$cp_file"
fi
exec 8>&-

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
secret="$(head -c 18 /dev/urandom | base64 | tr '+/' 'xy')"
rm -rf "$rundir/data" "$rundir/s3.env"
mkdir -p "$rundir/data"
cat >"$rundir/s3proxy.conf" <<CONF
s3proxy.endpoint=http://127.0.0.1:$port
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=ebbtest
s3proxy.credential=$secret
jclouds.provider=filesystem-nio2
jclouds.filesystem.basedir=$rundir/data
CONF
# s3proxy ships no logging configuration: logback's default logs every
# request at DEBUG.
cat >"$rundir/logback.xml" <<'XML'
<configuration>
  <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="out"/></root>
</configuration>
XML
(
  exec 9>&-
  exec setsid "$java" -Xmx1g -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dlogback.configurationFile="$rundir/logback.xml" -cp "$(cat "$cp_file")" \
    org.gaul.s3proxy.Main --properties "$rundir/s3proxy.conf" </dev/null >"$log" 2>&1
) &
pid=$!
echo "$pid" >"$pidfile"
t0=$SECONDS
until curl -s -o /dev/null "http://127.0.0.1:$port/"; do
  kill -0 "$pid" 2>/dev/null || { tail -n 30 "$log" >&2; die "s3proxy exited (log: $log)"; }
  if ((SECONDS - t0 >= timeout)); then
    tail -n 30 "$log" >&2
    "$here/stop.sh" "$rundir" || true
    die "s3proxy did not answer within $timeout s"
  fi
  sleep 0.2
done
cat >"$rundir/s3.env" <<ENV
S3_ENDPOINT=http://127.0.0.1:$port
AWS_ACCESS_KEY_ID=ebbtest
AWS_SECRET_ACCESS_KEY=$secret
AWS_REGION=us-east-1
ENV
chmod 600 "$rundir/s3.env" "$rundir/s3proxy.conf"
say "s3proxy pid $pid up on 127.0.0.1:$port in $((SECONDS - t0)) s"
echo "$rundir"
