#!/bin/sh
# The smrstore ceph-mgr module against the real ceph-mgr 16.2.15: starts a private one-node
# cluster (qa/ceph/lib.sh, no OSD: service daemons need only mon + mgr) with the module
# path mgr-module/, enables the module, runs `smrstore-tool serve --publish t1 --workload
# churn` on a store on two emulated drives, and checks
#   - `ceph smrstore status -f json` lists t1 (source service, 2 drives); zones/wa/gc/
#     conversion answer; a bad format or daemon name is an error with a message;
#   - health: raising the space_low_ratio option above the store's free ratio makes
#     `ceph health detail` show SMRSTORE_SPACE_LOW, setting it back clears it;
#   - REST (mgr-module/tools/check_api.py): no/wrong token -> 401 on every route, the token
#     -> data matching `ceph service status`, malformed requests -> 422/404 with a message,
#     /metrics parses with smrstore_* samples for t1; a removed token -> 401;
#   - with SMRSTORE_E2E=1 and web/playwright.config.ts present: the web console's browser
#     tests against this stack, `npx --no-install playwright test --project console` in web/
#     (e2e/console.spec.ts; PNGs, failure screenshots + traces, HTML report in OUTDIR =
#     $SMRSTORE_E2E_OUT, default SCRATCH_DIR/e2e);
#   - a frozen publisher (SIGSTOP) raises SMRSTORE_DAEMON_STALE, resuming clears it.
# Exit status = verdict.
#   sh qa/ceph/0003_mgr_module.sh TOOL [SCRATCH_DIR]  (default: a temp dir, removed on success)
set -eu
[ $# -ge 1 ] || { echo "usage: $0 path/to/smrstore-tool [SCRATCH_DIR]" >&2; exit 2; }
TOOL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -x "$TOOL" ] || { echo "FAIL: $1 is not an executable" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
die() { echo "FAIL: $*" >&2; exit 1; }
PY=/usr/bin/python3

ceph_qa_scratch smr-mgr "${2:-}"   # sets $scratch, $cl; stops $serve_pid + cluster on exit


cd "$scratch"
"$TOOL" mkfs st "emu:$scratch/d0.img?zones=24&zone_mib=16" "emu:$scratch/d1.img?zones=20&zone_mib=16" >/dev/null

ceph_cluster_start "$cl" --no-osd --mgr-module-path "$repo/mgr-module"
port=$(free_port)
base="http://127.0.0.1:$port"
q config set mgr mgr/smrstore/server_port "$port"
q config set mgr mgr/smrstore/sample_interval 1
q config set mgr mgr/smrstore/stale_seconds 10
q mgr module enable smrstore --force || die "enable smrstore: $(cat ceph.err)"

"$TOOL" serve st --publish t1 --workload churn --rate 20 --interval 1 >serve.log 2>&1 &
serve_pid=$!

has_t1() {
  q smrstore status -f json | $PY -c '
import json, sys
d = json.load(sys.stdin)
t1 = [x for x in d["daemons"] if x["name"] == "t1"]
sys.exit(0 if t1 and t1[0]["source"] == "service" and t1[0]["drives"] == 2 and not t1[0]["stale"] else 1)'
}
wait_for 90 "ceph smrstore status -f json lists t1 (service, 2 drives, fresh)" has_t1
q smrstore status
for c in zones wa gc conversion; do
  q smrstore $c >out.txt || die "ceph smrstore $c: $(cat ceph.err)"
  q smrstore $c -f json | $PY -c 'import json,sys; json.load(sys.stdin)' || die "smrstore $c -f json is not JSON"
done
q smrstore zones t1 | grep -q "^t1 drive 1: 20 zones of 16.0 MiB" || die "zones t1: $(q smrstore zones t1)"
echo "ok: zones, wa, gc, conversion answer (plain and JSON)"
if q smrstore status -f xml; then die "format xml accepted"; fi
grep -q "unknown format 'xml'" ceph.err || die "bad-format message: $(cat ceph.err)"
if q smrstore zones nobody; then die "unknown daemon accepted"; fi
grep -q "no smrstore daemon named 'nobody'" ceph.err || die "unknown-daemon message: $(cat ceph.err)"
echo "ok: bad format and unknown daemon refused with a message"

# Health: trip SMRSTORE_SPACE_LOW through its threshold option, then clear it.
# (`ceph config rm` did not bring the module back to the default in 16.2.15 here: set it.)
q config set mgr mgr/smrstore/space_low_ratio 0.999
wait_for 30 "ceph health detail shows SMRSTORE_SPACE_LOW (space_low_ratio 0.999)" \
  sh -c 'ceph health detail 2>/dev/null | grep -q "SMRSTORE_SPACE_LOW.*low on space"'
q health detail | grep -A1 SMRSTORE_SPACE_LOW
q config set mgr mgr/smrstore/space_low_ratio 0.1
wait_for 30 "SMRSTORE_SPACE_LOW cleared (space_low_ratio 0.1)" \
  sh -c '! ceph health detail 2>/dev/null | grep -q SMRSTORE_SPACE_LOW'

# REST.
token=$(q smrstore token create qa) || die "token create: $(cat ceph.err)"
[ ${#token} -ge 40 ] || die "token too short: '$token'"
q smrstore token ls | grep -q "^qa " || die "token ls does not list qa"
if q config-key dump | grep -qF "$token"; then die "the token itself is in the config-key store"; fi
echo "ok: token created; only its hash is stored"
wait_for 30 "the API answers on $base" sh -c "curl -sf -o /dev/null -H 'Authorization: Bearer $token' $base/api/v1/summary"
sleep 3   # a few history samples
q service status -f json >svc.json
$PY "$repo/mgr-module/tools/check_api.py" "$base" "$token" t1 svc.json >api.txt 2>&1 || {
  cat api.txt; die "REST checks"; }
echo "ok: REST: $(grep -c '^ok:' api.txt) checks passed (401s, data vs service status, 4xx, /metrics)"

if [ "${SMRSTORE_E2E:-0}" = 1 ]; then
  if [ -f "$repo/web/playwright.config.ts" ]; then
    e2e_out=${SMRSTORE_E2E_OUT:-$scratch/e2e}
    (cd "$repo/web" && SMRSTORE_E2E_URL=$base SMRSTORE_E2E_TOKEN=$token SMRSTORE_E2E_OUT=$e2e_out \
      PLAYWRIGHT_HTML_OUTPUT_DIR=$e2e_out/report-console \
      npx --no-install playwright test --config playwright.config.ts --project console) ||
      die "web e2e (screenshots, traces and report in $e2e_out)"
    echo "ok: web e2e"
  else
    echo "skip: SMRSTORE_E2E=1 but web/playwright.config.ts does not exist"
  fi
fi

q smrstore token rm qa || die "token rm: $(cat ceph.err)"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$base/api/v1/summary")
[ "$code" = 401 ] || die "removed token still accepted ($code)"
echo "ok: removed token -> 401"

# Stale: freeze the publisher (SIGSTOP: still registered, no more updates) until the
# module raises SMRSTORE_DAEMON_STALE (stale_seconds 10), thaw it and see the check clear.
# (A publisher that exits cleanly leaves the service map at once: nothing to flag.)
kill -STOP "$serve_pid"
wait_for 60 "ceph health detail shows SMRSTORE_DAEMON_STALE while the publisher is frozen" \
  sh -c 'ceph health detail 2>/dev/null | grep -q "SMRSTORE_DAEMON_STALE"'
q health detail | grep -A1 SMRSTORE_DAEMON_STALE
kill -CONT "$serve_pid"
wait_for 60 "SMRSTORE_DAEMON_STALE cleared after the publisher resumed" \
  sh -c '! ceph health detail 2>/dev/null | grep -q SMRSTORE_DAEMON_STALE'
kill -TERM "$serve_pid"; wait "$serve_pid" || die "serve exited non-zero on SIGTERM: $(tail -3 serve.log)"
serve_pid=

trap - EXIT
ceph_qa_cleanup
[ $# -ge 2 ] || rm -rf "$scratch"
echo "PASS: smrstore mgr module on ceph-mgr 16.2.15"
