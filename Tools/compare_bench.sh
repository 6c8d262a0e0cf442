#!/usr/bin/env bash
# Before/after comparison of the server's load benchmark (issue 35: "No slower ... printed in the
# same run before and after"). Two sets of prebuilt release binaries (paysheet, paysheet-bench), run
# alternately in one run: each round runs SQLite, PostgreSQL and the protocol floor for both sides,
# mode by mode, the side that goes first swapping every round, each run by Tools/load_bench.sh (one
# script for both sides, so that both are driven the same way). Prints per side the authorized
# payments/s of each mode, the ratios SQLite / floor and PostgreSQL / SQLite (per round, and
# min/median/max), PostgreSQL's database round trips per payment, p99 latency, the payments not
# paid and the lines the server and gateway logged at warning or worse.
#
#   BEFORE_BIN=DIR AFTER_BIN=DIR bash compare_bench.sh [ROUNDS]
#
# Environment (defaults in brackets):
#   BEFORE_BIN, AFTER_BIN  folders holding release `paysheet` and `paysheet-bench` (required)
#   LOAD_BENCH             the load_bench.sh used for both sides [Tools/load_bench.sh of the tree this
#                          script sits in when it is in Tools/, else ./Tools/load_bench.sh]
#   ROUNDS [3]  PAYMENTS [1500]  CONCURRENCY [16]  WARMUP [300]  SWEEP [empty: no saturation search]
#   RUN_TIMEOUT [300]      seconds for one run (server, gateway and load generator), then killed
#   BUDGET [1500]          seconds for the whole comparison: no round is started that would not end in it
#   LOAD_MAX [1.5], LOAD_WAIT [0]  wait up to LOAD_WAIT seconds (polling every minute) for the
#                          1-minute load average to fall below LOAD_MAX before the first run
#   OUT [a new /tmp/paysheet-compare.XXXXXX]  every run's output, server and gateway logs
# Targets checked (on the medians): SQLite >= 0.9 x floor, PostgreSQL >= 0.8 x SQLite, PostgreSQL
# round trips per payment <= 4.1 (TARGET_ROUND_TRIPS).
set -euo pipefail

ROUNDS="${1:-${ROUNDS:-3}}"
PAYMENTS="${PAYMENTS:-1500}"
CONCURRENCY="${CONCURRENCY:-16}"
WARMUP="${WARMUP:-300}"
SWEEP="${SWEEP-}"
RUN_TIMEOUT="${RUN_TIMEOUT:-300}"
BUDGET="${BUDGET:-1500}"
LOAD_MAX="${LOAD_MAX:-1.5}"
LOAD_WAIT="${LOAD_WAIT:-0}"
TARGET_ROUND_TRIPS="${TARGET_ROUND_TRIPS:-4.1}"
: "${BEFORE_BIN:?BEFORE_BIN=DIR with release paysheet and paysheet-bench}"
: "${AFTER_BIN:?AFTER_BIN=DIR with release paysheet and paysheet-bench}"
if [ -z "${LOAD_BENCH:-}" ]; then
  here="$(cd "$(dirname "$0")" && pwd)"
  if [ -f "$here/load_bench.sh" ]; then LOAD_BENCH="$here/load_bench.sh"; else LOAD_BENCH="$PWD/Tools/load_bench.sh"; fi
fi
[ -f "$LOAD_BENCH" ] || { echo "no load_bench.sh at $LOAD_BENCH (set LOAD_BENCH)" >&2; exit 2; }
for side in BEFORE AFTER; do
  dir_var="${side}_BIN"
  for exe in paysheet paysheet-bench; do
    [ -x "${!dir_var}/$exe" ] || { echo "$dir_var: no executable ${!dir_var}/$exe" >&2; exit 2; }
  done
done
# Both sides are driven with the flags this load_bench.sh passes (--payments, --concurrency, --warmup,
# --cpu-of, and --sweep when SWEEP is set): an old paysheet-bench without one fails its runs (rc, no rate).
# Nothing from the caller's environment configures the servers.
for v in $(compgen -e | grep '^PAYSHEET_' || true); do
  [ "$v" = PAYSHEET_BENCH_BIN ] && continue
  echo "note: unset $v for the runs" >&2; unset "$v"
done

OUT="${OUT:-$(mktemp -d /tmp/paysheet-compare.XXXXXX)}"
mkdir -p "$OUT"
PG_DIR=/tmp/paysheet-bench-pg  # load_bench.sh's own cluster (port 55439)
stop_bench_postgres() {
  local bin
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  if [ -n "$bin" ] && [ -f "$PG_DIR/postmaster.pid" ]; then
    su postgres -c "$bin/pg_ctl -D $PG_DIR -m fast -w stop" >/dev/null 2>&1 || true
  fi
}
trap stop_bench_postgres EXIT
load1() { cut -d' ' -f1 /proc/loadavg; }

if [ "$LOAD_WAIT" -gt 0 ]; then
  waited=0
  while python3 -c "import sys; sys.exit(0 if float('$(load1)') >= float('$LOAD_MAX') else 1)" \
    && [ "$waited" -lt "$LOAD_WAIT" ]; do
    echo "waiting: load $(load1) >= $LOAD_MAX ($waited s of $LOAD_WAIT)" >&2
    sleep 60; waited=$((waited + 60))
  done
fi

SUMMARY="$OUT/runs.tsv"
printf 'round\tside\tmode\trate\tp50\tp99\trt\tpaid\tnotpaid\tloglines\trc\tload1\tseconds\tdir\n' >"$SUMMARY"
echo "compare_bench: $ROUNDS rounds, $PAYMENTS payments at concurrency $CONCURRENCY, warm-up $WARMUP, sweep '${SWEEP}'"
echo "  before: $BEFORE_BIN"
echo "  after:  $AFTER_BIN"
echo "  load_bench: $LOAD_BENCH; output in $OUT"
echo "  start $(date -u +%FT%TZ), $(cat /proc/loadavg | cut -d' ' -f1-3) (load 1/5/15 min, $(nproc) cores)"

# One run: $1 round, $2 side (before|after), $3 mode (sqlite|postgres|floor).
one_run() {
  local round="$1" side="$2" mode="$3" bin dir rc=0 t0 t1 l
  if [ "$side" = before ]; then bin="$BEFORE_BIN"; else bin="$AFTER_BIN"; fi
  dir="$OUT/r$round-$side-$mode"
  mkdir -p "$dir"
  l="$(load1)"
  t0=$(date +%s)
  # TMPDIR: load_bench.sh's mktemp -d (the server's data, serve.log, gateway.log) lands in $dir.
  # timeout kills the whole process group (server, gateway, load generator) when a run hangs.
  TMPDIR="$dir" PAYSHEET_BENCH_BIN="$bin" SWEEP="$SWEEP" WARMUP="$WARMUP" ROUNDS=1 \
    timeout -k 15 "$RUN_TIMEOUT" bash "$LOAD_BENCH" "$PAYMENTS" "$CONCURRENCY" "$mode" \
    >"$dir/out.txt" 2>&1 </dev/null || rc=$?
  t1=$(date +%s)
  stop_bench_postgres
  python3 - "$dir" "$round" "$side" "$mode" "$rc" "$l" "$((t1 - t0))" "$PAYMENTS" >>"$SUMMARY" <<'PY'
import glob, os, re, sys
d, rnd, side, mode, rc, load, secs, payments = sys.argv[1:]
text = open(os.path.join(d, "out.txt"), errors="replace").read()
def grab(pattern, cast=float):
    m = re.search(pattern, text, re.M)
    return cast(m.group(1)) if m else None
rate = grab(r"^payments .*?([\d.]+) authorized payments/s")
lat = re.search(r"^latency +authorize p50 ([\d.]+) ms, p99 ([\d.]+) ms", text, re.M)
rt = grab(r"^database +([\d.]+) round trips per payment")
outcomes = re.search(r"^outcomes +(.*)$", text, re.M)
paid, notpaid = None, None
if outcomes:
    counts = dict((k.strip(), int(v)) for k, v in re.findall(r"([^,]+?) (\d+)(?:,|$)", outcomes.group(1)))
    paid = counts.get("paid", 0)
    notpaid = int(payments) - paid
lines = 0  # the server's and gateway's lines at warning or worse, kept in warnings.txt
with open(os.path.join(d, "warnings.txt"), "w") as kept:
    for log in sorted(glob.glob(os.path.join(d, "tmp.*", "*.log"))):
        for l in open(log, errors="replace"):
            if re.match(r"^\S+ (warning|error|critical) ", l):
                lines += 1
                kept.write(os.path.basename(log) + ": " + l)
f = lambda x: "" if x is None else str(x)
print("\t".join([rnd, side, mode, f(rate), f(lat and float(lat.group(1))), f(lat and float(lat.group(2))),
                 f(rt), f(paid), f(notpaid), str(lines), rc, load, secs, d]))
PY
  tail -1 "$SUMMARY" | awk -F'\t' '{printf "  round %s %-6s %-8s %8s payments/s  p99 %6s ms  round trips %4s  not paid %s  warnings %s  rc %s  load %s  %ss\n", $1, $2, $3, $4, $6, ($7 == "" ? "-" : $7), $9, $10, $11, $12, $13}'
}

start=$(date +%s)
last_round=0
for round in $(seq 1 "$ROUNDS"); do
  now=$(date +%s)
  if [ "$round" -gt 1 ] && [ $((now - start + last_round)) -gt "$BUDGET" ]; then
    echo "  budget of $BUDGET s reached: stopping after $((round - 1)) rounds"; break
  fi
  if [ $((round % 2)) = 1 ]; then order=(before after); else order=(after before); fi
  for mode in sqlite postgres floor; do
    for side in "${order[@]}"; do one_run "$round" "$side" "$mode"; done
  done
  last_round=$(($(date +%s) - now))
done
echo "  end $(date -u +%FT%TZ), $(cat /proc/loadavg | cut -d' ' -f1-3) (load 1/5/15 min), $(($(date +%s) - start)) s"

python3 - "$SUMMARY" "$TARGET_ROUND_TRIPS" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
target_rt = float(sys.argv[2])
num = lambda s: float(s) if s else None
runs = {}
for r in rows:
    rnd, side, mode, rate, p50, p99, rt, paid, notpaid, loglines, rc = r[:11]
    runs.setdefault(side, {}).setdefault(mode, {})[int(rnd)] = dict(
        rate=num(rate), p99=num(p99), rt=num(rt), notpaid=num(notpaid), lines=int(loglines), rc=int(rc))
def mmm(v):
    v = [x for x in v if x is not None]
    if not v: return "-"
    return f"{min(v):.3g} / {statistics.median(v):.3g} / {max(v):.3g}  (n={len(v)})"
def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None
print()
print("== Summary (min / median / max over rounds)")
medians = {}
for side in ("before", "after"):
    s = runs.get(side, {})
    get = lambda mode, key: [x[key] for x in s.get(mode, {}).values()]
    rounds = sorted(set().union(*[set(s.get(m, {})) for m in ("sqlite", "postgres", "floor")])) if s else []
    ratio = lambda a, b: [s[a][r]["rate"] / s[b][r]["rate"] for r in rounds
                          if r in s.get(a, {}) and r in s.get(b, {}) and s[a][r]["rate"] and s[b][r]["rate"]]
    sq_fl, pg_sq = ratio("sqlite", "floor"), ratio("postgres", "sqlite")
    medians[side] = dict(sq_fl=med(sq_fl), pg_sq=med(pg_sq), rt=med(get("postgres", "rt")),
                         **{m: med(get(m, "rate")) for m in ("sqlite", "postgres", "floor")})
    print(f"-- {side}")
    for mode, name in (("sqlite", "SQLite"), ("postgres", "PostgreSQL"), ("floor", "floor")):
        print(f"   {name:<11} payments/s {mmm(get(mode, 'rate'))};  p99 ms {mmm(get(mode, 'p99'))}")
    print(f"   SQLite / floor      {mmm(sq_fl)}  rounds: {', '.join(f'{x:.3f}' for x in sq_fl)}")
    print(f"   PostgreSQL / SQLite {mmm(pg_sq)}  rounds: {', '.join(f'{x:.3f}' for x in pg_sq)}")
    print(f"   PostgreSQL round trips per payment {mmm(get('postgres', 'rt'))}")
    bad = [(m, r, x) for m in s for r, x in s[m].items() if x["rc"] != 0 or x["rate"] is None or (x["notpaid"] or 0) > 0]
    lines = sum(x["lines"] for m in s for x in s[m].values())
    print(f"   runs failed or with payments not paid: {len(bad)}"
          + ("".join(f"; round {r} {m}: rc {x['rc']}, not paid {x['notpaid']}" for m, r, x in bad)))
    print(f"   server/gateway log lines at warning or worse: {lines} (each run's warnings.txt)")
print()
print("== Targets (medians of the rounds' ratios)")
for side in ("before", "after"):
    m = medians.get(side)
    if not m: continue
    chk = lambda v, ok: "-" if v is None else f"{v:.3f} {'met' if ok(v) else 'NOT met'}"
    print(f"   {side:<6} SQLite/floor >= 0.9: {chk(m['sq_fl'], lambda v: v >= 0.9)};"
          f"  PostgreSQL/SQLite >= 0.8: {chk(m['pg_sq'], lambda v: v >= 0.8)};"
          f"  round trips <= {target_rt}: {chk(m['rt'], lambda v: v <= target_rt + 1e-9)}")
if "before" in medians and "after" in medians:
    b, a = medians["before"], medians["after"]
    parts = [f"{name} {a[k] / b[k]:.3f}" for k, name in (("sqlite", "SQLite"), ("postgres", "PostgreSQL"), ("floor", "floor"))
             if a.get(k) and b.get(k)]
    print(f"   after / before, median payments/s: {', '.join(parts)}")
PY
echo "runs: $SUMMARY"
