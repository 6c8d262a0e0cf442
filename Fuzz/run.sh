#!/usr/bin/env bash
# Builds the libFuzzer targets — the token parser and the CMS reader, seeded with the real
# vectors (when they are beside the clone), and the amount grammar with exact rates — and runs the
# first for SECONDS (default 60) and the second for half as long. Exits non-zero on any crash,
# hang or leak report.
#
# Recipe: SwiftPM cannot link a libFuzzer executable target (it renames the entry point), so the
# library targets are built with coverage instrumentation (-sanitize=fuzzer) into .build-fuzz and
# the driver is linked with swiftc against their objects.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-60}"
swift build --build-path .build-fuzz -Xswiftc -sanitize=fuzzer --target PaysheetTokenFormat >/dev/null
BIN="$(swift build --build-path .build-fuzz --show-bin-path)"
swiftc -sanitize=fuzzer -parse-as-library Fuzz/TokenFuzz.swift -I "$BIN/Modules" \
  "$BIN"/PaysheetModel.build/*.o "$BIN"/SwiftASN1.build/*.o "$BIN"/PaysheetTokenFormat.build/*.o \
  -o .build-fuzz/fuzz-token
CORPUS=.build-fuzz/corpus
mkdir -p "$CORPUS"
if [ -d ../shared/vectors ]; then python3 Fuzz/seed.py ../shared/vectors "$CORPUS"; fi
mkdir -p artifacts/fuzz
.build-fuzz/fuzz-token -max_total_time="$SECONDS_TO_RUN" -timeout=5 -rss_limit_mb=2048 \
  -artifact_prefix=artifacts/fuzz/ -print_final_stats=1 "$CORPUS" 2>&1 | tail -15

echo "== the amount grammar and exact rates ($((SECONDS_TO_RUN / 2)) s)"
swiftc -sanitize=fuzzer -parse-as-library Fuzz/AmountFuzz.swift -I "$BIN/Modules" "$BIN"/PaysheetModel.build/*.o -o .build-fuzz/fuzz-amount
AMOUNTS=.build-fuzz/amount-corpus
mkdir -p "$AMOUNTS"
for seed in "12.30" "-1800.00" "92233720368547758.07" "1e3" "10.00abc" "7.25" "0.0001" "100"; do
  printf '\x02%s' "$seed" > "$AMOUNTS/seed-$(printf '%s' "$seed" | md5sum | cut -c1-8)"
done
.build-fuzz/fuzz-amount -max_total_time="$((SECONDS_TO_RUN / 2))" -timeout=5 -rss_limit_mb=2048 \
  -artifact_prefix=artifacts/fuzz/amount- -print_final_stats=1 "$AMOUNTS" 2>&1 | tail -8
