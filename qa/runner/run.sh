#!/bin/sh
# The local teuthology runner (qa/runner/run.py) in a venv of its own holding teuthology
# 1.3.0 from PyPI (qa/runner/requirements.txt; Python >= 3.10). Creates the venv the first
# time (about 40 s; python3-venv is installed if `python3 -m venv` cannot work), then runs
#   qa/runner/run.sh matrix|run|job ARGS...      (qa/runner/run.py --help)
# Env: SMRSTORE_TEUTHOLOGY_VENV (default /var/tmp/smrstore-teuthology/venv).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
venv=${SMRSTORE_TEUTHOLOGY_VENV:-/var/tmp/smrstore-teuthology/venv}
stamp="$venv/.requirements"
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$here/requirements.txt" "$stamp"; then
  echo "qa/runner: making the teuthology venv in $venv" >&2
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    apt-get install -y -q python3-venv >&2 || { apt-get update -qq && apt-get install -y -q python3-venv >&2; }
  fi
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r "$here/requirements.txt" >&2
  cp "$here/requirements.txt" "$stamp"
fi
export TEUTHOLOGY_CONFIG="$here/teuthology.yaml"  # no lab: nothing to look up
exec "$venv/bin/python" "$here/run.py" "$@"
