#!/bin/sh
# Replays every committed capture through SMRStore (smrstore-tool replay) and checks that
# the replay's checker catches a wrong expectation (one object's size changed in a copy).
#   qa/traces/replay.sh TOOL
set -eu
tool=${1:?usage: qa/traces/replay.sh TOOL}
here=$(cd "$(dirname "$0")" && pwd)
fail=0
for c in "$here"/captures/*/; do
  c=${c%/}
  if out=$("$tool" replay "$c" 2>&1); then
    echo "replay: ok   $(basename "$c"): $(echo "$out" | tail -1)"
  else
    echo "replay: FAIL $(basename "$c"):"; echo "$out" | tail -20; fail=1
  fi
done
# The checker must be able to fail: a copy of the smallest capture with one size changed.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$here/captures/rados-basic" "$tmp/bad"
/usr/bin/python3 - "$tmp/bad/expected.json" <<'PY'
import json, sys
p = sys.argv[1]
e = json.load(open(p))
for coll in e["collections"].values():
    for o in coll["objects"].values():
        if o["size"] > 0:
            o["size"] += 1
            json.dump(e, open(p, "w"))
            sys.exit(0)
sys.exit("no object with data to alter")
PY
if "$tool" replay "$tmp/bad" >/dev/null 2>&1; then
  echo "replay: FAIL: a capture with a wrong expected size was not detected"; fail=1
else
  echo "replay: ok   a wrong expectation is detected"
fi
exit $fail
