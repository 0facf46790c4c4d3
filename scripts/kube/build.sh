#!/bin/sh
# Builds the real control plane ebb's Kubernetes tests will run against
# (kube-apiserver, kube-scheduler, etcd) and kwok's fake nodes, from the Go
# module proxy, into a directory named for this module's go.sum, so a
# second run (or CI with the directory cached, like ~/.m2) builds nothing.
# Also builds the test harness of this module (testkubelet, testca) into the
# same directory, again only when its sources changed.
# Prints the directory last.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sum=$(sha256sum "$here/go.sum" "$here/go.mod" | sha256sum | cut -c1-16)
out=${EBB_KUBE_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/ebb/kube}/$sum
bins="kube-apiserver kube-scheduler etcd kwok"
missing=
for b in $bins; do [ -x "$out/$b" ] || missing=1; done
if [ -n "$missing" ]; then
	rm -rf "$out.tmp" && mkdir -p "$out.tmp"
	# Kubernetes' own build stamps its version; go build leaves
	# v0.0.0-master, which clients' version checks dislike.
	v=$(cd "$here" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
	minor=$(echo "$v" | cut -d. -f2)
	ldflags="-X k8s.io/component-base/version.gitVersion=$v -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
	(cd "$here" && go build -ldflags "$ldflags" -o "$out.tmp/" \
		k8s.io/kubernetes/cmd/kube-apiserver \
		k8s.io/kubernetes/cmd/kube-scheduler \
		go.etcd.io/etcd/server/v3 \
		sigs.k8s.io/kwok/cmd/kwok)
	# etcd's main package is its module's root, go.etcd.io/etcd/server/v3:
	# go names that binary "server".
	mv "$out.tmp/server" "$out.tmp/etcd"
	rm -rf "$out" && mv "$out.tmp" "$out"
fi
# The harness is ours and changes more often: a stamp of its sources
# decides whether it is rebuilt.
hsum=$(cd "$here" && find testkubelet testca internal -name '*.go' ! -name '*_test.go' | sort | xargs cat go.sum go.mod | sha256sum | cut -c1-16)
if [ "$(cat "$out/harness.sum" 2>/dev/null)" != "$hsum" ] || [ ! -x "$out/testkubelet" ] || [ ! -x "$out/testca" ]; then
	(cd "$here" && go build -o "$out/" ./testkubelet ./testca)
	echo "$hsum" >"$out/harness.sum"
fi
echo "$out"
