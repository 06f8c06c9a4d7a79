#!/bin/bash
# Checks doc/cephadm/pacific-smrstore.patch against Ceph 16.2.15 (Pacific) as Debian 12
# installs it. No Ceph source tree exists on these machines, so Debian's installed copies
# of the patched files stand in for it, laid out as in the Ceph tree:
#   /usr/lib/python3/dist-packages/ceph          -> src/python-common/ceph
#   /usr/lib/python3/dist-packages/ceph_volume   -> src/ceph-volume/ceph_volume
#   /usr/sbin/cephadm                            -> src/cephadm/cephadm
#   /usr/share/ceph/mgr/cephadm                  -> src/pybind/mgr/cephadm
# Two trees are made: "orig" (unpatched) and "tree" (patch --dry-run, then applied).
# test_cephadm_patch.py runs against the patched tree (must pass), then against the
# unpatched one (its smrstore tests must fail: the suite can fail).
# Needs: python3-ceph-common, ceph-osd (ceph_volume), cephadm and ceph-mgr-cephadm
# 16.2.15+ds-0+deb12u2, python3-pytest, python3-yaml, patch (installed when missing).
# No container runtime, registry image or ceph-mgr process is used: cephadm's deploy writes
# its unit files with every command it would run answered by the test; the mgr module's
# OSDService runs with a stand-in for ceph-mgr's C++ base classes (ceph_module). When
# src/ceph-volume/ (the ceph-volume smrstore plugin) is in this tree, the plugin parses the
# commands cephadm runs and its listing is fed to the patched mgr.
# The last line is "N passed, N failed" for the run against the patched tree.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PATCH="$ROOT/doc/cephadm/pacific-smrstore.patch"
PY=/usr/bin/python3     # Debian's python3 with Debian's python3-pytest and python3-yaml
WANT=16.2.15+ds-0+deb12u2
die() { echo "test_patch.sh: $*" >&2; exit 1; }

need=()
for p in python3-ceph-common ceph-osd cephadm ceph-mgr-cephadm python3-pytest python3-yaml patch; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  apt-get install -y --no-install-recommends "${need[@]}" >/dev/null
fi
for p in python3-ceph-common ceph-osd cephadm ceph-mgr-cephadm; do
  v=$(dpkg-query -W -f='${Version}' "$p")
  echo "$p $v"
  [ "$v" = "$WANT" ] || echo "WARNING: $p is $v, the patch was made against $WANT"
done

T=$(mktemp -d /tmp/smrstore-cephadm.XXXXXX)
trap 'rm -rf "$T"' EXIT
mk_tree() {  # $1: directory
  mkdir -p "$1/src/python-common" "$1/src/ceph-volume" "$1/src/cephadm" "$1/src/pybind/mgr"
  cp -a /usr/lib/python3/dist-packages/ceph "$1/src/python-common/ceph"
  cp -a /usr/lib/python3/dist-packages/ceph_volume "$1/src/ceph-volume/ceph_volume"
  cp -a /usr/sbin/cephadm "$1/src/cephadm/cephadm"
  cp -a /usr/share/ceph/mgr/cephadm "$1/src/pybind/mgr/cephadm"
  find "$1" -name __pycache__ -prune -exec rm -rf {} +
}
mk_tree "$T/orig"
mk_tree "$T/tree"

echo "== patch -p1 --dry-run"
(cd "$T/tree" && patch -p1 --dry-run <"$PATCH") >"$T/dry.log" || { cat "$T/dry.log"; die "the patch does not apply"; }
cat "$T/dry.log"
! grep -Ei 'fuzz|offset|reversed' "$T/dry.log" || die "the patch applies only with fuzz or offsets"
echo "== patch -p1"
(cd "$T/tree" && patch -p1 --no-backup-if-mismatch <"$PATCH") || die "patch failed"
# nothing but the patched files changed, and none of them has fuzz or offsets left over
changed=$(cd "$T" && { diff -rq orig tree || true; } | wc -l)
files=$(grep -c '^+++ ' "$PATCH")
[ "$changed" -eq "$files" ] || die "$changed files differ from Debian's, the patch names $files"

echo "== byte-compile the patched files"
$PY -m py_compile "$T/tree/src/cephadm/cephadm" \
  "$T/tree/src/pybind/mgr/cephadm/services/osd.py" \
  "$T/tree/src/ceph-volume/ceph_volume/util/disk.py" \
  "$T/tree/src/python-common/ceph/deployment/drive_group.py" \
  "$T/tree/src/python-common/ceph/deployment/translate.py" \
  "$T/tree/src/python-common/ceph/deployment/drive_selection/matchers.py" \
  "$T/tree/src/python-common/ceph/deployment/drive_selection/filter.py"

run_pytest() {  # $1: tree, $2: junit xml
  SMR_CEPH_TREE="$1" SMR_CEPH_ORIG_TREE="$T/orig" SMR_REPO="$ROOT" \
    $PY -m pytest -p no:cacheprovider -q -rfE --junitxml="$2" --basetemp="$2.tmp" \
    "$HERE/test_cephadm_patch.py" || true
}
counts() {  # junit xml -> "passed failed"
  $PY - "$1" <<'EOF'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
s = r if r.tag == 'testsuite' else r.find('testsuite')
n, f, e, k = (int(s.get(a, 0)) for a in ('tests', 'failures', 'errors', 'skipped'))
print(n - f - e - k, f + e, k)
EOF
}

echo "== negative control: the same tests against the UNPATCHED tree (must fail)"
run_pytest "$T/orig" "$T/orig.xml" >"$T/orig.log" 2>&1
# Only the names of the tests that fail there (the expected outcome), not pytest's summary
# line: a CI reading the log's summary lines must not take this negative control for a result.
tail -n 40 "$T/orig.log" | grep -E '^(FAILED|ERROR)' | sed 's/^/  expected: /' || true
read -r opass ofail oskip < <(counts "$T/orig.xml")
echo "negative control: $ofail of $((opass + ofail)) tests fail against the unpatched files, as they must"
[ "$ofail" -gt 0 ] || die "the tests pass against the unpatched files: they prove nothing"

echo "== the tests against the PATCHED tree"
run_pytest "$T/tree" "$T/tree.xml"
read -r pass fail skip < <(counts "$T/tree.xml")
[ "$skip" -eq 0 ] || echo "($skip skipped)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
