#!/bin/sh
# The web console's checks, from a fresh clone: install the locked npm packages, check the API
# client is generated from the current mgr-module/openapi.json, typecheck, unit + component
# tests (Vitest), production build into web/dist. The browser end-to-end test (e2e/run.mjs)
# needs the real stack and is run by qa/ceph/0003_mgr_module.sh.
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

step "npm ci"
# `npm ci` installs exactly the lock. The npm registry reachable here answers 404 for rollup's
# native packages of other platforms (android, darwin, win32, musl, ...), so npm leaves them
# out of the lock it writes and then `npm ci` rejects that lock as out of sync. In that case
# install with `npm install` from the same lock and fail if it would change the lock: the
# installed versions are then the locked ones all the same.
if ! npm ci --no-audit --no-fund --loglevel=error 2>npm-ci.err; then
  if grep -q "can only install packages when your package.json and package-lock.json" npm-ci.err; then
    echo "web/run-tests.sh: npm ci refused the lock (platform packages missing from the registry); npm install from the lock instead"
    cp package-lock.json package-lock.json.orig
    npm install --no-audit --no-fund --loglevel=error
    if ! cmp -s package-lock.json package-lock.json.orig; then
      mv package-lock.json.orig package-lock.json
      echo "web/run-tests.sh: npm install would change package-lock.json: run 'npm install' in web/ and commit the lock" >&2
      exit 1
    fi
    rm -f package-lock.json.orig
  else
    cat npm-ci.err >&2
    rm -f npm-ci.err
    exit 1
  fi
fi
rm -f npm-ci.err
step "API client up to date"
node scripts/check-api.mjs
step "typecheck"
npx --no-install tsc --noEmit -p tsconfig.json
npx --no-install tsc --noEmit -p tsconfig.node.json
step "vitest"
npx --no-install vitest run
step "vite build"
npx --no-install vite build --logLevel warn
test -s dist/index.html || { echo "web/run-tests.sh: vite build wrote no dist/index.html" >&2; exit 1; }
echo "== web: all checks passed (dist/ built)"
