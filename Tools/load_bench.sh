#!/usr/bin/env bash
# The server's load benchmark: a release `paysheet serve` and, in its own process as an acquirer
# would be, `paysheet acquirer-sandbox`, both on this machine's 2 cores, driven on loopback by
# `paysheet-bench load`, once with SQLite and once with PostgreSQL; then the protocol floor
# (`paysheet-bench floor-server`: the same calls, stack, token library, signed messages and
# gateway, without storage or bookkeeping) for comparison. Prints authorized payments/s, p50/p99
# latency, CPU per payment of each process, and the same run's baselines.
#
#   bash Tools/load_bench.sh [PAYMENTS] [CONCURRENCY] [all|sqlite|sqlite-11|postgres|postgres-2|postgres-3|floor]
#   (sqlite-11: SQLite with ACP signMethod=11, SHA-256 with the secure key: no RSA signature)
#   (postgres-N: N servers on one PostgreSQL behind HAProxy; round trips summed over them, CPU per
#   payment of the servers together, HAProxy, the gateway and PostgreSQL, and lock waits sampled
#   from pg_stat_activity every 100 ms. On 2 cores more servers cannot be faster: what must stay
#   the same is the cost per payment, which is what lets them scale on more machines.)
#   "all" ends with the targets as ratios of this run.
#   (PostgreSQL: a fresh cluster of its own for each PostgreSQL run, started by .ci/postgres.sh on
#   port 55439 in /tmp/paysheet-bench-pg and stopped at the end — never the tests' cluster, whose
#   leftover databases keep autovacuum and checkpoints busy; PAYSHEET_BENCH_BIN=DIR uses binaries
#   already built there)
#   Environment: WARMUP=N uncounted payments before each timed run (300); SWEEP=1,2,… the saturation
#   search's concurrencies (SWEEP= for none) and SWEEP_PAYMENTS=N at each (400); ROUNDS=N ("all":
#   N rounds of SQLite, PostgreSQL and the floor, the targets the median of the rounds' ratios; 5).
set -euo pipefail
cd "$(dirname "$0")/.."
PAYMENTS="${1:-3000}"
CONCURRENCY="${2:-32}"
WHICH="${3:-all}"
# The saturation search after each run: these concurrencies, SWEEP_PAYMENTS payments at each (SWEEP= for none).
SWEEP="${SWEEP-1,2,4,8,16,32}"
SWEEP_PAYMENTS="${SWEEP_PAYMENTS:-400}"
# Payments authorized before each timed run and not counted (a warm server, as the sweep's always was).
WARMUP="${WARMUP:-300}"
# "all": rounds of SQLite, PostgreSQL and the floor for the targets (the first with the search).
ROUNDS="${ROUNDS:-5}"
SWEEP_ARGS=(--warmup "$WARMUP")
[ -n "$SWEEP" ] && SWEEP_ARGS+=(--sweep "$SWEEP" --sweep-payments "$SWEEP_PAYMENTS")
if [ -n "${PAYSHEET_BENCH_BIN:-}" ]; then
  BIN="$PAYSHEET_BENCH_BIN"
else
  swift build -c release --product paysheet >/dev/null
  swift build -c release --product paysheet-bench >/dev/null
  BIN="$(swift build -c release --show-bin-path)"
fi

RESULTS="$(mktemp)"
record() { tee -a "$RESULTS"; }

# The benchmark's own PostgreSQL (see above).
PG_PORT=55439
PG_DIR=/tmp/paysheet-bench-pg
stop_postgres() {
  local bin
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  if [ -n "$bin" ] && [ -f "$PG_DIR/postmaster.pid" ]; then
    su postgres -c "$bin/pg_ctl -D $PG_DIR -m fast -w stop" >/dev/null 2>&1 || true
  fi
}
trap stop_postgres EXIT

# Samples backends waiting on a lock (pg_stat_activity) every 100 ms, with one psql session (\watch),
# until $1 (a file) appears.
sample_locks() {
  local stop="$1" out="$2" pid
  : >"$out"
  echo "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' \\watch 0.1" \
    | su postgres -c "psql -h 127.0.0.1 -p $PG_PORT -U postgres -Atq" >>"$out" 2>/dev/null &
  pid=$!
  while [ ! -e "$stop" ]; do sleep 0.2; done
  pkill -P "$pid" 2>/dev/null; kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
}
report_locks() {
  python3 - "$1" <<'PY'
import sys
v = [int(x) for x in open(sys.argv[1]).read().split() if x.strip().isdigit()]
waiting = [x for x in v if x > 0]
print(f"locks     {len(v)} samples of pg_stat_activity: {len(waiting)} with a backend waiting on a lock"
      f" ({100.0 * len(waiting) / max(1, len(v)):.1f} %), at most {max(v) if v else 0} at once")
PY
}

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
  echo "== $1 ($PAYMENTS payments, concurrency $CONCURRENCY)" | record
  local sampler=""
  if [ -n "$3" ]; then sample_locks "$dir/stop-sampling" "$dir/locks.txt" & sampler=$!; fi
  "$BIN/paysheet-bench" load --server "http://127.0.0.1:$port" --data "$dir" --payments "$PAYMENTS" --concurrency "$CONCURRENCY" \
    --cpu-of "server=$pid" --cpu-of "gateway=$gpid" ${3:+--cpu-of "postgresql=tree:$(head -1 "$PG_DIR/postmaster.pid")"} \
    "${SWEEP_ARGS[@]}" | record
  if [ -n "$3" ]; then touch "$dir/stop-sampling"; wait "$sampler" 2>/dev/null || true; report_locks "$dir/locks.txt" | record; fi
  kill "$pid" "$gpid"; wait "$pid" "$gpid" 2>/dev/null || true
  # PostgreSQL stopped, so that its checkpoints do not share the disk with the next run's.
  if [ -n "$3" ]; then stop_postgres; fi
}

run_behind_balancer() {  # $1: how many servers; $2: database URL
  local dir port gpid hpid n pids urls ports
  dir="$(mktemp -d)"
  port=$((20000 + RANDOM % 20000))
  "$BIN/paysheet" acquirer-sandbox --data "$dir" --listen "127.0.0.1:$((port + 1))" >"$dir/gateway.log" 2>&1 &
  gpid=$!
  for _ in $(seq 1 200); do curl -fs "http://127.0.0.1:$((port + 1))/health" >/dev/null 2>&1 && break; sleep 0.1; done
  PAYSHEET_API_KEY="$("$BIN/paysheet" api-key create --data "$dir" --database "$2" --name load | tail -1)"
  export PAYSHEET_API_KEY
  pids=(); urls=(); ports=()
  for n in $(seq 1 "$1"); do
    local p=$((port + 1 + n))
    PAYSHEET_ACQUIRER_URL="http://127.0.0.1:$((port + 1))" PAYSHEET_LOG_LEVEL=warning \
      "$BIN/paysheet" serve --data "$dir" --listen "127.0.0.1:$p" --no-demo-order --database "$2" >"$dir/serve-$n.log" 2>&1 &
    pids+=("$!"); urls+=(--metrics-from "http://127.0.0.1:$p"); ports+=("$p")
  done
  for p in "${ports[@]}"; do
    for _ in $(seq 1 200); do curl -fs "http://127.0.0.1:$p/health" >/dev/null 2>&1 && break; sleep 0.1; done
  done
  hpid="$(bash Tools/haproxy.sh "$dir" "$port" "${ports[@]}")"
  for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break; sleep 0.1; done
  sleep 1.5  # HAProxy's checks see every server up
  echo "== PostgreSQL, $1 servers behind HAProxy ($PAYMENTS payments, concurrency $CONCURRENCY)" | record
  sample_locks "$dir/stop-sampling" "$dir/locks.txt" &
  local sampler=$!
  local all_pids
  all_pids="$(IFS=,; echo "${pids[*]}")"
  [ "$1" = 1 ] && all_pids="${pids[0]},${pids[0]}"
  "$BIN/paysheet-bench" load --server "http://127.0.0.1:$port" --data "$dir" --payments "$PAYMENTS" --concurrency "$CONCURRENCY" \
    "${urls[@]}" --cpu-of "servers=$all_pids" --cpu-of "haproxy=$hpid" --cpu-of "gateway=$gpid" --cpu-of "postgresql=tree:$(head -1 "$PG_DIR/postmaster.pid")" \
    "${SWEEP_ARGS[@]}" | record
  touch "$dir/stop-sampling"; wait "$sampler" 2>/dev/null || true
  report_locks "$dir/locks.txt" | record
  kill "${pids[@]}" "$gpid" "$hpid" 2>/dev/null; wait "${pids[@]}" "$gpid" 2>/dev/null || true
  stop_postgres
}

if [ "$WHICH" = all ] || [ "$WHICH" = sqlite ]; then
  run "SQLite" "" ""
fi
if [ "$WHICH" = all ] || [ "$WHICH" = sqlite-11 ]; then
  SIGN_METHOD=11 run "SQLite, signMethod 11 (secure key, no RSA)" "" ""
fi
# A fresh PostgreSQL cluster for the benchmark with one database $1 (as each SQLite run has a new
# file: every PostgreSQL run starts without the previous runs' tables, WAL and checkpoints); prints its URL.
new_database() {
  local url
  stop_postgres
  rm -rf "$PG_DIR" "$PG_DIR-tls"
  url="$(bash .ci/postgres.sh "$PG_PORT" "$PG_DIR")"
  su postgres -c "psql -h 127.0.0.1 -p $PG_PORT -U postgres -qc 'CREATE DATABASE $1'"
  echo "${url%/*}/$1"
}
if [ "$WHICH" = all ] || [ "$WHICH" = postgres ]; then
  run "PostgreSQL" "$(new_database "bench$$")" postgres
fi
for n in 2 3; do
  if [ "$WHICH" = all ] || [ "$WHICH" = "postgres-$n" ]; then
    run_behind_balancer "$n" "$(new_database "bench$$n$n")"
  fi
done
if [ "$WHICH" = all ] || [ "$WHICH" = floor ]; then
  run "Protocol floor (no storage, no bookkeeping; not a server to run)" floor ""
fi
# More rounds of the three runs the targets compare, one after another (no search, the same
# warm-up), so that each target is the median of ratios measured minutes apart rather than of one
# pair of runs on a shared machine whose speed drifts by 10% or more between runs.
if [ "$WHICH" = all ]; then
  SWEEP_ARGS=(--warmup "$WARMUP")
  for round in $(seq 2 "$ROUNDS"); do
    run "SQLite (round $round)" "" ""
    run "PostgreSQL (round $round)" "$(new_database "bench$$r$round")" postgres
    run "Protocol floor (no storage, no bookkeeping; not a server to run) (round $round)" floor ""
  done
fi
if [ "$WHICH" = all ]; then
  python3 - "$RESULTS" <<'PY'
import re, statistics, sys
runs, label = {}, None
for line in open(sys.argv[1]):
    if line.startswith("== "):
        label = line[3:].split(" (")[0]
        runs.setdefault(label, {"rates": []})
    m = re.search(r"^sweep +concurrency +(\d+): +([\d.]+) authorized payments/s", line)
    if m and label:
        runs[label].setdefault("sweep", {})[int(m.group(1))] = float(m.group(2))
    if line.startswith("sweep"): continue
    m = re.search(r"^saturation concurrency (\d+) .*: ([\d.]+) payments/s, p99 ([\d.]+) ms", line)
    if m and label:
        runs[label]["saturation"] = (int(m.group(1)), float(m.group(3)))
        continue
    m = re.search(r"([\d.]+) authorized payments/s", line)
    if m and label: runs[label]["rates"].append(float(m.group(1)))
def run(label):
    return runs.get(label, {"rates": []})
sq, pg, fl = run("SQLite")["rates"], run("PostgreSQL")["rates"], run("Protocol floor")["rates"]
print("== Targets, as ratios of this run (each the median of its rounds' ratios)")
for name, above, below, goal in (("PostgreSQL (one server) / SQLite", pg, sq, 0.8),
                                 ("SQLite / protocol floor", sq, fl, 0.9)):
    ratios = [a / b for a, b in zip(above, below)]
    if not ratios: continue
    median = statistics.median(ratios)
    each = ", ".join(f"{r:.2f}" for r in ratios)
    print(f"target    {name} = {median:.3f} (rounds: {each}; target at least {goal}): {'met' if median >= goal else 'NOT met'}")
for name, top, bottom in (("PostgreSQL (one server) / SQLite", "PostgreSQL", "SQLite"),
                          ("SQLite / protocol floor", "SQLite", "Protocol floor")):
    above, below = run(top).get("sweep", {}), run(bottom).get("sweep", {})
    pairs = ", ".join(f"c={c} {above[c] / below[c]:.2f}" for c in sorted(set(above) & set(below)))
    if pairs: print(f"sweep     {name} at each concurrency of the search: {pairs}")
for name in ("SQLite", "PostgreSQL"):
    saturation = run(name).get("saturation")
    if saturation:
        c, p99 = saturation
        print(f"target    {name} p99 where the rate saturates (concurrency {c}) = {p99:.1f} ms (target under 100 ms): {'met' if p99 < 100 else 'NOT met'}")
PY
fi
