#!/bin/sh
# The mgr module and the web console on REAL smrstore OSDs: Debian's ceph-osd 16.2.15 with
# libsmrstore_osd.so preloaded ($SMRSTORE_OSD_LIB, qa/ceph/lib.sh). Starts a private cluster
# of 3 smrstore OSDs (each on two small emulated HM-SMR drives: 20 zones x 16 MiB, 2 of them
# conventional), pool size 2, the module loaded from mgr-module/; runs a python3-rados
# overwrite/delete workload (qa/ceph/rados_churn.py) until zone GC has run on every OSD,
# stops it, and checks
#   - `ceph smrstore status -f json` lists osd.0..2 with source osd, 2 drives, fresh; `ceph
#     smrstore zones osd.1` prints the zone map `ceph tell osd.1 smrstore stats` has;
#   - health: space_low_ratio 0.99 raises SMRSTORE_SPACE_LOW naming the OSDs, 0.1 clears it;
#   - the console (web/e2e/osds.spec.ts, `npx --no-install playwright test --project osds` in
#     web/, Debian's chromium; background GC stopped on osd.2 first): every OSD listed as a
#     store osd.N with an OSD badge; its user/device bytes, WA, GC runs and auto state, free
#     zones, and every zone of both drives equal `ceph tell osd.N smrstore stats` read
#     around the moment they were read from the page (a comparison table is printed);
#     screenshots osds-*.png in $SMRSTORE_E2E_OUT (default build/e2e), failure screenshots
#     and traces in its results-osds/, the HTML report in its report-osds/.
# About 2.5 minutes. Exit status = verdict.
#   sh qa/ceph/0007_console_osds.sh [TOOL] [SCRATCH_DIR]   (TOOL: unused, as the smrstore_script task
#   passes it; SCRATCH_DIR default: a temp dir, removed on success)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
die() { echo "FAIL: $*" >&2; exit 1; }
PY=/usr/bin/python3
OSDS=3
out=${SMRSTORE_E2E_OUT:-$repo/build/e2e}

[ -f "$SMRSTORE_OSD_LIB" ] || die "$SMRSTORE_OSD_LIB not found (make build)"
[ -f "$repo/web/dist/index.html" ] || die "web/dist is not built (web/run-tests.sh or npm run build in web/)"
[ -x "${SMRSTORE_E2E_CHROMIUM:-/usr/bin/chromium}" ] || die "chromium not found (scripts/install-deps.sh web)"
[ -d "$repo/web/node_modules/@playwright/test" ] || die "web/node_modules missing (web/run-tests.sh installs it)"

ceph_qa_scratch smr-osds "${2:-}"   # sets $scratch, $cl; stops $serve_pid + cluster on exit
cd "$scratch"
# tell_all PYEXPR: true when PYEXPR (over d, the `smrstore stats` document) holds for every OSD.
tell_all() {
  _i=0
  while [ $_i -lt $OSDS ]; do
    ceph tell osd.$_i smrstore stats 2>/dev/null | $PY -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if ($1) else 1)" || return 1
    _i=$((_i + 1))
  done
}

t_start=$(date +%s)
export SMRSTORE_QA_DRIVES="emu:@DIR@/drive0.img?zones=20&zone_mib=16&conv=2 emu:@DIR@/drive1.img?zones=20&zone_mib=16&conv=2"
ceph_cluster_start "$cl" --objectstore smrstore --osds $OSDS --size 2 --cephx --mgr-module-path "$repo/mgr-module"
port=$(free_port)
base="http://127.0.0.1:$port"
q config set mgr mgr/smrstore/server_port "$port"
q config set mgr mgr/smrstore/sample_interval 1
q mgr module enable smrstore --force || die "enable smrstore: $(cat ceph.err)"

q osd pool create churn 16 16 replicated >/dev/null || die "pool create: $(cat ceph.err)"
q osd pool application enable churn rados >/dev/null || true
pgs_clean() {
  ceph pg stat -f json 2>/dev/null | $PY -c '
import json, sys
d = json.load(sys.stdin)
s = d.get("pg_summary", d)
n = s.get("num_pgs", 0)
clean = sum(x["num"] for x in s.get("num_pg_by_state", []) if x["name"] == "active+clean")
sys.exit(0 if n >= 16 and clean == n else 1)'
}
wait_for 120 "pool churn (size 2) active+clean on $OSDS smrstore OSDs" pgs_clean

osds_listed() {
  q smrstore status -f json | $PY -c '
import json, sys
d = json.load(sys.stdin)
osds = {x["name"]: x for x in d["daemons"] if x["source"] == "osd"}
want = ["osd.%d" % i for i in range(int(sys.argv[1]))]
sys.exit(0 if sorted(osds) == want and all(osds[n]["drives"] == 2 and not osds[n]["stale"] for n in want) else 1)' $OSDS
}
wait_for 60 "ceph smrstore status lists osd.0..$((OSDS - 1)) (source osd, 2 drives, fresh)" osds_listed

# The workload: 4 MiB objects over a 60-object key space (about 140 MiB live per OSD of its
# 576 MiB of data zones), overwritten and deleted until GC ran everywhere.
$PY "$here/rados_churn.py" --pool churn --objects 60 --size 4M --threads 2 --seconds 120 \
  --stop-file "$scratch/stop-churn" >churn.log 2>&1 &
serve_pid=$!
wait_for 110 "zone GC cleaned and reset zones on every OSD under the workload (>= 5 runs each)" \
  tell_all 'd["gc"]["runs"] >= 5 and d["gc"]["zones_reset"] >= 5 and d["io"]["write_amplification"] > 1'
touch "$scratch/stop-churn"
wait "$serve_pid" || die "the workload failed: $(tail -3 churn.log)"
serve_pid=
tail -1 churn.log
# At rest: background GC cleans until its stop threshold, then nothing moves.
maps() {
  _i=0
  while [ $_i -lt $OSDS ]; do
    ceph tell osd.$_i smrstore stats 2>/dev/null | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["io"]["device_bytes"], "".join(x["zonemap"] for x in d["drives"]))'
    _i=$((_i + 1))
  done
}
settled() { a=$(maps); sleep 3; b=$(maps); [ "$a" = "$b" ]; }
wait_for 60 "the OSDs at rest (device bytes and zone maps unchanged over 3 s)" settled

q smrstore status
tell_map=$(ceph tell osd.1 smrstore stats 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["drives"][1]["zonemap"])')
zones_cli() { q smrstore zones osd.1 | grep -qF "$tell_map"; }
wait_for 30 "ceph smrstore zones osd.1 prints drive 1's zone map as ceph tell osd.1 has it ($tell_map)" zones_cli

q config set mgr mgr/smrstore/space_low_ratio 0.99
wait_for 30 "SMRSTORE_SPACE_LOW names the OSDs (space_low_ratio 0.99)" \
  sh -c 'ceph health detail 2>/dev/null | grep -q "osd.2: .*% available"'
q health detail | grep -A3 SMRSTORE_SPACE_LOW || true
q config set mgr mgr/smrstore/space_low_ratio 0.1
wait_for 30 "SMRSTORE_SPACE_LOW cleared (0.1)" sh -c '! ceph health detail 2>/dev/null | grep -q SMRSTORE_SPACE_LOW'

# GC state: background GC off on one OSD (its own command), so the console shows both states.
q tell osd.2 smrstore gc stop | /usr/bin/python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["gc_auto"] is not False)' \
  || die "ceph tell osd.2 smrstore gc stop: $(cat ceph.err)"
echo "ok: background GC stopped on osd.2 (ceph tell osd.2 smrstore gc stop)"

token=$(q smrstore token create qa-osds) || die "token create: $(cat ceph.err)"
wait_for 30 "the API answers on $base" sh -c "curl -sf -o /dev/null -H 'Authorization: Bearer $token' $base/api/v1/summary"
mkdir -p "$out"
(cd "$repo/web" && SMRSTORE_E2E_URL=$base SMRSTORE_E2E_TOKEN=$token SMRSTORE_E2E_OUT=$out \
  SMRSTORE_E2E_OSDS="$(seq 0 $((OSDS - 1)) | tr '\n' ' ')" PLAYWRIGHT_HTML_OUTPUT_DIR=$out/report-osds \
  npx --no-install playwright test --config playwright.config.ts --project osds) ||
  die "console vs ceph tell (screenshots, traces and report in $out)"

trap - EXIT
ceph_qa_cleanup
[ $# -ge 2 ] || rm -rf "$scratch"
echo "PASS: the console shows $OSDS real smrstore OSDs as ceph tell does ($(( $(date +%s) - t_start )) s)"
