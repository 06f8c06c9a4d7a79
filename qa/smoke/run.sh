#!/bin/sh
# Runs the qa/ smoke scripts in order (numbered as ZenFS's tests are), each against the
# smrstore-tool given as $1, in a scratch directory it removes afterwards.
set -eu
TOOL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
fail=0
for t in "$here"/smoke/[0-9]*.sh; do
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/smrstore-qa.XXXXXX")
  if (cd "$scratch" && TOOL="$TOOL" sh "$t") >"$scratch.log" 2>&1; then
    echo "qa: PASS $(basename "$t")"
  else
    echo "qa: FAIL $(basename "$t")"; sed 's/^/    /' "$scratch.log"; fail=1
  fi
  rm -rf "$scratch" "$scratch.log"
done
exit $fail
