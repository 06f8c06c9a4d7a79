#!/bin/sh
# The crash sweep (qa/crash/README.md): kill -9 at random instants of smrstore-tool commands
# and power cuts through FaultInjectionDevice, each followed by remount, fsck --deep and a
# byte-exact check of every acknowledged write. Two runs of sweep.py, one after the other:
# plain zoned drives, then hybrid drives (--hybrid: CMR/SMR realms, realm conversions
# killed and cut too; emulator only), then plain drives again with each commit's journal
# record after its data and idle GC reading its victims ahead (mkfs --journal-with-data on
# --gc-read-ahead on: what rotational drives get by default).
#   qa/crash/run.sh --short BUILD_DIR   the short sweep of `make test`: 150 kill -9 points +
#                                       75 power cuts, then hybrid 60 + 30, then journal
#                                       with data 60 + 30 (~2 min)
#   qa/crash/run.sh --full BUILD_DIR    `make crash-sweep`: 2000 + 1000, then hybrid 1000 +
#                                       500, then journal with data 1000 + 500 (~30 min)
# SMRSTORE_CRASH_SEED fixes the seed of both runs (default: a random one each, printed);
# SMRSTORE_CRASH_ARGS adds sweep.py options to both runs (e.g. "--kill-points 5000 --keep"),
# SMRSTORE_CRASH_HYBRID_ARGS to the hybrid run only (e.g. "--hybrid-rebuild");
# SMRSTORE_CRASH_ONLY=plain|hybrid|with-data runs only that one. Exit 0 only with 0 failures
# in all.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 --short|--full BUILD_DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$2" && pwd)
tool=$build/src/tools/smrstore-tool
helper=$build/qa/crash/smrstore-crash
for b in "$tool" "$helper"; do
  [ -x "$b" ] || { echo "crash sweep: $b not built (make build)" >&2; exit 1; }
done
case $1 in
  --short)
    points="--kill-points 150 --power-points 75 --progress 0"
    hpoints="--kill-points 60 --power-points 30 --progress 0"
    jpoints="--kill-points 60 --power-points 30 --progress 0" ;;
  --full)
    points="--kill-points 2000 --power-points 1000 --progress 250"
    hpoints="--kill-points 1000 --power-points 500 --progress 250"
    jpoints="--kill-points 1000 --power-points 500 --progress 250" ;;
  *) echo "usage: $0 --short|--full BUILD_DIR" >&2; exit 2 ;;
esac
only=${SMRSTORE_CRASH_ONLY:-}
case $only in
  ''|plain|hybrid|with-data) ;;
  *) echo "crash sweep: SMRSTORE_CRASH_ONLY must be plain, hybrid or with-data" >&2; exit 2 ;;
esac
seed=${SMRSTORE_CRASH_SEED:+--seed $SMRSTORE_CRASH_SEED}
rc_plain=0
rc_hybrid=0
rc_with_data=0
# shellcheck disable=SC2086  # word splitting of the option lists is meant
if [ -z "$only" ] || [ "$only" = plain ]; then
  python3 "$here/sweep.py" --tool "$tool" --helper "$helper" $points $seed \
    ${SMRSTORE_CRASH_ARGS:-} || rc_plain=$?
fi
# shellcheck disable=SC2086
if [ -z "$only" ] || [ "$only" = hybrid ]; then
  python3 "$here/sweep.py" --tool "$tool" --helper "$helper" --hybrid --hybrid-rebuild \
    $hpoints $seed \
    ${SMRSTORE_CRASH_ARGS:-} ${SMRSTORE_CRASH_HYBRID_ARGS:-} || rc_hybrid=$?
fi
# shellcheck disable=SC2086
if [ -z "$only" ] || [ "$only" = with-data ]; then
  python3 "$here/sweep.py" --tool "$tool" --helper "$helper" --journal-with-data on \
    --gc-read-ahead on $jpoints $seed ${SMRSTORE_CRASH_ARGS:-} || rc_with_data=$?
fi
if [ $rc_plain -ne 0 ] || [ $rc_hybrid -ne 0 ] || [ $rc_with_data -ne 0 ]; then
  echo "crash sweep: FAILED (plain drives exit $rc_plain, hybrid drives exit $rc_hybrid," \
    "journal with data exit $rc_with_data)" >&2
  exit 1
fi
