#!/bin/sh
# The web console's checks, from a fresh clone: install the locked npm packages, check the API
# client is generated from the current mgr-module/openapi.json, typecheck, unit + component
# tests (Vitest), production build into web/dist. The browser end-to-end tests (Playwright
# Test, e2e/*.spec.ts) are typechecked here; they need the real stack and are run by
# qa/ceph/0003_mgr_module.sh and 0007_console_osds.sh.
set -eu
cd "$(dirname "$0")"

if ! command -v npm >/dev/null 2>&1; then
  echo "web/run-tests.sh: npm not found (scripts/install-deps.sh web installs Node.js)" >&2
  exit 1
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 18 ]; then
  echo "web/run-tests.sh: Node.js $(node --version) is too old; 18 or newer is needed" >&2
  exit 1
fi

step() { echo "== web: $*"; }

step "lock-compare (the install fallback's rule) on variants of the lock"
sh scripts/lock-compare-test.sh
# The committed lock must install with plain `npm ci` from a copy holding only package.json and the lock, with
# no node_modules and an empty npm cache — as on a fresh machine. This is the check that would
# have caught a lock npm ci refuses before a user did; it does not use the fallback.
step "npm ci of the committed lock in a clean directory, empty cache"
clean=$(mktemp -d)
trap 'rm -rf "$clean"' EXIT
cp package.json package-lock.json "$clean/"
(cd "$clean" && npm_config_cache="$clean/.npm-cache" npm ci --ignore-scripts --no-audit \
   --no-fund --loglevel=error) || {
  echo "web/run-tests.sh: the committed package-lock.json does not install with npm ci" \
       "from a clean directory; regenerate it ('npm install' in web/) and commit it" >&2
  exit 1
}
rm -rf "$clean"
step "npm ci"
sh scripts/npm-install.sh
step "API client up to date"
node scripts/check-api.mjs
step "stats codes up to date (src/api/statsCodes.ts from mgr-module/smrstore/stats_schema.json)"
node scripts/gen-stats-codes.mjs --check
step "typecheck"
npx --no-install tsc --noEmit -p tsconfig.json
npx --no-install tsc --noEmit -p tsconfig.node.json
npx --no-install tsc --noEmit -p e2e/tsconfig.json
step "vitest"
npx --no-install vitest run
step "vite build"
npx --no-install vite build --logLevel warn
test -s dist/index.html || { echo "web/run-tests.sh: vite build wrote no dist/index.html" >&2; exit 1; }
echo "== web: all checks passed (dist/ built)"
