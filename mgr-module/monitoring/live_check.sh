#!/bin/bash
# The dashboard and the alert rules against a real Prometheus scraping a real cluster:
#   1. a private one-node Ceph 16.2.15 (qa/ceph/lib.sh) with 2 smrstore OSDs (Debian's
#      ceph-osd + libsmrstore_osd.so, each on two emulated HM-SMR drives of 20 x 16 MiB) and
#      the smrstore mgr module (sample_interval 1 s, stale_seconds 10 s), plus one service
#      daemon `smrstore-tool serve --publish hyb` on an emulated HYBRID drive under churn (no
#      OSD here has a hybrid drive; hybrid drives exist only in the emulator), so that the
#      conversion panels and rules have real series too;
#   2. Debian's prometheus (2.42) on a free 127.0.0.1 port scraping the module's /metrics
#      every 2 s (bearer token), rule_files = alerts.yml, evaluation every 2 s;
#   3. a python3-rados overwrite workload (qa/ceph/rados_churn.py) on a size-2 pool;
#   4. live_check.py evaluate: every panel target of dashboards/smrstore.json, both template
#      queries and every alert rule (health, its expression, each metric selector in it)
#      through /api/v1/query, /api/v1/rules; a table; fails on an empty panel query;
#   5. SIGTERM to osd.1: its stats go stale, smrstore_up{daemon="osd.1"} == 0 after
#      stale_seconds, and SMRStoreDaemonStale must be `firing` in /api/v1/alerts (its `for`
#      is 1m) within 150 s; the alert is printed.
# Everything it started is stopped on exit (pid files; the scratch dir is removed on success
# unless SCRATCH_DIR was given). Runs as root without systemd. About 3 minutes.
#   mgr-module/monitoring/live_check.sh [SCRATCH_DIR]
# Needs: the build (build/src/tools/smrstore-tool, build/src/os/smrstore/osd/libsmrstore_osd.so),
# Debian's ceph 16.2.15 and prometheus (scripts/install-deps.sh ceph).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
PY=/usr/bin/python3
TOOL=${SMRSTORE_TOOL:-$repo/build/src/tools/smrstore-tool}
PROMETHEUS=${PROMETHEUS:-/usr/bin/prometheus}
die() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$TOOL" ] || die "$TOOL missing (make build)"
[ -x "$PROMETHEUS" ] || die "$PROMETHEUS missing (scripts/install-deps.sh ceph: Debian package prometheus)"
. "$repo/qa/ceph/lib.sh"
[ -f "$SMRSTORE_OSD_LIB" ] || die "$SMRSTORE_OSD_LIB missing (make build)"

keep=${1:-}
scratch=${1:-$(mktemp -d /var/tmp/smrstore-promcheck.XXXXXX)}
mkdir -p "$scratch"; scratch=$(cd "$scratch" && pwd)
cl=$scratch/cluster
prom_pid=; serve_pid=; churn_pid=; ok=
stop_pid() {  # PID NAME: SIGTERM, wait up to 20 s, SIGKILL
  [ -n "$1" ] && kill -0 "$1" 2>/dev/null || return 0
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.2; done
  kill -0 "$1" 2>/dev/null && { echo "  $2 (pid $1) ignored SIGTERM; SIGKILL" >&2; kill -KILL "$1" 2>/dev/null || true; }
  wait "$1" 2>/dev/null || true
}
cleanup() {
  rc=$?
  [ -n "$churn_pid" ] && touch "$scratch/stop-churn"
  stop_pid "$churn_pid" rados_churn
  stop_pid "$serve_pid" "smrstore-tool serve"
  stop_pid "$prom_pid" prometheus
  [ -d "$cl/run" ] && { ceph_cluster_stop "$cl" || true; }
  if [ "$rc" -eq 0 ] && [ -n "$ok" ] && [ -z "$keep" ]; then rm -rf "$scratch"
  else echo "live_check: logs kept in $scratch (prometheus.log, serve.log, churn.log, cluster/log/)" >&2; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
t0=$(date +%s)
el() { echo "$(( $(date +%s) - t0 ))s"; }
cd "$scratch"

echo "== cluster: 2 smrstore OSDs + the smrstore mgr module ($scratch)"
export SMRSTORE_QA_DRIVES="emu:@DIR@/drive0.img?zones=20&zone_mib=16&conv=2 emu:@DIR@/drive1.img?zones=20&zone_mib=16&conv=2"
ceph_cluster_start "$cl" --objectstore smrstore --osds 2 --size 2 --mgr-module-path "$repo/mgr-module" 2>cluster-start.log \
  || { cat cluster-start.log >&2; die "cluster start"; }
mport=$(free_port)
q config set mgr mgr/smrstore/server_port "$mport"
q config set mgr mgr/smrstore/sample_interval 1
q config set mgr mgr/smrstore/stale_seconds 10
q mgr module enable smrstore --force || die "enable smrstore: $(cat ceph.err)"
wait_for 60 "the module takes commands (ceph smrstore token create)" sh -c "ceph smrstore token create prom >token 2>/dev/null"
chmod 600 token
wait_for 30 "/metrics answers on 127.0.0.1:$mport with the token" \
  sh -c "curl -sf -H \"Authorization: Bearer \$(cat token)\" http://127.0.0.1:$mport/metrics | grep -q '^smrstore_up{daemon=\"osd.1\"} 1'"
ceph_pool_create churn 16 2 2>>cluster-start.log || die "pool create"

echo "== service daemon hyb: an emulated hybrid drive under churn ($(el))"
"$TOOL" mkfs hyb "emu:$scratch/h0.img?zone_mib=16&conv=2&realms=12&convert_ms=500" \
  "emu:$scratch/d1.img?zones=12&zone_mib=16&conv=1" >mkfs.log 2>&1 || die "mkfs: $(cat mkfs.log)"
"$TOOL" serve hyb --publish hyb --workload churn --fill 0.8 --rate 150 --interval 1 >serve.log 2>&1 &
serve_pid=$!

echo "== prometheus $("$PROMETHEUS" --version 2>&1 | head -n1 | cut -d' ' -f3) ($(el))"
pport=$(free_port)
prom=http://127.0.0.1:$pport
cat >prometheus.yml <<EOF
global:
  scrape_interval: 2s
  evaluation_interval: 2s
rule_files:
  - $here/alerts.yml
scrape_configs:
  - job_name: smrstore-mgr
    authorization:
      type: Bearer
      credentials_file: $scratch/token
    static_configs:
      - targets: ["127.0.0.1:$mport"]
EOF
"$PROMETHEUS" --config.file=prometheus.yml --storage.tsdb.path="$scratch/prom-data" \
  --web.listen-address="127.0.0.1:$pport" >prometheus.log 2>&1 &
prom_pid=$!
wait_for 30 "prometheus ready on $prom" curl -sf "$prom/-/ready"

echo "== workload: rados_churn.py on pool churn (size 2), 4 MiB overwrites at 16 MB/s ($(el))"
$PY "$repo/qa/ceph/rados_churn.py" --pool churn --objects 24 --size 4M --threads 2 --rate 16 --seconds 0 \
  --stop-file "$scratch/stop-churn" >churn.log 2>&1 &
churn_pid=$!

echo "== waiting for scrapes, GC on the OSDs and a conversion quantum on hyb ($(el))"
$PY "$here/live_check.py" wait-data --prom "$prom" --timeout 120 --scrapes 15 \
  --require 'smrstore_gc_zones_reset_total{daemon=~"osd.*"} > 0' \
  --require 'increase(smrstore_user_bytes_total{daemon="osd.1"}[30s]) > 0' \
  --require 'smrstore_drive_conversion_quantum_ms_p99{daemon="hyb"}' \
  || die "no data (prometheus.log, churn.log, serve.log in $scratch)"

echo "== evaluating the dashboard's queries and the alert rules through $prom/api/v1 ($(el))"
$PY "$here/live_check.py" evaluate --prom "$prom" --dashboard "$here/dashboards/smrstore.json" \
  --alerts "$here/alerts.yml" --osds osd.0,osd.1 --hybrid hyb || die "a dashboard query or an alert rule returned nothing (above)"

echo "== forcing an alert: SIGTERM to osd.1 (SMRStoreDaemonStale: smrstore_up == 0 for 1m) ($(el))"
touch "$scratch/stop-churn"; stop_pid "$churn_pid" rados_churn; churn_pid=
tail -n1 churn.log
ceph_osd_stop "$cl" 1 2>>cluster-start.log || die "stopping osd.1"
echo "  osd.1 stopped ($(el))"
$PY "$here/live_check.py" wait-alert --prom "$prom" --alert SMRStoreDaemonStale --daemon osd.1 \
  --timeout 150 || die "SMRStoreDaemonStale did not fire for osd.1"
ok=1
echo "PASS: dashboard queries and alert rules evaluated by prometheus on a live cluster; SMRStoreDaemonStale fired ($(el))"
