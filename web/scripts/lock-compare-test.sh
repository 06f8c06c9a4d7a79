#!/bin/sh
# Checks scripts/lock-compare.mjs on variants of the committed lock: dropping other platforms'
# optional packages is harmless; dropping, adding or changing a package installed here is not.
set -eu
cd "$(dirname "$0")/.."
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
variant() {  # variant NAME JS-EXPRESSION-ON-p (p = lock.packages)
  node -e "const fs=require('fs');const l=JSON.parse(fs.readFileSync('package-lock.json'));
const p=l.packages;$2;fs.writeFileSync('$t/$1.json',JSON.stringify(l));"
}
expect() {  # expect RC NAME
  rc=0; node scripts/lock-compare.mjs "$t/$2.json" package-lock.json >"$t/out" 2>&1 || rc=$?
  if [ "$rc" != "$1" ]; then
    echo "lock-compare-test: $2: exit $rc, expected $1" >&2; cat "$t/out" >&2; exit 1
  fi
  echo "lock-compare-test: $2: exit $rc as expected ($(tail -1 "$t/out" | sed 's/^lock-compare: //'))"
}
# The committed lock as an incomplete registry would have written it: harmless.
variant no_foreign "for (const k of Object.keys(p)) if (/@rollup\/rollup-(darwin|android|win32|freebsd)/.test(k)) delete p[k]"
expect 0 no_foreign
# This platform's own rollup binary missing from the committed lock: harmful.
variant no_native "delete p['node_modules/@rollup/rollup-linux-x64-gnu']"
expect 1 no_native
# An installed package at another version: harmful.
variant react_changed "p['node_modules/react'].version='18.0.0'"
expect 1 react_changed
# A package only in the committed lock (the registry dropped it): harmful.
variant extra "p['node_modules/left-pad']={version:'1.3.0'}"
expect 1 extra
