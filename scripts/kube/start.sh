#!/usr/bin/env bash
# Starts ebb's test Kubernetes cluster on loopback: a real etcd,
# kube-apiserver (TLS from a CA made here, RBAC on, a static admin token,
# service-account token signing) and kube-scheduler; kwok keeping the fake
# nodes alive (their heartbeats and Ready condition only: it is given no pod
# stages); testkubelet, which runs the pods bound to those nodes as local
# processes; and testca, the cluster-autoscaler harness, which creates the
# first nodes and adds and removes nodes by the CA's rules. The binaries
# come from build.sh (cached under ~/.cache/ebb/kube).
#
# usage: scripts/kube/start.sh [RUNDIR]   (default: /tmp/ebb-kube)
#
# PRINTS on stdout exactly one line, the last one: RUNDIR, which holds
#   kubeconfig   the admin's (a system:masters token), for client-go/kubectl
#   kube.env     KEY=value lines: KUBECONFIG, EBB_KUBE_DIR, EBB_KUBE_SERVER,
#                EBB_KUBE_CA, EBB_KUBE_TOKEN, EBB_KUBE_KUBELET (testkubelet's
#                control endpoint), EBB_KUBE_IMAGES (the image map file),
#                EBB_KUBE_PODS (where pods' logs and volumes are),
#                EBB_KUBE_NODES (how many nodes the cluster started with)
#   images       IMAGE=BINARY lines testkubelet reads at each pod start
#   pods/        one directory per pod: <namespace>_<name>/log, volumes/
#   *.log        each daemon's log
# Tests find it through EBB_TEST_KUBE_DIR:
#   export EBB_TEST_KUBE_DIR=$(scripts/kube/start.sh)
# Everything else goes to stderr. Exit status 0 once the apiserver is ready
# and the nodes are Ready; non-zero with the tail of the failing log if a
# build fails, a daemon dies or is not ready within $EBB_KUBE_TIMEOUT
# seconds (default 180). A RUNDIR with a live cluster just prints RUNDIR
# again. Stop it with stop.sh RUNDIR.
#
# Settings (environment):
#   EBB_KUBE_NODES         nodes at start (default 2)
#   EBB_KUBE_MAX_NODES     most nodes testca adds up to (default 6)
#   EBB_KUBE_NODE_CPU      each node's cpu (default 4)
#   EBB_KUBE_NODE_MEMORY   each node's memory (default 8Gi)
#   EBB_KUBE_IMAGES        IMAGE=BINARY pairs, space-separated, written to
#                          RUNDIR/images (e.g. "ebb:dev=/tmp/ebb")
#   EBB_KUBE_CA_ARGS       testca's timing flags; by default the short ones
#                          tests use: "--scan-interval=1s
#                          --scale-down-unneeded-time=5s
#                          --scale-down-delay-after-add=5s" (the CA's own
#                          defaults, testca's, are 10s, 10m and 10m)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rundir="${1:-/tmp/ebb-kube}"
timeout="${EBB_KUBE_TIMEOUT:-180}"
nodes="${EBB_KUBE_NODES:-2}"
say() { echo "kube: $*" >&2; }
die() { say "$*"; exit 1; }
case "$rundir" in "" | "/") die "refusing RUNDIR '$rundir'" ;; esac
[[ "$nodes" =~ ^[0-9]+$ ]] || die "EBB_KUBE_NODES='$nodes' is not a number of nodes"
mkdir -p "$rundir"
rundir="$(cd "$rundir" && pwd)"
daemons="etcd kube-apiserver kube-scheduler kwok testkubelet testca"

alive() { # alive NAME: its pid file names a live process of that binary
  local f="$rundir/$1.pid"
  [[ -f "$f" ]] && tr '\0' ' ' 2>/dev/null <"/proc/$(cat "$f")/cmdline" | grep -q "/$1 "
}
exec 9>"$rundir/start.lock"
flock -w "$timeout" 9 || die "another start.sh holds $rundir/start.lock"
up=1
for d in $daemons; do alive "$d" || up=""; done
if [[ -n "$up" && -f "$rundir/kube.env" ]]; then
  say "already running in $rundir"
  echo "$rundir"
  exit 0
fi
"$here/stop.sh" "$rundir" >/dev/null 2>&1 || true

t0=$SECONDS
bin="$("$here/build.sh" | tail -n 1)" || die "build.sh failed"
for b in $daemons; do [[ -x "$bin/$b" ]] || die "build.sh left no $bin/$b"; done
say "binaries in $bin (built or found in $((SECONDS - t0)) s)"
t0=$SECONDS

freeport() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
etcd_port=$(freeport) peer_port=$(freeport) api_port=$(freeport) sched_port=$(freeport)
kubelet_port=$(freeport) control_port=$(freeport)
rm -rf "$rundir/etcd" "$rundir/pki" "$rundir/pods" "$rundir/kube.env" "$rundir"/*.log
mkdir -p "$rundir/pki" "$rundir/pods"
pki="$rundir/pki"

# A CA of our own signs the apiserver's serving certificate (for 127.0.0.1
# and the names in-cluster clients use) and testkubelet's; its key also
# signs nothing else. The service-account key pair signs pods' tokens.
(
  cd "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=ebb-test-ca" \
    -keyout ca.key -out ca.crt 2>/dev/null
  for who in apiserver kubelet; do
    openssl req -newkey rsa:2048 -nodes -subj "/CN=$who" -keyout "$who.key" -out "$who.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local\n' >"$who.ext"
    openssl x509 -req -in "$who.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 \
      -extfile "$who.ext" -out "$who.crt" 2>/dev/null
  done
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
) || die "openssl failed making the certificates in $pki"
token="$(head -c 24 /dev/urandom | base64 | tr '+/' 'xy')"
echo "$token,admin,admin,system:masters" >"$pki/tokens.csv"
chmod 600 "$pki"/*.key "$pki/tokens.csv"
server="https://127.0.0.1:$api_port"
cat >"$rundir/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: ebb-test
  cluster:
    server: $server
    certificate-authority: $pki/ca.crt
users:
- name: admin
  user:
    token: $token
contexts:
- name: ebb-test
  context: {cluster: ebb-test, user: admin, namespace: default}
current-context: ebb-test
KC
chmod 600 "$rundir/kubeconfig"
# busybox stands for any image whose commands are the host's (sh, sleep).
echo "busybox=" >"$rundir/images"
for pair in ${EBB_KUBE_IMAGES:-}; do echo "$pair" >>"$rundir/images"; done

# start NAME ARGS...: runs $bin/NAME in its own session, logging to
# RUNDIR/NAME.log, its pid in RUNDIR/NAME.pid.
start() {
  local name=$1
  shift
  (
    exec 9>&-
    exec setsid "$bin/$name" "$@" </dev/null >"$rundir/$name.log" 2>&1
  ) &
  echo $! >"$rundir/$name.pid"
}
fail() {
  local name=$1
  shift
  tail -n 30 "$rundir/$name.log" >&2 || true
  "$here/stop.sh" "$rundir" >/dev/null 2>&1 || true
  die "$name: $* (log: $rundir/$name.log)"
}
# await NAME CMD...: until CMD succeeds, NAME must stay alive, within the
# deadline.
await() {
  local name=$1
  shift
  until "$@" >/dev/null 2>&1; do
    kill -0 "$(cat "$rundir/$name.pid")" 2>/dev/null || fail "$name" "exited"
    ((SECONDS - t0 < timeout)) || fail "$name" "not ready within $timeout s"
    sleep 0.2
  done
}

start etcd --name ebb-test --data-dir "$rundir/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-cluster "ebb-test=http://127.0.0.1:$peer_port" \
  --unsafe-no-fsync --log-level warn
await etcd curl -sf "http://127.0.0.1:$etcd_port/health"

# The endpoint reconciler refuses a loopback advertise address; nothing
# here needs the kubernetes Service's endpoints (pods get KUBECONFIG).
# TaintNodesByCondition would put node.kubernetes.io/not-ready on each new
# node, and without a controller manager nothing takes it off again.
start kube-apiserver --etcd-servers "http://127.0.0.1:$etcd_port" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
  --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
  --client-ca-file "$pki/ca.crt" --token-auth-file "$pki/tokens.csv" \
  --authorization-mode RBAC \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
  --service-cluster-ip-range 10.96.0.0/16 --endpoint-reconciler-type none \
  --disable-admission-plugins TaintNodesByCondition \
  --kubelet-preferred-address-types InternalIP \
  --kubelet-certificate-authority "$pki/ca.crt" \
  --profiling=false
await kube-apiserver curl -sf --cacert "$pki/ca.crt" "$server/readyz"

start kube-scheduler --kubeconfig "$rundir/kubeconfig" \
  --authentication-kubeconfig "$rundir/kubeconfig" --authorization-kubeconfig "$rundir/kubeconfig" \
  --bind-address 127.0.0.1 --secure-port "$sched_port" --leader-elect=false
await kube-scheduler curl -skf "https://127.0.0.1:$sched_port/healthz"

# kwok gets node stages only (stages/): pods on its nodes are testkubelet's.
start kwok --kubeconfig "$rundir/kubeconfig" --config "$here/stages/nodes.yaml" \
  --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake \
  --node-lease-duration-seconds 40 --node-ip 127.0.0.1

start testkubelet --kubeconfig "$rundir/kubeconfig" --dir "$rundir/pods" --images "$rundir/images" \
  --ca "$pki/ca.crt" --tls-cert "$pki/kubelet.crt" --tls-key "$pki/kubelet.key" \
  --listen "127.0.0.1:$kubelet_port" --control "127.0.0.1:$control_port"
await testkubelet curl -sf "http://127.0.0.1:$control_port/healthz"

ca_args="${EBB_KUBE_CA_ARGS:---scan-interval=1s --scale-down-unneeded-time=5s --scale-down-delay-after-add=5s}"
# shellcheck disable=SC2086 # ca_args is a list of flags
start testca --kubeconfig "$rundir/kubeconfig" --nodes "$nodes" \
  --max-nodes "${EBB_KUBE_MAX_NODES:-6}" \
  --node-cpu "${EBB_KUBE_NODE_CPU:-4}" --node-memory "${EBB_KUBE_NODE_MEMORY:-8Gi}" \
  --kubelet-port "$kubelet_port" $ca_args
ready_nodes() {
  curl -sf --cacert "$pki/ca.crt" -H "Authorization: Bearer $token" "$server/api/v1/nodes" |
    python3 -c 'import json, sys
n = sum(1 for i in json.load(sys.stdin)["items"]
        if any(c["type"] == "Ready" and c["status"] == "True" for c in i.get("status", {}).get("conditions", [])))
sys.exit(0 if n >= int(sys.argv[1]) else 1)' "$nodes"
}
await testca ready_nodes
for d in kwok testkubelet; do kill -0 "$(cat "$rundir/$d.pid")" 2>/dev/null || fail "$d" "exited"; done

cat >"$rundir/kube.env" <<ENV
KUBECONFIG=$rundir/kubeconfig
EBB_KUBE_DIR=$rundir
EBB_KUBE_SERVER=$server
EBB_KUBE_CA=$pki/ca.crt
EBB_KUBE_TOKEN=$token
EBB_KUBE_KUBELET=http://127.0.0.1:$control_port
EBB_KUBE_IMAGES=$rundir/images
EBB_KUBE_PODS=$rundir/pods
EBB_KUBE_NODES=$nodes
ENV
chmod 600 "$rundir/kube.env"
say "apiserver $server, $nodes nodes Ready, ready in $((SECONDS - t0)) s"
echo "$rundir"
