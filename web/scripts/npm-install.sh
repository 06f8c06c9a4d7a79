#!/bin/sh
# Installs web/'s locked npm packages (used by run-tests.sh and make demo).
# `npm ci` installs exactly the lock. The npm registry reachable here answers 404 for rollup's
# native packages of other platforms (android, darwin, win32, musl, ...), so npm leaves them
# out of the lock it writes and then `npm ci` rejects that lock as out of sync. In that case
# install with `npm install` from the same lock and fail if it would change the lock: the
# installed versions are then the locked ones all the same.
set -eu
cd "$(dirname "$0")/.."
if ! npm ci --no-audit --no-fund --loglevel=error 2>npm-ci.err; then
  if grep -q "can only install packages when your package.json and package-lock.json" npm-ci.err; then
    echo "web: npm ci refused the lock (platform packages missing from the registry); npm install from the lock instead"
    cp package-lock.json package-lock.json.orig
    npm install --no-audit --no-fund --loglevel=error
    if ! cmp -s package-lock.json package-lock.json.orig; then
      mv package-lock.json.orig package-lock.json
      echo "web: npm install would change package-lock.json: run 'npm install' in web/ and commit the lock" >&2
      rm -f npm-ci.err
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
