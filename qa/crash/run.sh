#!/bin/sh
# The crash sweep (qa/crash/README.md): kill -9 at random instants of smrstore-tool commands
# and power cuts through FaultInjectionDevice, each followed by remount, fsck --deep and a
# byte-exact check of every acknowledged write. One run of sweep.py --configs N: N store
# configurations drawn from the seed (drive kind: plain zoned with or without conventional
# zones, zone capacity below the zone size, hybrid; zone size 256 KiB..2 MiB; journal with
# data on/off, GC read-ahead, inline-max, pack-max, max-record, pinned zones, GC policy,
# watermarks, free-zone cap), c0 always hybrid drives with the journal after the data, each
# with the large ops (thousands of omap keys in one transaction, values of tens to hundreds
# of KiB, objects larger than a zone, more small writes in one commit than a pack holds).
#   qa/crash/run.sh --short BUILD_DIR   the short sweep of `make test`: 8 configurations x
#                                       (24 kill -9 points + 16 power cuts) (~2 min)
#   qa/crash/run.sh --full BUILD_DIR    `make crash-sweep`: 12 configurations x (250 + 125)
# SMRSTORE_CRASH_SEED fixes the seed (default: a random one, printed); SMRSTORE_CRASH_ARGS
# adds sweep.py options (e.g. "--kill-points 500 --keep"); SMRSTORE_CRASH_ONLY=c0,c3 runs
# only those configurations (each is named, with its replay line, in the output). Exit 0
# only with 0 failures in all.
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
  --short) points="--configs 8 --kill-points 24 --power-points 16 --progress 0" ;;
  --full) points="--configs 12 --kill-points 250 --power-points 125 --progress 250" ;;
  *) echo "usage: $0 --short|--full BUILD_DIR" >&2; exit 2 ;;
esac
only=${SMRSTORE_CRASH_ONLY:+--only-config $SMRSTORE_CRASH_ONLY}
seed=${SMRSTORE_CRASH_SEED:+--seed $SMRSTORE_CRASH_SEED}
# shellcheck disable=SC2086  # word splitting of the option lists is meant
python3 "$here/sweep.py" --tool "$tool" --helper "$helper" $points $seed $only \
  ${SMRSTORE_CRASH_ARGS:-} || { echo "crash sweep: FAILED" >&2; exit 1; }
