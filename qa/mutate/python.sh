#!/bin/sh
# Mutation testing of the mgr module (the Python half of `make mutate`), with mutmut.
#
# 1. A venv from Debian's /usr/bin/python3 (--system-site-packages: fastapi, pydantic v1,
#    httpx, prometheus_client and pytest come from Debian) in $SMRSTORE_MUTATE_DIR/py-venv,
#    with a pinned mutmut.
# 2. mutmut runs on a COPY of mgr-module ($SMRSTORE_MUTATE_DIR/py-work; the working tree is
#    never touched) over smrstore/{auth,health,stats,prometheus}.py with the module's own
#    pytest tests (mgr-module/tests).
# 3. The report (mutants tried, killed, survived, timeout/suspicious/no tests, score per file
#    and overall) is printed and written to $SMRSTORE_MUTATE_DIR/python-report.txt, with
#    every mutant not killed as file:line, original -> mutated (qa/mutate/python_report.py).
#
# Score = (killed + timeout) / (tried - equivalent) where "equivalent" are the mutants
# doc/testing.md lists by name (section "Mutation testing: mgr module (mutmut)"); a timeout
# counts as killed (the tests noticed), as mutmut's own score does.  Exit 0 if mutmut ran,
# whatever the score.
#
# Environment: SMRSTORE_MUTATE_DIR (default /var/tmp/smrstore-mutate), MUTATE_JOBS (mutmut
# --max-children, default 2), MUTATE_FILES (space-separated, default the four above).
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${SMRSTORE_MUTATE_DIR:-/var/tmp/smrstore-mutate}
VENV=$DIR/py-venv
WORK=$DIR/py-work
REPORT=$DIR/python-report.txt
MUTMUT_VERSION=3.8.1
JOBS=${MUTATE_JOBS:-2}
FILES=${MUTATE_FILES:-"smrstore/auth.py smrstore/health.py smrstore/stats.py smrstore/stats_codes.py smrstore/prometheus.py"}
PY=/usr/bin/python3

say() { echo "qa/mutate/python.sh: $*" >&2; }

mkdir -p "$DIR"

# --- 1. venv with the pinned mutmut ----------------------------------------------------
if ! $PY -c 'import ensurepip, venv' 2>/dev/null; then
  say "python3-venv missing; installing it"
  if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get install -y -q python3-venv >&2
fi
if ! $PY -c 'import fastapi, pydantic, httpx, prometheus_client, pytest' 2>/dev/null; then
  say "Debian's python3 lacks the module's packages; run scripts/install-deps.sh ceph"
  exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
  say "creating $VENV"
  $PY -m venv --system-site-packages "$VENV"
fi
if [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("mutmut"))' 2>/dev/null)" \
     != "$MUTMUT_VERSION" ]; then
  say "installing mutmut==$MUTMUT_VERSION into $VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "mutmut==$MUTMUT_VERSION" >&2
fi

# --- 2. mutmut on a copy of mgr-module -------------------------------------------------
rm -rf "$WORK"
mkdir -p "$WORK"
# Only what the tests need: the package, the tests, the tools and openapi.json
# (test_api checks the committed copy is current).
(cd "$ROOT/mgr-module" && tar cf - --exclude=__pycache__ --exclude=.mypy_cache \
   --exclude=.pytest_cache smrstore tests tools openapi.json) | (cd "$WORK" && tar xf -)
# Files some tests find through the repository layout, two levels up from the tests (mutmut
# runs them in $WORK/mutants/tests, so the "repository" is $WORK): test_stats_schema's
# generator check imports mgr-module/tools/gen_stats_models.py, which compares against
# mgr-module/smrstore/stats_models.py; test_hybrid_live reads the web console's recorded
# API answer.  Unmutated copies: only the tests' reference data.
mkdir -p "$WORK/mgr-module" "$WORK/web/src/test/live"
(cd "$ROOT/mgr-module" && tar cf - --exclude=__pycache__ smrstore tools openapi.json) \
  | (cd "$WORK/mgr-module" && tar xf -)
cp "$ROOT/web/src/test/live/hybrid-conversion.json" "$WORK/web/src/test/live/"
{
  echo "[mutmut]"
  echo "source_paths=smrstore"
  echo "only_mutate="
  for f in $FILES; do echo "    $f"; done
  echo "also_copy="
  echo "    tools"
  echo "    openapi.json"
  echo "pytest_add_cli_args_test_selection=tests"
  printf 'pytest_add_cli_args=\n    -p\n    no:cacheprovider\n' 
} > "$WORK/setup.cfg"

say "mutmut $MUTMUT_VERSION on $FILES in $WORK (--max-children $JOBS)"
start=$(date +%s)
(cd "$WORK" && "$VENV/bin/mutmut" run --max-children "$JOBS") > "$DIR/python-mutmut-run.log" 2>&1 || {
  rc=$?
  tail -40 "$DIR/python-mutmut-run.log" >&2
  say "mutmut run failed (exit $rc); full log in $DIR/python-mutmut-run.log"
  exit "$rc"
}
elapsed=$(( $(date +%s) - start ))
(cd "$WORK" && "$VENV/bin/mutmut" results --all true) > "$DIR/python-results.txt"

# --- 3. report ---------------------------------------------------------------------------
# shellcheck disable=SC2086   # FILES is a list
"$PY" "$ROOT/qa/mutate/python_report.py" "$WORK" "$DIR/python-results.txt" \
  "$ROOT/doc/testing.md" "$elapsed" $FILES > "$REPORT"
cat "$REPORT"
say "report: $REPORT; mutmut log: $DIR/python-mutmut-run.log; to see a mutant:"
say "  (cd $WORK && $VENV/bin/mutmut show <name>)"
