#!/bin/sh
# Unit tests of the smrstore mgr module (no ceph-mgr needed): model, health, history,
# Prometheus text, tokens, every REST route, CLI formatting, and that openapi.json is current.
set -eu
cd "$(dirname "$0")"
if ! /usr/bin/python3 -c 'import fastapi, pydantic, httpx, prometheus_client, pytest' 2>/dev/null; then
  echo "mgr-module/run-tests.sh: missing Python packages; run scripts/install-deps.sh ceph" >&2
  exit 1
fi
exec /usr/bin/python3 -m pytest -q -p no:cacheprovider tests "$@"
