#!/bin/sh
# Validates the committed captures in qa/traces/captures/: format fields, the reference
# model reproduces each expected.json from its trace.json.gz, and meta.json's counts match;
# then runs the model's unit tests. Needs only /usr/bin/python3 (+ pytest); no Ceph.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
n=0
for d in "$here"/captures/*/; do
  [ -f "$d/trace.json.gz" ] || continue
  for f in trace.json.gz expected.json meta.json; do
    [ -s "$d/$f" ] || { echo "check: FAIL $(basename "$d"): $f missing" >&2; exit 1; }
  done
  (cd "$here" && $PY model.py "$d/trace.json.gz" "$d/expected.json") \
    || { echo "check: FAIL $(basename "$d"): the model does not reproduce expected.json" >&2; exit 1; }
  echo "check: ok $(basename "$d")"
  n=$((n + 1))
done
[ $n -gt 0 ] || { echo "check: FAIL no captures in $here/captures" >&2; exit 1; }
cd "$here" && $PY -m pytest -q -p no:cacheprovider test_model.py
