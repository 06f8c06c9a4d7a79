#!/bin/bash
# The one test entry: qa/run.sh TIER [TIER ...] runs the named tiers in the order given.
# Tiers, by cost (doc/testing.md, "The map of the suites"):
#   unit     ctest -L unit (GoogleTest of the engine, the adapter and the tool; the layering
#            check; the ceph-volume plugin's mypy), every ctest entry's tier label, clang's
#            thread-safety analysis, the engine's function lengths (none over 120 lines),
#            mypy of qa/tasks and qa/runner, the suites' lint
#   smoke    ctest -L smoke (the ABI, override-signature and preload checks against Debian's
#            ceph-osd; the ceph-volume plugin's tests; the nbdkit filter; what-if against a
#            real store), the tool's smoke scripts, trace checks and replays, the mgr module
#            (pytest + mypy), the alert rules, the tool reference, the cephadm patch,
#            ansible-lint, the web console
#   crash    the short crash sweep (kill -9, power cuts) and the short libFuzzer run
#   cluster  real Debian Ceph clusters: the teuthology-format jobs of MAKE_TEST_JOBS below
#   vm       the device suite on real kernel zoned devices in a QEMU VM
#   long     what `make test` does not run: the full crash sweep, power cuts in the VM, every
#            job of the suites, the option-space run, the long fuzz run, mutation testing,
#            ansible on a systemd VM (hours; each also a make target)
# `make test` is `qa/run.sh unit smoke crash cluster vm` after the build. A tier stops at
# its first failing step (as make does), except `long`, which runs every step and fails at
# the end if one failed. Each step and each tier prints its time; a summary ends the run.
# Env: BUILD_DIR (default build), JOBS (ctest -j, default 2).
#   qa/run.sh --list          the tiers and their steps
#   qa/run.sh --suite-args    the suites the cluster tier and `make test-suites` run
set -uo pipefail

cd "$(dirname "$0")/.."
TIERS="unit smoke crash cluster vm long"
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-2}
TOOL=$BUILD_DIR/src/tools/smrstore-tool
# The teuthology-format suites (qa/suites/smrstore) and the jobs of them the cluster tier
# runs (qa/runner/run.sh --filter: a job runs when its description contains one of these):
# every numbered check, the Prometheus check, and one job of the matrix: OSDs on hybrid
# drives made by ceph-volume, kill -9 under verified writes.
SUITE_ARGS="--suite smrstore/checks --suite smrstore/basic --suite smrstore/thrash --suite smrstore/console"
MAKE_TEST_JOBS=${MAKE_TEST_JOBS:-"checks/0,checks/prometheus-live,objectstore/smrstore-hybrid thrashers/osd-kill"}

# Each tier's steps, one per line: NAME<TAB>COMMAND (run by bash -c from the repo root).
steps_unit() {
  printf '%s\t%s\n' \
    "ctest tier labels" "python3 qa/static/ctest_labels.py $BUILD_DIR" \
    "ctest -L unit" "cd $BUILD_DIR && ctest --output-on-failure -j $JOBS --timeout 300 -L '^unit\$'" \
    "thread-safety analysis" "python3 qa/static/thread_safety.py $BUILD_DIR" \
    "no engine function over 120 lines" "python3 qa/static/function_lengths.py --max 120" \
    "mypy qa/tasks qa/runner" "cd qa && mypy --no-incremental --ignore-missing-imports --disallow-untyped-defs --follow-imports=silent tasks runner/run.py" \
    "suites lint" "qa/runner/run.sh lint $SUITE_ARGS"
}
steps_smoke() {
  printf '%s\t%s\n' \
    "ctest -L smoke" "cd $BUILD_DIR && ctest --output-on-failure -j $JOBS --timeout 300 -L '^smoke\$'" \
    "tool smoke scripts" "qa/smoke/run.sh $TOOL" \
    "trace captures" "sh qa/traces/check.sh" \
    "trace replays" "qa/traces/replay.sh $TOOL" \
    "mgr module" "mgr-module/run-tests.sh" \
    "alert rules" "mgr-module/monitoring/check.sh" \
    "tool reference" "doc/tools/check_reference.sh $TOOL" \
    "cephadm patch" "bash qa/cephadm/test_patch.sh" \
    "ansible lint" "bash qa/ansible/lint.sh" \
    "web console" "web/run-tests.sh"
}
steps_crash() {
  printf '%s\t%s\n' \
    "crash sweep, short" "qa/crash/run.sh --short $BUILD_DIR" \
    "fuzz, short" "qa/fuzz/run.sh"
}
steps_cluster() {
  printf '%s\t%s\n' \
    "suite jobs of make test" "qa/runner/run.sh run $SUITE_ARGS --filter '$MAKE_TEST_JOBS'"
}
steps_vm() {
  printf '%s\t%s\n' \
    "device suite in a VM" "qa/vm/run.sh $BUILD_DIR/src/os/smrstore/smrstore_tests"
}
steps_long() {
  printf '%s\t%s\n' \
    "crash sweep, full (make crash-sweep)" "qa/crash/run.sh --full $BUILD_DIR" \
    "power cuts in the VM (make crash-vm)" "qa/crash/vm_powercut.sh $BUILD_DIR 30" \
    "every suite job (make test-suites)" "qa/runner/run.sh run $SUITE_ARGS --seed 1" \
    "option-space run (make test-matrix)" "SMRSTORE_MATRIX_STRICT_ZONES=\${SMRSTORE_MATRIX_STRICT_ZONES:-0} SMRSTORE_MATRIX_SEEDS=\${SMRSTORE_MATRIX_SEEDS:-200} SMRSTORE_MATRIX_TXNS=\${SMRSTORE_MATRIX_TXNS:-300} $BUILD_DIR/src/os/smrstore/smrstore_tests --gtest_filter='StoreMatrix*'" \
    "fuzz, long (make fuzz-long)" "qa/fuzz/run.sh --long" \
    "mutation testing (make mutate)" "make --no-print-directory mutate BUILD_DIR=$BUILD_DIR JOBS=$JOBS" \
    "ansible on a systemd VM (make test-ansible)" "make --no-print-directory test-ansible BUILD_DIR=$BUILD_DIR JOBS=$JOBS"
}

usage() {
  echo "usage: qa/run.sh TIER [TIER ...]   (tiers, by cost: $TIERS)" >&2
  echo "       qa/run.sh --list | --suite-args" >&2
  exit 2
}

elapsed() {  # seconds -> "N s" or "M min S s"
  local s=$1
  if [ "$s" -ge 60 ]; then echo "$((s / 60)) min $((s % 60)) s ($s s)"; else echo "$s s"; fi
}

[ $# -ge 1 ] || usage
case $1 in
  --suite-args) echo "$SUITE_ARGS"; exit 0 ;;
  --list)
    for t in $TIERS; do
      echo "$t:"
      "steps_$t" | while IFS=$'\t' read -r name cmd; do printf '  %-42s %s\n' "$name" "$cmd"; done
    done
    exit 0 ;;
  -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
for t in "$@"; do
  case " $TIERS " in
    *" $t "*) ;;
    *) echo "qa/run.sh: unknown tier '$t'; the tiers are: $TIERS" >&2; usage ;;
  esac
done
if [ ! -x "$TOOL" ]; then
  echo "qa/run.sh: $TOOL is not built (make build, or BUILD_DIR=... for another build dir)" >&2
  exit 1
fi

summary=()
rc=0
for t in "$@"; do
  tier_t0=$(date +%s)
  failed=()
  mapfile -t lines < <("steps_$t")
  for line in "${lines[@]}"; do
    name=${line%%$'\t'*}
    cmd=${line#*$'\t'}
    echo "== qa/run.sh $t: $name: $cmd"
    t0=$(date +%s)
    bash -c "$cmd"
    step_rc=$?
    took=$(elapsed $(($(date +%s) - t0)))
    if [ $step_rc -eq 0 ]; then
      echo "== qa/run.sh $t: $name: ok in $took"
    else
      echo "== qa/run.sh $t: $name: FAILED (exit $step_rc) in $took"
      failed+=("$name")
      [ "$t" = long ] || break
    fi
  done
  took=$(elapsed $(($(date +%s) - tier_t0)))
  if [ ${#failed[@]} -eq 0 ]; then
    line="qa/run.sh: tier $t: PASS in $took"
  else
    line="qa/run.sh: tier $t: FAIL in $took (failed: $(IFS=,; echo "${failed[*]}"))"
    rc=1
  fi
  echo "$line"
  summary+=("$line")
  [ $rc -eq 0 ] || break
done
echo "== qa/run.sh summary"
printf '%s\n' "${summary[@]}"
exit $rc
