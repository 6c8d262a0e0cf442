#!/usr/bin/env bash
# Builds the libFuzzer target over the token parser and the CMS reader, seeds it with the real
# vectors, and runs it for SECONDS (default 60). Exits non-zero on any crash, hang or leak report.
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
python3 Fuzz/seed.py ../shared/vectors "$CORPUS"
mkdir -p artifacts/fuzz
.build-fuzz/fuzz-token -max_total_time="$SECONDS_TO_RUN" -timeout=5 -rss_limit_mb=2048 \
  -artifact_prefix=artifacts/fuzz/ -print_final_stats=1 "$CORPUS" 2>&1 | tail -15
