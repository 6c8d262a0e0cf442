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
#   "all" runs ROUNDS rounds: the first with every mode's timed run and CPU per payment, each a
#   saturation search over the concurrencies of SWEEP; the later ones the searches of SQLite,
#   PostgreSQL and the floor again (their order turned each round). It ends with the targets, read
#   from the medians of the rounds at each concurrency: SQLite / floor and PostgreSQL / SQLite at
#   every concurrency from 8 up, and the p99 where the median rate saturates.
#   (PostgreSQL: a fresh cluster of its own for each PostgreSQL run, started by .ci/postgres.sh on
#   port 55439 in /tmp/paysheet-bench-pg and stopped at the end — never the tests' cluster, whose
#   leftover databases keep autovacuum and checkpoints busy; PAYSHEET_BENCH_BIN=DIR uses binaries
#   already built there)
#   Environment: WARMUP=N uncounted payments before each timed run (300); SWEEP=1,2,… the saturation
#   search's concurrencies (SWEEP= for none) and SWEEP_PAYMENTS=N at each (400); ROUNDS=N ("all":
#   N rounds of SQLite, PostgreSQL and the floor, the targets the medians of the rounds; 5).
#   Everything a run needs (curl, python3, PostgreSQL's server, HAProxy) is installed, when missing,
#   before the first run: nothing is installed while a run is measured.
set -euo pipefail
cd "$(dirname "$0")/.."
PAYMENTS="${1:-3000}"
CONCURRENCY="${2:-32}"
WHICH="${3:-all}"
# The saturation search after each run: these concurrencies, SWEEP_PAYMENTS payments at each (SWEEP= for none).
SWEEP="${SWEEP-1,2,4,8,12,16,24,32}"
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

# What the chosen runs need, installed before the first of them (never in the middle of a run).
preflight() {
  local missing=()
  for tool in curl python3; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
  case "$WHICH" in all|postgres*)
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
    command -v openssl >/dev/null 2>&1 || missing+=(openssl) ;;
  esac
  case "$WHICH" in all|postgres-2|postgres-3) command -v haproxy >/dev/null 2>&1 || missing+=(haproxy) ;; esac
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "preflight: installing ${missing[*]} before the first run" >&2
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}
preflight

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
  case " ${SWEEP_ARGS[*]} " in
    *" --sweep-only "*) echo "== $1 (the search only: $SWEEP_PAYMENTS payments at each of $SWEEP)" | record ;;
    *) echo "== $1 ($PAYMENTS payments, concurrency $CONCURRENCY)" | record ;;
  esac
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
# Beside the targets (measured once, without the search when "all" runs them).
[ "$WHICH" = all ] && ALL_SWEEP_ARGS=("${SWEEP_ARGS[@]}") && SWEEP_ARGS=(--warmup "$WARMUP")
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
[ "$WHICH" = all ] && SWEEP_ARGS=("${ALL_SWEEP_ARGS[@]}")
if [ "$WHICH" = all ] || [ "$WHICH" = postgres ]; then
  run "PostgreSQL" "$(new_database "bench$$")" postgres
fi
[ "$WHICH" = all ] && SWEEP_ARGS=(--warmup "$WARMUP")
for n in 2 3; do
  if [ "$WHICH" = all ] || [ "$WHICH" = "postgres-$n" ]; then
    run_behind_balancer "$n" "$(new_database "bench$$n$n")"
  fi
done
[ "$WHICH" = all ] && SWEEP_ARGS=("${ALL_SWEEP_ARGS[@]}")
if [ "$WHICH" = all ] || [ "$WHICH" = floor ]; then
  run "Protocol floor (no storage, no bookkeeping; not a server to run)" floor ""
fi
# More rounds of the three searches the targets compare (after the same warm-up, without the
# timed run), so that each target is read from medians of rounds minutes apart rather than from
# one search on a shared machine whose speed drifts by 10% or more between runs; the order of the
# three turns each round.
if [ "$WHICH" = all ] && [ -n "$SWEEP" ]; then
  SWEEP_ARGS=(--warmup "$WARMUP" --sweep "$SWEEP" --sweep-payments "$SWEEP_PAYMENTS" --sweep-only)
  for round in $(seq 2 "$ROUNDS"); do
    for k in 0 1 2; do
      case $(( (round + k) % 3 )) in
        0) run "SQLite (round $round)" "" "" ;;
        1) run "PostgreSQL (round $round)" "$(new_database "bench$$r$round")" postgres ;;
        2) run "Protocol floor (no storage, no bookkeeping; not a server to run) (round $round)" floor "" ;;
      esac
    done
  done
fi
if [ "$WHICH" = all ]; then
  python3 - "$RESULTS" <<'PY'
import re, statistics, sys
# Each run: its timed run's rate (the first round's) and its search's rate and p99 per concurrency.
runs, current = {}, None
for line in open(sys.argv[1]):
    if line.startswith("== "):
        current = {"rate": None, "sweep": {}}
        runs.setdefault(line[3:].split(" (")[0], []).append(current)
        continue
    if current is None: continue
    m = re.search(r"^sweep +concurrency +(\d+): +([\d.]+) authorized payments/s, p50 +[\d.]+ ms, p99 +([\d.]+) ms", line)
    if m:
        current["sweep"][int(m.group(1))] = (float(m.group(2)), float(m.group(3)))
        continue
    m = re.search(r"^payments .* ([\d.]+) authorized payments/s", line)
    if m: current["rate"] = float(m.group(1))
SQ, PG, FL = "SQLite", "PostgreSQL", "Protocol floor"
def spread(values):
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"
def level(mode, c):  # the rounds' (rate, p99) at concurrency c
    return [r["sweep"][c] for r in runs.get(mode, []) if c in r["sweep"]]
def paired(top, bottom, c):  # the rounds' ratios at c, round k of one over round k of the other
    return [a["sweep"][c][0] / b["sweep"][c][0] for a, b in zip(runs.get(top, []), runs.get(bottom, []))
            if c in a["sweep"] and c in b["sweep"]]
rounds = min(len(runs.get(m, [])) for m in (SQ, PG, FL)) if all(m in runs for m in (SQ, PG, FL)) else 0
print(f"== Targets, from {rounds} rounds of each search (ratios: min / median / max of the rounds' ratios)")
concurrencies = sorted(set().union(*[set(r["sweep"]) for m in (SQ, PG, FL) for r in runs.get(m, [])]) or [])
print("concurrency   SQLite/s  PostgreSQL/s  floor/s   SQLite / floor       PostgreSQL / SQLite")
met = {"sq": True, "pg": True}
for c in concurrencies:
    med = [statistics.median([x[0] for x in level(m, c)]) if level(m, c) else 0 for m in (SQ, PG, FL)]
    sf, ps = paired(SQ, FL, c), paired(PG, SQ, c)
    if c >= 8:
        met["sq"] &= bool(sf) and statistics.median(sf) >= 0.9
        met["pg"] &= bool(ps) and statistics.median(ps) >= 0.8
    print(f"{c:>11}   {med[0]:8.0f}  {med[1]:12.0f}  {med[2]:7.0f}   {spread(sf) if sf else '-':19}  {spread(ps) if ps else '-'}")
if any(c >= 8 for c in concurrencies):
    print(f"target    SQLite / protocol floor at least 0.9 (median) at every concurrency from 8: {'met' if met['sq'] else 'NOT met'}")
    print(f"target    PostgreSQL (one server) / SQLite at least 0.8 (median) at every concurrency from 8: {'met' if met['pg'] else 'NOT met'}")
# Saturation, read from the medians: the lowest concurrency whose median rate is within 10% of the
# best median rate (one noisy level or round cannot move it); the p99 there is the median of the rounds'.
for mode in (SQ, PG, FL):
    medians = {c: statistics.median([x[0] for x in level(mode, c)]) for c in concurrencies if level(mode, c)}
    if not medians: continue
    best = max(medians.values())
    knee = min(c for c, rate in medians.items() if rate >= 0.9 * best)
    p99s = [x[1] for x in level(mode, knee)]
    p99 = statistics.median(p99s)
    line = (f"saturation {mode}: concurrency {knee} (the lowest whose median rate is within 10% of the best, "
            f"{best:.0f}/s): median {medians[knee]:.0f} payments/s, p99 median {p99:.1f} ms (rounds {min(p99s):.1f}–{max(p99s):.1f})")
    if mode != FL: line += f"; target under 100 ms: {'met' if p99 < 100 else 'NOT met'}"
    print(line)
# The first round's timed runs, for the record (one pair; the targets are read above).
sq, pg, fl = (runs.get(m, [{}])[0].get("rate") for m in (SQ, PG, FL))
if sq and fl and pg:
    print(f"timed run (first round) SQLite {sq:.0f}/s, PostgreSQL {pg:.0f}/s, floor {fl:.0f}/s: SQLite / floor {sq / fl:.3f}, PostgreSQL / SQLite {pg / sq:.3f}")
PY
fi
