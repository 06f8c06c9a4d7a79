#!/bin/sh
# Unit tests of the smrstore mgr module (no ceph-mgr needed): model, health, history,
# Prometheus text, tokens, every REST route, CLI formatting, that openapi.json is current,
# then mypy (every function typed) over the module, the tools and the tests.
set -eu
cd "$(dirname "$0")"
if ! /usr/bin/python3 -c 'import fastapi, pydantic, httpx, prometheus_client, pytest, jsonschema' 2>/dev/null \
   || ! command -v mypy >/dev/null 2>&1; then
  echo "mgr-module/run-tests.sh: missing packages; run scripts/install-deps.sh ceph" >&2
  exit 1
fi
/usr/bin/python3 -m pytest -q -p no:cacheprovider tests "$@"
MYPYPATH=/usr/share/ceph/mgr mypy --no-incremental --ignore-missing-imports \
  --disallow-untyped-defs --follow-imports=silent smrstore tools tests
