#!/bin/sh
# Installs web/'s locked npm packages (used by run-tests.sh and make demo).
#
# The path is `npm ci` with the committed, complete package-lock.json (every optional platform
# package of rollup/esbuild listed; npm ci skips the ones for other platforms without fetching
# them). If npm ci refuses the lock as out of sync with package.json — which happens when the
# registry starts or stops serving some optional platform package — the lock is regenerated
# in a scratch copy and compared with the committed one (scripts/lock-compare.mjs): if the
# only differences are optional packages this platform never installs, npm ci runs on the
# regenerated lock, so what lands in node_modules is still exactly the committed versions;
# any change to a package that is installed here fails, naming it. The committed lock is never
# modified.
set -eu
cd "$(dirname "$0")/.."
npm_flags="--no-audit --no-fund --loglevel=error"
err=$(mktemp)
scratch=$(mktemp -d)
trap 'rm -rf "$err" "$scratch"' EXIT

# shellcheck disable=SC2086
if npm ci $npm_flags 2>"$err"; then
  exit 0
fi
if ! grep -q "can only install packages when your package.json and package-lock.json" "$err"; then
  echo "web: npm ci failed (registry: $(npm config get registry 2>/dev/null)):" >&2
  cat "$err" >&2
  exit 1
fi
echo "web: npm ci refused the committed lock as out of sync:"
grep -E "^npm error (Missing|Invalid)" "$err" | head -5 | sed 's/^/  /'
cp package.json package-lock.json "$scratch/"
# shellcheck disable=SC2086
if ! (cd "$scratch" && npm install --package-lock-only --ignore-scripts $npm_flags >/dev/null 2>"$err"); then
  echo "web: regenerating the lock against the registry failed:" >&2
  cat "$err" >&2
  exit 1
fi
if ! node scripts/lock-compare.mjs package-lock.json "$scratch/package-lock.json"; then
  echo "web: the registry's answer changes packages installed here; regenerate the lock" \
       "('npm install' in web/), review and commit it" >&2
  exit 1
fi
echo "web: only other platforms' optional packages differ; npm ci with the regenerated lock"
cp package-lock.json "$scratch/package-lock.committed"
cp "$scratch/package-lock.json" package-lock.json
# shellcheck disable=SC2086
status=0
npm ci $npm_flags || status=$?
cp "$scratch/package-lock.committed" package-lock.json
exit $status
