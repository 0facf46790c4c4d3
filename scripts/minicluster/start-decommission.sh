#!/usr/bin/env bash
# Starts a cluster for the decommission test (issue 23): start.sh's cluster
# plus a fourth NodeManager in a JVM of its own under the loopback name
# 127.0.0.2, so that the RM's exclude list (which matches host names, and
# the other three all register as localhost) can decommission it alone.
#
# usage: scripts/minicluster/start-decommission.sh RUNDIR
#
# The RM re-reads yarn-site.xml from its classpath on `rmadmin
# -refreshNodes`: RUNDIR/rmcp/yarn-site.xml (first on the classpath,
# EBB_MINICLUSTER_CLASSPATH) names the exclude file RUNDIR/exclude, empty
# at start. The test writes 127.0.0.2 there and runs
#   java -cp RUNDIR/conf:<launcher classpath> org.apache.hadoop.yarn.client.cli.RMAdminCLI -refreshNodes -g 120 -server
# (cluster.env: EXCLUDE_FILE, RMADMIN_CLASSPATH, JAVA, EXTRA_NM_HOST).
# PRINTS the conf dir, as start.sh. Stop with stop.sh RUNDIR (it also stops
# the extra NodeManager: RUNDIR/nm2/pid).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rundir="${1:?usage: start-decommission.sh RUNDIR}"
mkdir -p "$rundir/rmcp" "$rundir/nm2/conf" "$rundir/nm2/local" "$rundir/nm2/logs"
rundir="$(cd "$rundir" && pwd)"
host=127.0.0.2
say() { echo "minicluster: $*" >&2; }

: >"$rundir/exclude"
cat >"$rundir/rmcp/yarn-site.xml" <<XML
<?xml version="1.0"?>
<configuration>
<property><name>yarn.resourcemanager.nodes.exclude-path</name><value>$rundir/exclude</value></property>
</configuration>
XML
confdir="$(EBB_MINICLUSTER_CLASSPATH="$rundir/rmcp" \
  EBB_MINICLUSTER_ARGS="${EBB_MINICLUSTER_ARGS:-} --set yarn.resourcemanager.nodes.exclude-path=$rundir/exclude" \
  "$here/start.sh" "$rundir" | tail -n 1)"

# The extra NodeManager: the cluster's configuration, its own addresses
# and directories appended (a later definition of a property wins).
cp "$confdir"/*.xml "$rundir/nm2/conf/"
nmem="$(sed -n 's/^NM_MEMORY_MB=//p' "$rundir/cluster.env")"
extra=""
for kv in yarn.nodemanager.hostname=$host yarn.nodemanager.address=$host:0 \
  yarn.nodemanager.localizer.address=$host:0 yarn.nodemanager.webapp.address=$host:0 \
  yarn.nodemanager.local-dirs=$rundir/nm2/local yarn.nodemanager.log-dirs=$rundir/nm2/logs \
  yarn.nodemanager.recovery.enabled=false yarn.nodemanager.resource.memory-mb=${nmem:-4096}; do
  extra+="<property><name>${kv%%=*}</name><value>${kv#*=}</value></property>"
done
sed -i "s|</configuration>|$extra</configuration>|" "$rundir/nm2/conf/yarn-site.xml"

# The cluster JVM's java and its --add-opens (Hadoop's Guice needs them).
# Read whole, not through `| head` (under pipefail the writer's SIGPIPE, exit
# 141, failed the script whenever head closed the pipe before tr was done).
mapfile -d '' -t jvmargs <"/proc/$(cat "$rundir/pid")/cmdline"
java="${jvmargs[0]}"
opens=()
for a in "${jvmargs[@]}"; do
  if [[ $a == --add-opens* ]]; then opens+=("$a"); fi
done
cp="$here/target/classes:$(cat "$here/target/classpath.txt")"
if ! { [[ -f "$rundir/nm2/pid" ]] && kill -0 "$(cat "$rundir/nm2/pid")" 2>/dev/null; }; then
  setsid "$java" "${opens[@]}" -Xmx512m -Djava.net.preferIPv4Stack=true -cp "$rundir/nm2/conf:$cp" \
    org.apache.hadoop.yarn.server.nodemanager.NodeManager >"$rundir/nm2/nm.log" 2>&1 </dev/null &
  echo $! >"$rundir/nm2/pid"
fi
web="$(sed -n 's/^RM_WEBAPP=//p' "$rundir/cluster.env")"
for _ in $(seq 1 120); do
  # Registered: the RM lists it (RUNNING from its first heartbeat).
  if curl -fs "http://$web/ws/v1/cluster/nodes?states=RUNNING" | grep -q "\"id\":\"$host:"; then
    break
  fi
  sleep 0.5
done
curl -fs "http://$web/ws/v1/cluster/nodes" | grep -q "$host:" || { tail -20 "$rundir/nm2/nm.log" >&2; say "the NodeManager under $host did not register"; exit 1; }
{
  echo "EXCLUDE_FILE=$rundir/exclude"
  echo "EXTRA_NM_HOST=$host"
  echo "JAVA=$java"
  echo "RMADMIN_CLASSPATH=$confdir:$cp"
} >>"$rundir/cluster.env"
say "NodeManager under $host running (pid $(cat "$rundir/nm2/pid"), log $rundir/nm2/nm.log)"
echo "$confdir"
