#!/bin/sh
# The suites that need a real Debian Ceph 16.2.15 cluster (each starts and stops its own,
# private ports, stops daemons by pid): the test-cluster library, telemetry through a
# librados service daemon (`ceph service dump`), and the mgr module on the real ceph-mgr
# with the web console's Playwright run against that stack, and the console against real
# smrstore OSDs (Debian's ceph-osd + libsmrstore_osd.so) compared with `ceph tell osd.N
# smrstore stats` (screenshots of both in $SMRSTORE_E2E_OUT, default build/e2e); then RADOS
# on 4 smrstore OSDs (0004: bench, byte-exact read-back, omap/xattr, deep scrub; ~2.5 min)
# and its clients (0005: EC overwrites, RBD, radosgw with 10,000 keys in one shard; ~4 min);
# bad input to a real smrstore OSD (0008: wrong/missing drives, bad settings, a full store;
# ~3 min); `ceph-volume smrstore` prepare/activate/list/zap against a real cluster (0011: refusals,
# two OSDs started as a container entrypoint would, a replaced OSD; ~1 min); the upgrade
# gate, `ceph-volume smrstore check-ceph`, refusing an OSD start on altered ceph-osd copies
# and SMRSTORE_OSD_REFUSED in `ceph health detail` (0010; ~3.5 min).
#   qa/ceph/run.sh TOOL
set -eu
tool=${1:?usage: qa/ceph/run.sh TOOL}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export SMRSTORE_E2E=1
export SMRSTORE_E2E_OUT=${SMRSTORE_E2E_OUT:-$repo/build/e2e}
mkdir -p "$SMRSTORE_E2E_OUT"
fail=0
for t in 0001_cluster.sh 0002_publish.sh 0003_mgr_module.sh 0007_console_osds.sh 0004_osd_rados.sh 0005_osd_clients.sh 0008_osd_bad_input.sh 0009_console_hybrid.sh 0010_check_ceph.sh 0011_ceph_volume.sh; do
  echo "== qa/ceph/$t"
  start=$(date +%s)
  case $t in 0001_*) args= ;; *) args=$tool ;; esac  # 0001 tests the library alone
  # shellcheck disable=SC2086
  if sh "$here/$t" $args; then
    echo "== qa/ceph/$t: PASS ($(( $(date +%s) - start )) s)"
  else
    echo "== qa/ceph/$t: FAIL"; fail=1
  fi
done
[ $fail -eq 0 ] && echo "qa/ceph: all passed; e2e screenshots in $SMRSTORE_E2E_OUT"
exit $fail
