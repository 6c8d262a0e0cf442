#!/usr/bin/env bash
# The server's load benchmark: a release `paysheet serve` and, in its own process as an acquirer
# would be, `paysheet acquirer-sandbox`, both on this machine's 2 cores, driven on loopback by
# `paysheet-bench load`, once with SQLite and once with PostgreSQL; then the protocol floor
# (`paysheet-bench floor-server`: the same calls, stack, token library, signed messages and
# gateway, without storage or bookkeeping) for comparison. Prints authorized payments/s, p50/p99
# latency, CPU per payment of each process, and the same run's baselines.
#
#   bash Tools/load_bench.sh [PAYMENTS] [CONCURRENCY] [all|sqlite|sqlite-11|postgres|floor]
#   (sqlite-11: SQLite with ACP signMethod=11, SHA-256 with the secure key: no RSA signature)
#   (PostgreSQL: started by .ci/postgres.sh; PAYSHEET_BENCH_BIN=DIR uses binaries already built there)
set -euo pipefail
cd "$(dirname "$0")/.."
PAYMENTS="${1:-3000}"
CONCURRENCY="${2:-32}"
WHICH="${3:-all}"
if [ -n "${PAYSHEET_BENCH_BIN:-}" ]; then
  BIN="$PAYSHEET_BENCH_BIN"
else
  swift build -c release --product paysheet >/dev/null
  swift build -c release --product paysheet-bench >/dev/null
  BIN="$(swift build -c release --show-bin-path)"
fi

run() {  # $1: label, $2: database URL, "floor" for the protocol floor, or empty; $3: non-empty to count PostgreSQL's processes too
  local dir port pid gpid
  dir="$(mktemp -d)"
  port=$((20000 + RANDOM % 20000))
  # The sandbox gateway in its own process, as an acquirer is in production (it shares the cores).
  "$BIN/paysheet" acquirer-sandbox --data "$dir" --listen "127.0.0.1:$((port + 1))" >"$dir/gateway.log" 2>&1 &
  gpid=$!
  for _ in $(seq 1 200); do curl -fs "http://127.0.0.1:$((port + 1))/health" >/dev/null 2>&1 && break; sleep 0.1; done
  if [ "$2" = floor ]; then
    "$BIN/paysheet-bench" floor-server --data "$dir" --listen "127.0.0.1:$port" --gateway "http://127.0.0.1:$((port + 1))" >"$dir/serve.log" 2>&1 &
  else
    local args=(serve --data "$dir" --listen "127.0.0.1:$port" --no-demo-order)
    [ -n "$2" ] && args+=(--database "$2")
    # The merchant's API key (the load generator creates orders and refunds with it; each
    # authorization carries its order's client secret, so the numbers include checking both).
    PAYSHEET_API_KEY="$("$BIN/paysheet" api-key create --data "$dir" ${2:+--database "$2"} --name load | tail -1)"
    export PAYSHEET_API_KEY
    PAYSHEET_ACQUIRER_URL="http://127.0.0.1:$((port + 1))" PAYSHEET_LOG_LEVEL=warning PAYSHEET_ACQUIRER_SIGN_METHOD="${SIGN_METHOD:-01}" \
      "$BIN/paysheet" "${args[@]}" >"$dir/serve.log" 2>&1 &
  fi
  pid=$!
  for _ in $(seq 1 200); do curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break; sleep 0.1; done
  echo "== $1 ($PAYMENTS payments, concurrency $CONCURRENCY)"
  "$BIN/paysheet-bench" load --server "http://127.0.0.1:$port" --data "$dir" --payments "$PAYMENTS" --concurrency "$CONCURRENCY" \
    --cpu-of "server=$pid" --cpu-of "gateway=$gpid" ${3:+--cpu-of "postgresql=name:postgres"}
  kill "$pid" "$gpid"; wait "$pid" "$gpid" || true
}

if [ "$WHICH" = all ] || [ "$WHICH" = sqlite ]; then
  run "SQLite" "" ""
fi
if [ "$WHICH" = all ] || [ "$WHICH" = sqlite-11 ]; then
  SIGN_METHOD=11 run "SQLite, signMethod 11 (secure key, no RSA)" "" ""
fi
if [ "$WHICH" = all ] || [ "$WHICH" = postgres ]; then
  PG="$(bash .ci/postgres.sh 55432)"
  DB="bench$$"
  su postgres -c "psql -h 127.0.0.1 -p 55432 -U postgres -qc 'CREATE DATABASE $DB'"
  run "PostgreSQL" "${PG%/*}/$DB" postgres
fi
if [ "$WHICH" = all ] || [ "$WHICH" = floor ]; then
  run "Protocol floor (no storage, no bookkeeping; not a server to run)" floor ""
fi
