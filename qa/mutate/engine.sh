#!/usr/bin/env bash
# Mutation testing of the C++ engine (the C++ half of `make mutate`) with universalmutator
# (PyPI, pinned in qa/mutate/engine-requirements.txt). Long-running; not part of `make test`.
#
# 1. Installs (idempotent, as root on a fresh Debian 12): the build packages
#    (scripts/install-deps.sh build), python3-venv if `python3 -m venv` cannot work, and a venv
#    $SMRSTORE_MUTATE_DIR/cpp-venv with the pinned universalmutator.
# 2. Copies the working tree's CMakeLists.txt, src/, scripts/ and qa/crash/ (the top-level
#    CMakeLists.txt builds its helper), and the stats schema (store/stats_schema_test.cc
#    reads mgr-module/smrstore/stats_schema.json; store/format_doc_test.cc, doc/format.md)
#    (tracked + untracked files as
#    they are on disk) to $SMRSTORE_MUTATE_DIR/tree and builds smrstore_tests there in its own
#    build dir ($SMRSTORE_MUTATE_DIR/build, Release, -DSMRSTORE_WITH_CEPH=OFF: every mutated
#    file is in the engine). The working tree and build/ are never touched.
# 3. A baseline run of the whole smrstore_tests binary (in $SHARDS parallel gtest shards: the
#    suites mostly wait on emulated-device I/O, not on the CPU) must pass.
# 4. Per file: `mutate FILE cpp --noCheck` writes every mutant; they are put in a FIXED seeded
#    random order (seed $SEED) and tried in that order until $SAMPLE of them compiled to new
#    object code (at most $MAX_TRIES tries per file). Per mutant: copy it over the file in the scratch tree,
#    rebuild smrstore_tests (incremental ninja; a build failure = "no-compile"; an object file
#    byte-identical to the original's = "same-object", equivalent and not run), run the
#    file's own quick suites with --gtest_fail_fast, then, if they pass, the whole binary
#    (every test, $SHARDS shards, --gtest_fail_fast, each shard under a timeout). Any failure
#    or timeout = killed; all pass: make test's static thread-safety check
#    (qa/static/thread_safety.py, clang) over the mutated file, a failure = killed by
#    analysis (e.g. a lock removed around a guarded counter); else survived. The original file is restored after every
#    mutant and on any exit (trap).
# 5. Report: per file tried / killed / survived / no-compile / equivalent and score =
#    killed / (killed + survived - equivalent); every survivor as file:line, original line ->
#    mutant line. Printed and written to $SMRSTORE_MUTATE_DIR/cpp-report.txt (raw rows in
#    cpp-results.tsv). Survivors listed in qa/mutate/engine-equivalent.tsv (doc/testing.md
#    explains each) are reported as equivalent and leave the score's denominator.
#
# Environment (defaults):
#   SMRSTORE_MUTATE_DIR=/var/tmp/smrstore-mutate  scratch dir (venv, tree, build, reports)
#   MUTATE_SAMPLE=20        compiling mutants per file
#   MUTATE_SEED=21          seed of the per-file order
#   MUTATE_MAX_TRIES=max(4*SAMPLE, 40)  mutants tried per file at most (no-compile included)
#   MUTATE_CPP_FILES="format/record.cc ..."  files under src/os/smrstore/ (the list below)
#   MUTATE_SHARDS=4         parallel gtest shards of the full run
#   MUTATE_TIMEOUT=         seconds per test run; default max(120, 5 x the baseline run)
#   JOBS=2                  ninja -j
# Exit status: 0 when the run completed (whatever the score), non-zero when it could not run.
set -euo pipefail

# Everything is in main(), read whole before it runs: editing this file during a run (an
# hour) cannot change the run.
main() {
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${SMRSTORE_MUTATE_DIR:-/var/tmp/smrstore-mutate}
SAMPLE=${MUTATE_SAMPLE:-20}
SEED=${MUTATE_SEED:-21}
MAX_TRIES=${MUTATE_MAX_TRIES:-$((4 * SAMPLE > 40 ? 4 * SAMPLE : 40))}
SHARDS=${MUTATE_SHARDS:-4}
JOBS=${JOBS:-2}
# The issue's list: record format + superblock encoding (format/record.cc holds
# Encode/DecodeStoreSuperblock), zone state machine, mount reconciliation, the store's read
# path, GC (the store's and the lifetime policy's death-rate estimator), fsck, the
# superblock log.
FILES=${MUTATE_CPP_FILES:-"format/record.cc device/zone_state_machine.cc zone/zone_manager.cc store/store.cc store/commit_pipeline.cc store/read_path.cc store/gc_worker.cc gc/death_rate.cc gc/pacer.cc store/fsck.cc store/superblock_log.cc"}
ENGINE=src/os/smrstore
VENV=$DIR/cpp-venv
TREE=$DIR/tree
BUILD=$DIR/build
WORK=$DIR/cpp-work
RESULTS=$DIR/cpp-results.tsv
REPORT=$DIR/cpp-report.txt
BIN=$BUILD/$ENGINE/smrstore_tests
UM_VERSION=1.14.1

say() { echo "qa/mutate/engine.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# The quick suites run first for a file's mutants (they kill most of them in seconds); the
# whole binary runs after them whatever the file, so these only order the work.
quick_filter() {
  case "$1" in
    format/record.cc) echo 'Record*:StoreSuperblock*:ZoneFooter*:SuperblockLog*:StoreOpen*' ;;
    device/zone_state_machine.cc) echo '*DeviceConformanceTest*:EmulatedZonedDevice*:FaultInjectionDeviceTest*:ZoneStateMachine*' ;;
    zone/zone_manager.cc) echo 'ZoneManager*' ;;
    store/superblock_log.cc) echo 'SuperblockLog*:StoreOpen*:StoreTest.*' ;;
    store/fsck.cc) echo 'Fsck*:GcReport*:StoreTest.*' ;;
    store/gc_worker.cc) echo 'GcReport*:GcTest.*:StoreTest.*' ;;
    gc/death_rate.cc) echo 'DeathRate*:GcTest.*' ;;
    gc/pacer.cc) echo 'GcPacer*:GcIdle*' ;;
    store/store.cc) echo 'StoreOpen*:StoreTest.*:StoreRead*:StoreConformance.*' ;;
    store/commit_pipeline.cc) echo 'StoreGroups*:*GroupWrite*:StoreTest.*:GcReport*:MediaFault*:HybridStore*' ;;
    store/read_path.cc) echo 'StoreRead*:StoreTest.*:MediaFault*:StoreConformance.*' ;;
    *) echo 'StoreTest.*' ;;
  esac
}

# --- 1. install ---------------------------------------------------------------------------
mkdir -p "$DIR"
if [ "$(id -u)" = 0 ]; then
  "$ROOT/scripts/install-deps.sh" build
  probe=$(mktemp -d)
  if ! python3 -m venv "$probe/v" >/dev/null 2>&1; then
    say "python3 -m venv does not work; installing python3-venv"
    apt-get install -y -q python3-venv >&2 || { apt-get update -qq && apt-get install -y -q python3-venv >&2; }
  fi
  rm -rf "$probe"
fi
if [ ! -x "$VENV/bin/mutate" ] || ! "$VENV/bin/pip" show universalmutator 2>/dev/null | grep -qx "Version: $UM_VERSION"; then
  rm -rf "$VENV"
  python3 -m venv "$VENV" || die "python3 -m venv failed (install python3-venv)"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$ROOT/qa/mutate/engine-requirements.txt" \
    || die "pip install of universalmutator failed"
fi
MUTATE="$VENV/bin/mutate"
PY="$VENV/bin/python"

# --- 2. scratch tree and build ------------------------------------------------------------
rm -rf "$WORK"
mkdir -p "$TREE" "$WORK"
# Files as they are on disk (uncommitted edits included), tracked or new. Only files whose
# content differs are copied (with a fresh mtime), so the kept build dir rebuilds exactly
# what changed since the last run; files gone from the working tree are removed.
(cd "$ROOT" && git ls-files -co --exclude-standard -z -- CMakeLists.txt src scripts qa/crash \
   mgr-module/smrstore/stats_schema.json doc/format.md) \
  | "$PY" -c '
import filecmp, os, shutil, sys
root, tree = sys.argv[1], sys.argv[2]
want = {f for f in sys.stdin.read().split("\0") if f and os.path.isfile(os.path.join(root, f))}
for f in sorted(want):
    src, dst = os.path.join(root, f), os.path.join(tree, f)
    if not os.path.isfile(dst) or not filecmp.cmp(src, dst, shallow=False):
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
for top in ("CMakeLists.txt", "src", "scripts", "qa/crash", "mgr-module/smrstore/stats_schema.json",
            "doc/format.md"):
    base = os.path.join(tree, top)
    paths = [base] if os.path.isfile(base) else [os.path.join(d, n) for d, _, ns in os.walk(base) for n in ns]
    for p in paths:
        if os.path.relpath(p, tree) not in want:
            os.remove(p)
' "$ROOT" "$TREE"
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$TREE" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSMRSTORE_WITH_CEPH=OFF \
    -DSMRSTORE_BUILD_TESTS=ON > "$WORK/cmake.log" 2>&1 || { cat "$WORK/cmake.log" >&2; die "cmake failed"; }
fi
export CCACHE_BASEDIR="$DIR"  # paths hashed relative to $DIR: other scratch dirs hit the cache
say "building smrstore_tests in $BUILD (first run: several minutes on 2 cores)"
ninja -C "$BUILD" -j "$JOBS" smrstore_tests > "$WORK/build.log" 2>&1 \
  || { tail -n 40 "$WORK/build.log" >&2; die "the unmutated tree does not build"; }

export TMPDIR="$WORK/tmp"

# run_tests FILTER TIMEOUT: the binary under FILTER in $SHARDS parallel shards, fail-fast;
# returns 0 if every shard passed, 1 on the first failing or timed-out shard (the others are
# stopped then). Logs in $WORK/shard.<i>.log.
run_tests() {
  local filter=$1 limit=$2 i pid rc=0
  local -a pids=()
  rm -rf "$TMPDIR"; mkdir -p "$TMPDIR"
  for ((i = 0; i < SHARDS; i++)); do
    GTEST_TOTAL_SHARDS=$SHARDS GTEST_SHARD_INDEX=$i timeout -k 10 "$limit" "$BIN" --gtest_brief=1 \
      --gtest_fail_fast=1 "--gtest_filter=$filter" > "$WORK/shard.$i.log" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < SHARDS; i++)); do
    if ! wait -n 2>/dev/null; then rc=1; break; fi
  done
  if [ $rc -ne 0 ]; then
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  fi
  wait 2>/dev/null || true
  rm -rf "$TMPDIR"
  return $rc
}

# --- 3. baseline --------------------------------------------------------------------------
t0=$(date +%s)
if ! run_tests '*' 900; then
  grep -h -E '^\[  FAILED  \]|timeout' "$WORK"/shard.*.log >&2 || true
  die "the unmutated tree's smrstore_tests fail (logs in $WORK/shard.*.log); nothing to measure"
fi
BASE=$(( $(date +%s) - t0 ))
LIMIT=${MUTATE_TIMEOUT:-$(( BASE * 5 > 120 ? BASE * 5 : 120 ))}
say "baseline: smrstore_tests pass in ${BASE}s ($SHARDS shards); per-run timeout ${LIMIT}s"

# --- 4. mutants ---------------------------------------------------------------------------
current=""      # the file currently replaced by a mutant (restored by the trap)
restore() {
  # A fresh mtime (no -p): ninja must rebuild the object from the original (a ccache hit).
  if [ -n "$current" ]; then cp "$WORK/orig/$current" "$TREE/$ENGINE/$current"; current=""; fi
}
trap 'restore' EXIT
trap 'restore; exit 130' INT TERM

printf 'file\tmutant\tstatus\tline\toriginal\tmutant_line\tseconds\n' > "$RESULTS"
run_start=$(date +%s)
for f in $FILES; do
  src="$TREE/$ENGINE/$f"
  [ -f "$src" ] || die "no such file: $ENGINE/$f"
  key=${f//\//_}
  mdir="$WORK/mutants/$key"
  mkdir -p "$mdir" "$WORK/orig/$(dirname "$f")"
  cp -p "$src" "$WORK/orig/$f"
  (cd "$mdir" && cp "$src" . && "$MUTATE" "$(basename "$f")" cpp --noCheck --mutantDir m > mutate.log 2>&1) \
    || die "universalmutator failed on $f (see $mdir/mutate.log)"
  total=$(ls "$mdir/m" | wc -l)
  obj=$BUILD/$ENGINE/CMakeFiles/smr_${f%%/*}.dir/$f.o
  [ -f "$obj" ] || die "no object file $obj for $f"
  obj_sum=$(sha256sum < "$obj")
  # The fixed order: mutant numbers sorted, shuffled with the seed.
  mapfile -t order < <(ls "$mdir/m" | "$PY" -c '
import random, re, sys
names = sorted((l.strip() for l in sys.stdin if l.strip()), key=lambda n: int(re.search(r"\.mutant\.(\d+)\.", n).group(1)))
random.Random(int(sys.argv[1])).shuffle(names)
print("\n".join(names))' "$SEED")
  say "$f: $total mutants generated; trying them in seeded order until $SAMPLE compile"
  compiled=0 tries=0
  local -A seen=()  # universalmutator --noCheck may write the same mutant under two numbers
  for m in "${order[@]}"; do
    [ $compiled -lt "$SAMPLE" ] && [ $tries -lt "$MAX_TRIES" ] || break
    sum=$(sha256sum < "$mdir/m/$m")
    [ -z "${seen[$sum]:-}" ] || continue
    seen[$sum]=1
    tries=$((tries + 1))
    t0=$(date +%s)
    # The changed line: first hunk of the diff (universalmutator changes one line).
    d=$(diff "$WORK/orig/$f" "$mdir/m/$m" || true)
    # (sed -n 1p, not head: under pipefail a head that stops reading early makes the
    # writer die of SIGPIPE, and set -e ended a whole run on one large diff.)
    line=$(printf '%s\n' "$d" | sed -n 1p | sed -E 's/^([0-9]+).*/\1/')
    old=$(printf '%s\n' "$d" | sed -n 's/^< //p' | sed -n 1p | sed -E 's/^[[:space:]]+//' | tr '\t' ' ')
    new=$(printf '%s\n' "$d" | sed -n 's/^> //p' | sed -n 1p | sed -E 's/^[[:space:]]+//' | tr '\t' ' ')
    if [ -z "$old" ]; then
      # An inserted line (diff "NaM"): name it by the line it follows.
      old="after: $(sed -n "${line}p" "$WORK/orig/$f" | sed -E 's/^[[:space:]]+//' | tr '\t' ' ')"
    fi
    current=$f
    cp "$mdir/m/$m" "$src"
    if ! timeout 900 ninja -C "$BUILD" -j "$JOBS" smrstore_tests > "$WORK/mutant-build.log" 2>&1; then
      status=no-compile
    elif [ "$(sha256sum < "$obj")" = "$obj_sum" ]; then
      # The compiler made the same object code: no behaviour can differ.
      status=same-object
    else
      compiled=$((compiled + 1))
      if ! run_tests "$(quick_filter "$f")" "$LIMIT"; then
        status=killed
      elif ! run_tests '*' "$LIMIT"; then
        status=killed
      elif ! "$PY" "$ROOT/qa/static/thread_safety.py" "$BUILD" "$ENGINE/$f" \
          > "$WORK/thread-safety.log" 2>&1; then
        # make test's static check (a guarded field touched without its lock, e.g. a lock
        # removed) fails on it: no test run can see a data race reliably, this check can.
        status=killed-analysis
      else
        status=survived
        mkdir -p "$DIR/cpp-survivors"
        printf '%s\n' "$d" > "$DIR/cpp-survivors/$key.$m.diff"
      fi
    fi
    restore
    secs=$(( $(date +%s) - t0 ))
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$f" "$m" "$status" "$line" "$old" "$new" "$secs" >> "$RESULTS"
    say "$f $m (line $line): $status in ${secs}s"
  done
done
# Leave the scratch tree's objects built from the originals.
ninja -C "$BUILD" -j "$JOBS" smrstore_tests > "$WORK/build.log" 2>&1 || true

# --- 5. report ----------------------------------------------------------------------------
"$PY" "$ROOT/qa/mutate/engine_report.py" "$RESULTS" "$ROOT/qa/mutate/engine-equivalent.tsv" \
  "$SAMPLE" "$SEED" "$BASE" "$(( $(date +%s) - run_start ))" > "$REPORT"
cat "$REPORT"
}

main "$@"; exit  # on one line: nothing after it is read, even if the file changed
