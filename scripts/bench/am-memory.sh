#!/usr/bin/env bash
# The AM's memory over a long local session (issue 24): 100,000 tiny DAGs
# (one task running /bin/true, each into an output of its own) from 200
# concurrent clients, the process's RSS and live heap every 10,000.
# EBB_BENCH_DAGS, EBB_BENCH_CLIENTS, EBB_BENCH_EVERY change the sizes;
# EBB_BENCH_SET="key=value ..." adds configuration (e.g. ebb.am.dag.retained.count=100).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec go test ./cmd/ebb -run '^$' -bench SessionMemory -benchtime 1x -timeout 2h
