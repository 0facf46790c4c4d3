#!/usr/bin/env bash
# Regenerates the Go code for every .proto file under proto/.
#
#   proto/hadoop/*.proto -> proto/hadooppb (Hadoop RPC + YARN messages, our own .proto files)
#   proto/ebb/*.proto    -> proto/ebbpb    (ebb's AM<->worker and client<->AM protocol)
#
# protoc comes from Debian's protobuf-compiler; the Go plugins are pinned in go.mod as tools,
# so the output is reproducible. `scripts/genproto.sh --check` regenerates into a temporary
# directory and fails if the committed code differs (CI runs it).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v protoc >/dev/null 2>&1; then
  echo "genproto: protoc not found; install Debian's protobuf-compiler (apt-get install -y protobuf-compiler)" >&2
  exit 2
fi

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/protoc-gen-go" google.golang.org/protobuf/cmd/protoc-gen-go
go build -o "$bin/protoc-gen-go-grpc" google.golang.org/grpc/cmd/protoc-gen-go-grpc

gen() { # gen OUTROOT
  local out=$1
  for dir in hadoop ebb; do
    files=$(ls proto/$dir/*.proto 2>/dev/null || true)
    [ -n "$files" ] || continue
    PATH="$bin:$PATH" protoc -I proto/$dir \
      --go_out="$out" --go_opt=module=github.com/ebb-am/ebb \
      --go-grpc_out="$out" --go-grpc_opt=module=github.com/ebb-am/ebb \
      $files
  done
}

if [ "${1:-}" = "--check" ]; then
  tmp=$(mktemp -d)
  gen "$tmp"
  status=0
  for pkg in hadooppb ebbpb; do
    [ -d "$tmp/proto/$pkg" ] || continue
    if ! diff -r -x "*_test.go" -x doc.go "$tmp/proto/$pkg" "proto/$pkg" >/dev/null; then
      echo "genproto: proto/$pkg is stale; run scripts/genproto.sh and commit the result" >&2
      diff -r -x "*_test.go" -x doc.go "$tmp/proto/$pkg" "proto/$pkg" | head -20 >&2 || true
      status=1
    fi
  done
  rm -rf "$tmp"
  exit $status
fi
gen .
echo "genproto: generated proto/hadooppb and proto/ebbpb"
