#!/usr/bin/env bash
# The server's load benchmark: a release `paysheet serve` (merchant server + sandbox UnionPay
# gateway, one process, this machine's 2 cores) driven by `paysheet-bench load` on loopback,
# once with SQLite and once with PostgreSQL. Prints authorized payments/s, p50/p99 latency, and
# the same run's baseline (GET /health at the same concurrency).
#
#   bash Tools/load_bench.sh [PAYMENTS] [CONCURRENCY]      (PostgreSQL: started by .ci/postgres.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
PAYMENTS="${1:-3000}"
CONCURRENCY="${2:-32}"
swift build -c release --product paysheet >/dev/null
swift build -c release --product paysheet-bench >/dev/null
BIN="$(swift build -c release --show-bin-path)"

run() {  # $1: label, $2: database URL or empty, $3: non-empty to count PostgreSQL's processes too
  local dir port pid gpid
  dir="$(mktemp -d)"
  port=$((20000 + RANDOM % 20000))
  # The sandbox gateway in its own process, as an acquirer is in production (it shares the cores).
  "$BIN/paysheet" acquirer-sandbox --data "$dir" --listen "127.0.0.1:$((port + 1))" >"$dir/gateway.log" 2>&1 &
  gpid=$!
  for _ in $(seq 1 200); do curl -fs "http://127.0.0.1:$((port + 1))/health" >/dev/null 2>&1 && break; sleep 0.1; done
  local args=(serve --data "$dir" --listen "127.0.0.1:$port" --no-demo-order)
  [ -n "$2" ] && args+=(--database "$2")
  PAYSHEET_ACQUIRER_URL="http://127.0.0.1:$((port + 1))" PAYSHEET_LOG_LEVEL=warning "$BIN/paysheet" "${args[@]}" >"$dir/serve.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break; sleep 0.1; done
  echo "== $1 ($PAYMENTS payments, concurrency $CONCURRENCY)"
  "$BIN/paysheet-bench" load --server "http://127.0.0.1:$port" --data "$dir" --payments "$PAYMENTS" --concurrency "$CONCURRENCY" \
    --cpu-of "server=$pid" --cpu-of "gateway=$gpid" ${3:+--cpu-of "postgresql=name:postgres"}
  kill "$pid" "$gpid"; wait "$pid" "$gpid" || true
}

run "SQLite" "" ""
PG="$(bash .ci/postgres.sh 55432)"
DB="bench$$"
su postgres -c "psql -h 127.0.0.1 -p 55432 -U postgres -qc 'CREATE DATABASE $DB'"
run "PostgreSQL" "${PG%/*}/$DB" postgres
