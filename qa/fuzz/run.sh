#!/bin/bash
# Builds the libFuzzer targets (src/os/smrstore/fuzz/) in their own clang build directory
# and runs each one.
#   qa/fuzz/run.sh            short mode, part of `make test`: every target for
#                             SMRSTORE_FUZZ_SECONDS (default 20) seconds
#   qa/fuzz/run.sh --long     `make fuzz-long`: every target for SMRSTORE_FUZZ_RUNS
#                             (default 10000000) executions, then a summary table
# Env: SMRSTORE_FUZZ_BUILD (default build-fuzz), SMRSTORE_FUZZ_JOBS (build jobs, default 2),
#      SMRSTORE_FUZZ_PARALLEL (targets fuzzed at once: default 1, 2 with --long),
#      SMRSTORE_FUZZ_TARGETS (only these targets, e.g. "record_header zone_footer").
# Exit status 1 when any target crashed (its input is kept under BUILD/fuzz/out-MODE/<target>/).
# Each target's working corpus (seeds + what the fuzzer found) is BUILD/fuzz/corpus/<target>/;
# the summary of a run is BUILD/fuzz/out-short/summary.txt or out-long/summary.txt.
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=${SMRSTORE_FUZZ_BUILD:-build-fuzz}
JOBS=${SMRSTORE_FUZZ_JOBS:-2}
MODE=short
case "${1:-}" in
  --long) MODE=long ;;
  "") ;;
  *) echo "usage: qa/fuzz/run.sh [--long]" >&2; exit 2 ;;
esac

if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz: clang++ missing (scripts/install-deps.sh build installs Debian's clang)" >&2
  exit 1
fi
# Configured every time (quick when nothing changed): a build dir made before the
# transaction target existed had SMRSTORE_WITH_CEPH=OFF cached.
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DSMRSTORE_FUZZ=ON -DSMRSTORE_BUILD_TESTS=OFF \
  -DSMRSTORE_WITH_CEPH=ON >"$BUILD.configure.log" 2>&1 || {
    cat "$BUILD.configure.log" >&2; exit 1; }
rm -f "$BUILD.configure.log"
cmake --build "$BUILD" --target smrstore_fuzz -j "$JOBS" >"$BUILD.build.log" 2>&1 || {
  cat "$BUILD.build.log" >&2; exit 1; }
rm -f "$BUILD.build.log"

BIN=$BUILD/fuzz
CORPUS=$BIN/corpus
OUT=$BIN/out-$MODE
SEEDS=$BIN/seeds-$MODE
rm -rf "$SEEDS"
mkdir -p "$CORPUS" "$OUT"
"$BIN/fuzz_seeds" "$SEEDS"
# Text targets: checked-in seeds and real files of the tree.
mkdir -p "$SEEDS/stats_json" "$SEEDS/trace_json"
cp src/os/smrstore/fuzz/corpus/stats_json/* "$SEEDS/stats_json/"
cp qa/traces/captures/rados-basic/expected.json "$SEEDS/trace_json/rados-basic-expected.json"
cp qa/traces/captures/rados-basic/meta.json "$SEEDS/trace_json/rados-basic-meta.json"
gzip -dc qa/traces/captures/rados-basic/trace.json.gz >"$SEEDS/trace_json/rados-basic-trace.json"

# target:max_len (bytes): record_header holds a few 4 KiB records (the zone seed: 24 KiB);
# the JSON readers get the first 1 or 4 KiB of their seeds. stats_json stays at 1 KiB: the
# flattener builds each nested path by copying its parent's, so a deeply nested input costs
# O(depth^2) (about 1 ms at 2 KiB under ASan).
# The fast ones (30k-100k exec/s under ASan) first, the slow ones (1k-5k exec/s) last.
TARGETS="zone_footer:4096 journal:4096 store_superblock:8192 device_spec:512 emulated_format:4097
transaction:4096 record_header:24576 stats_json:1024 trace_json:4096"

# SMRSTORE_FUZZ_TARGETS="a b": only those targets (names as in TARGETS, no max_len).
if [ -n "${SMRSTORE_FUZZ_TARGETS:-}" ]; then
  picked=""
  for want in $SMRSTORE_FUZZ_TARGETS; do
    hit=""
    for t in $TARGETS; do [ "${t%%:*}" = "$want" ] && hit=$t; done
    [ -n "$hit" ] || { echo "fuzz: no target '$want'" >&2; exit 2; }
    picked="$picked $hit"
  done
  TARGETS=$picked
fi

if [ "$MODE" = long ]; then
  LIMIT="-runs=${SMRSTORE_FUZZ_RUNS:-10000000}"
else
  LIMIT="-max_total_time=${SMRSTORE_FUZZ_SECONDS:-20}"
fi

# One target: fuzz it, write its summary line to $OUT/<name>.summary, its status to
# $OUT/<name>.rc.
run_target() {
  local name=${1%%:*} maxlen=${1##*:}
  rm -rf "${OUT:?}/$name" "$OUT/$name".*
  mkdir -p "$CORPUS/$name" "$OUT/$name"
  cp -n "$SEEDS/$name"/* "$CORPUS/$name/" 2>/dev/null || true
  local log=$OUT/$name.log start status=0
  start=$(date +%s)
  # -rss_limit_mb: a decoder that allocates from a length field must not balloon.
  (cd "$OUT/$name" && "$ROOT/$BIN/fuzz_$name" "$LIMIT" -max_len="$maxlen" -rss_limit_mb=1024 \
     -timeout=10 -print_final_stats=1 -artifact_prefix="$ROOT/$OUT/$name/" \
     "$ROOT/$CORPUS/$name") >"$log" 2>&1 || status=$?
  local secs execs speed crashes files kib
  secs=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  crashes=$(find "$OUT/$name" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o \
            -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  files=$(find "$CORPUS/$name" -type f | wc -l)
  kib=$(du -sk "$CORPUS/$name" | cut -f1)
  printf '%-18s %12s %10s %8s %8s %12s %10s\n' "$name" "${execs:-?}" "${speed:-?}" "$secs" \
    "$crashes" "$files" "$kib" >"$OUT/$name.summary"
  if [ "$status" != 0 ] || [ "$crashes" != 0 ]; then
    { echo "fuzz: $name FAILED (exit $status); log $log; inputs:"
      find "$OUT/$name" -maxdepth 1 -type f -name '*-*'
      grep -m5 -E 'ERROR|property violated|runtime error' "$log" || true; } >&2
    echo 1 >"$OUT/$name.rc"
  else
    echo 0 >"$OUT/$name.rc"
  fi
}

# Targets run SMRSTORE_FUZZ_PARALLEL at a time (default 1; 2 in long mode).
PARALLEL=${SMRSTORE_FUZZ_PARALLEL:-$([ "$MODE" = long ] && echo 2 || echo 1)}
running=0
for t in $TARGETS; do
  if [ "$running" -ge "$PARALLEL" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait

rc=0
printf '%-18s %12s %10s %8s %8s %12s %10s\n' target executions exec/s seconds crashes \
  corpus_files corpus_kib >"$OUT/summary.txt"
for t in $TARGETS; do
  name=${t%%:*}
  cat "$OUT/$name.summary" >>"$OUT/summary.txt"
  [ "$(cat "$OUT/$name.rc")" = 0 ] || rc=1
done
cat "$OUT/summary.txt"
n=$(echo $TARGETS | wc -w)
if [ "$rc" = 0 ]; then
  echo "fuzz ($MODE mode): every target ran without a crash"
  echo "fuzz: $n passed, 0 failed"
else
  failed=0
  for t in $TARGETS; do [ "$(cat "$OUT/${t%%:*}.rc")" = 0 ] || failed=$((failed + 1)); done
  echo "fuzz: some targets failed ($MODE mode); see above" >&2
  echo "fuzz: $((n - failed)) passed, $failed failed"
fi
exit $rc
