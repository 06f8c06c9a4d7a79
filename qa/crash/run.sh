#!/bin/sh
# The crash sweep (qa/crash/README.md): kill -9 at random instants of smrstore-tool commands
# and power cuts through FaultInjectionDevice, each followed by remount, fsck --deep and a
# byte-exact check of every acknowledged write.
#   qa/crash/run.sh --short BUILD_DIR   the short sweep of `make test` (~1 min)
#   qa/crash/run.sh --full BUILD_DIR    `make crash-sweep`: >= 1000 kill -9 points (~10 min)
# SMRSTORE_CRASH_SEED fixes the seed (default: a random one, printed); SMRSTORE_CRASH_ARGS
# adds sweep.py options (e.g. "--kill-points 5000 --keep"). Exit 0 only with 0 failures.
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
  --short) points="--kill-points 150 --power-points 75 --progress 0" ;;
  --full) points="--kill-points 2000 --power-points 1000 --progress 250" ;;
  *) echo "usage: $0 --short|--full BUILD_DIR" >&2; exit 2 ;;
esac
seed=${SMRSTORE_CRASH_SEED:+--seed $SMRSTORE_CRASH_SEED}
# shellcheck disable=SC2086  # word splitting of the option lists is meant
exec python3 "$here/sweep.py" --tool "$tool" --helper "$helper" $points $seed \
  ${SMRSTORE_CRASH_ARGS:-}
