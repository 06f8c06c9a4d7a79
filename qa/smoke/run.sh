#!/bin/sh
# Runs the qa/smoke scripts in order (numbered as ZenFS's tests are), each against the
# smrstore-tool given as $1, in a scratch directory it removes afterwards. Part of the
# smoke tier (qa/run.sh smoke); alone: qa/smoke/run.sh build/src/tools/smrstore-tool
set -eu
[ $# -eq 1 ] || { echo "usage: $0 PATH/TO/smrstore-tool" >&2; exit 2; }
TOOL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
fail=0
for t in "$here"/[0-9]*.sh; do
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/smrstore-qa.XXXXXX")
  if (cd "$scratch" && TOOL="$TOOL" sh "$t") >"$scratch.log" 2>&1; then
    echo "qa: PASS $(basename "$t")"
  else
    echo "qa: FAIL $(basename "$t")"; sed 's/^/    /' "$scratch.log"; fail=1
  fi
  rm -rf "$scratch" "$scratch.log"
done
exit $fail
