#!/bin/sh
# check-abi.sh — the C++ ABI our preload library shares with Debian's ceph-osd (ctest "ceph_abi"):
#   qa/ceph/abi/check-abi.sh [--compile-commands FILE] OUR_LIBRARY [LABEL=OUR_VTABLE]...
#   0. the tools' self-test (test_abi_tools.py);
#   1. Pacific's layout file: the committed pacific-<build-id>.layout of the installed
#      ceph-osd (generated, with ceph-osd-dbg, only when none exists for that build-id);
#   2. vtables, slot by slot, for every pair in pairs.txt (LABEL=OUR_VTABLE overrides ours);
#   3. layouts: sizeof, members' offsets and sizes, virtual declaration order of our library
#      (RelWithDebInfo) — types its debug info lacks come from layout_probe.py, which compiles
#      our compat headers with the flags of compile_commands.json (default: the one found in a
#      parent directory of OUR_LIBRARY) — against Pacific's, with layout-allowlist.txt.
#   4. the record check-ceph compares installed ceph-osd builds with (pacific-vtables.txt)
#      equals what the installed ceph-osd has, when it is a build that record was made from.
# The tools and the recorded files are in the ceph-volume plugin package
# (src/ceph-volume/ceph_volume_smrstore/abi/), where `ceph-volume smrstore check-ceph` uses
# them too; the checks below only need the repository.
# Exit status: 0 ABI-exact, 1 any difference, 2 could not check. CEPH_OSD=... overrides
# /usr/bin/ceph-osd.
set -u
usage="usage: $0 [--compile-commands FILE] OUR_LIBRARY [LABEL=OUR_VTABLE]..."
here=$(cd "$(dirname "$0")" && pwd)
osd=${CEPH_OSD:-/usr/bin/ceph-osd}
cc=
if [ "${1:-}" = "--compile-commands" ]; then
  cc=${2:?$usage}
  shift 2
fi
lib=${1:?$usage}
shift
[ -f "$lib" ] || { echo "check-abi: $lib not found" >&2; exit 2; }
[ -x "$osd" ] || { echo "check-abi: $osd missing (scripts/install-deps.sh ceph)" >&2; exit 2; }
sets=
for s in "$@"; do sets="$sets --set $s"; done
if [ -z "$cc" ]; then
  d=$(cd "$(dirname "$lib")" && pwd)
  while [ "$d" != / ]; do
    [ -f "$d/compile_commands.json" ] && { cc=$d/compile_commands.json; break; }
    d=$(dirname "$d")
  done
fi
export PYTHONDONTWRITEBYTECODE=1
pkg=$(cd "$here/../../../src/ceph-volume" && pwd)
abi=$pkg/ceph_volume_smrstore/abi
export PYTHONPATH=$pkg${PYTHONPATH:+:$PYTHONPATH}
tool() { m=$1; shift; python3 -m "ceph_volume_smrstore.abi.$m" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
worse() { [ "$1" -gt "$status" ] && status=$1; return 0; }

echo "== check-abi: self-test of the tools"
if python3 -c 'import pytest' 2>/dev/null; then
  python3 -m pytest -q -p no:cacheprovider "$here/test_abi_tools.py" > "$tmp/selftest" 2>&1
else
  python3 -m unittest -q "$here/test_abi_tools.py" > "$tmp/selftest" 2>&1
fi
rc=$?
tail -n 1 "$tmp/selftest"
if [ $rc -ne 0 ]; then
  cat "$tmp/selftest"
  echo "check-abi: the tools' self-test failed: their verdicts below are not to be trusted"
  worse 2
fi

echo "== check-abi: Pacific layout ($osd)"
if ! pac=$(tool pacific_layouts --cached "$osd"); then
  echo "check-abi: no Pacific layout for $osd: cannot check"
  exit 2
fi
echo "$pac"

echo "== check-abi: vtables ($abi/pairs.txt; ours in $lib)"
# shellcheck disable=SC2086  # $sets is a list of --set options
tool compare_vtables --pairs "$abi/pairs.txt" --layout "$pac" $sets "$osd" "$lib"
worse $?

echo "== check-abi: layouts"
fallback=
if [ -n "$cc" ] && python3 "$here/layout_probe.py" "$cc" "$tmp/probe.o"; then
  fallback="--fallback $tmp/probe.o"
else
  echo "check-abi: no layout probe (compile_commands.json: ${cc:-not found}): types our library's"
  echo "  debug info describes only with their vtable (RefCountedObject) will be missing"
fi
# shellcheck disable=SC2086
if tool pacific_layouts $fallback -o "$tmp/ours.layout" "$lib"; then
  tool compare_layouts "$pac" "$tmp/ours.layout"
  worse $?
else
  worse 2
fi

echo "== check-abi: constants our code holds (Option, CephContext::_log)"
python3 "$here/check_constants.py" "$pac" "$here/../../.."
worse $?

echo "== check-abi: the record check-ceph uses ($abi/pacific-vtables.txt) against $osd"
bid=$(readelf -n "$osd" | sed -n 's/.*Build ID: *//p')
if [ -n "$bid" ] && grep -q "build-id $bid\$" "$abi/pacific-vtables.txt"; then
  tool expected "$osd"
  worse $?
else
  echo "check-abi: $osd is not the build pacific-vtables.txt was recorded from: not compared"
fi

case $status in
  0) echo "check-abi: PASS: $lib is ABI-exact with $osd (vtables, layouts)";;
  1) echo "check-abi: FAIL: $lib differs from $osd's ABI (see the differences above)";;
  *) echo "check-abi: FAIL: could not check everything (see above)";;
esac
exit $status
