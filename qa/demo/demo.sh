#!/bin/sh
# make demo: smrstore end to end on this machine, left running.
#  1. an emulated HM-SMR drive at work: sequential writes at the write pointer, a refused
#     out-of-order write, verified reads, zone finish/reset, the zone report;
#  2. a one-node Ceph 16.2.15 cluster (qa/ceph/lib.sh) whose 3 OSDs are Debian's own ceph-osd
#     running smrstore (libsmrstore_osd.so preloaded; each OSD on two small emulated HM-SMR
#     drives of 24 zones x 16 MiB), pool `churn` of size 2, the smrstore mgr module, and a
#     client workload that overwrites and deletes 4 MiB objects (120 keys) at about 16 MB/s
#     (qa/ceph/rados_churn.py) so zone GC is at work within about two minutes (relocating
#     live data, WA above 1, zones reclaimed);
#  3. beside them two stores run by smrstore-tool, publishing to the mgr as librados service
#     daemons under their own churn: demo-a (2 emulated drives) and demo-hybrid (one emulated
#     hybrid drive — the emulator is the only place hybrid drives exist here — of 12 realms,
#     all CMR at mkfs, HDD timing model 40 MB/s, 8 s per realm conversion: as its churn fills
#     it, the engine converts CMR realms to SMR one after the other, which the console's
#     Hybrid view shows);
#  4. prints the console URL with an API token (http://127.0.0.1:PORT/#token=...): the
#     console lists osd.0..2 (source osd), demo-a and demo-hybrid (source service).
# Everything stays up until `make demo-stop` (qa/demo/stop.sh). State in $SMRSTORE_DEMO_DIR
# (default /var/tmp/smrstore-demo); SMRSTORE_DEMO_PORT picks the console port (default
# 8765, or a free one if that is taken); SMRSTORE_OSD_LIB the preload library (default
# build/src/os/smrstore/osd/libsmrstore_osd.so, built by `make build`); SMRSTORE_DEMO_RATE
# the workload's MB/s (default 16).
#   sh qa/demo/demo.sh path/to/smrstore-tool
set -eu
[ $# -ge 1 ] || { echo "usage: $0 path/to/smrstore-tool" >&2; exit 2; }
TOOL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -x "$TOOL" ] || { echo "demo: $1 is not an executable (make build first)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
DIR=${SMRSTORE_DEMO_DIR:-/var/tmp/smrstore-demo}
PY=/usr/bin/python3
step() { printf '\n== %s\n' "$*"; }
die() { echo "demo: $*" >&2; exit 1; }

if [ -f "$DIR/cluster/run/mon.a.pid" ] && kill -0 "$(cat "$DIR/cluster/run/mon.a.pid")" 2>/dev/null; then
  die "a demo is already running in $DIR (make demo-stop first)"
fi
mkdir -p "$DIR"

# --- 1. one emulated drive --------------------------------------------------------------
IMG="$DIR/drive0.img"
rm -f "$IMG"
SPEC="emu:$IMG?zones=100&zone_mib=256&max_open=128"
step "an emulated host-managed SMR drive: $SPEC"
"$TOOL" mkdev "$SPEC"
step "write: 256 MiB fills zone 1, 100 MiB half-fills zone 2"
"$TOOL" write "emu:$IMG" --zone 1 --length 256M --seed 1
"$TOOL" write "emu:$IMG" --zone 2 --length 100M --seed 2
step "a write that is not at the write pointer is refused, as a real drive refuses it"
"$TOOL" write "emu:$IMG" --offset 512M --length 4K || true
step "read back and verify every byte; finish zone 2, reset zone 1"
"$TOOL" read "emu:$IMG" --offset 256M --length 256M --verify-seed 1
"$TOOL" read "emu:$IMG" --offset 512M --length 100M --verify-seed 2
"$TOOL" zone "emu:$IMG" finish 2
"$TOOL" zone "emu:$IMG" reset 1
"$TOOL" zones "emu:$IMG" --count 4

# --- 2. cluster, mgr module, two publishing stores --------------------------------------
step "the web console"
if [ -f "$repo/web/dist/index.html" ]; then
  echo "web/dist is built"
elif command -v npm >/dev/null 2>&1 && [ -f "$repo/web/package.json" ]; then
  (cd "$repo/web" && { [ -d node_modules ] || sh scripts/npm-install.sh; } && npm run build) \
    || die "building the web console failed"
else
  echo "web console not built and npm missing: the API still runs (scripts/install-deps.sh web)"
fi

step "a one-node Ceph cluster: 3 OSDs on smrstore (Debian's ceph-osd + libsmrstore_osd.so), the smrstore mgr module"
. "$repo/qa/ceph/lib.sh"
[ -f "$SMRSTORE_OSD_LIB" ] || die "$SMRSTORE_OSD_LIB not found (make build)"
rm -rf "$DIR/cluster" "$DIR/workload"
OSDS=3
export SMRSTORE_QA_DRIVES="emu:@DIR@/drive0.img?zones=24&zone_mib=16&conv=2 emu:@DIR@/drive1.img?zones=24&zone_mib=16&conv=2"
ceph_cluster_start "$DIR/cluster" --objectstore smrstore --osds $OSDS --size 2 --mgr-module-path "$repo/mgr-module"
port=${SMRSTORE_DEMO_PORT:-8765}
if ! $PY -c "import socket,sys; s=socket.socket(); s.bind(('127.0.0.1', $port))" 2>/dev/null; then
  port=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  echo "port ${SMRSTORE_DEMO_PORT:-8765} is taken; using $port"
fi
ceph config set mgr mgr/smrstore/server_port "$port" 2>/dev/null
ceph config set mgr mgr/smrstore/sample_interval 2 2>/dev/null
# These drives have 22 data zones; GC keeps about 3 free per drive (gc_start_free 3 %), so the
# default SMRSTORE_GC_BEHIND limit of 4 free zones would warn all the time GC merely works.
ceph config set mgr mgr/smrstore/gc_free_zones_min 2 2>/dev/null
ceph mgr module enable smrstore --force 2>/dev/null

step "a client workload on pool churn (size 2): 4 MiB objects overwritten and deleted at ${SMRSTORE_DEMO_RATE:-16} MB/s"
ceph osd pool create churn 64 64 replicated >/dev/null 2>&1 || die "ceph osd pool create churn failed"
ceph osd pool application enable churn rados >/dev/null 2>&1 || true
t0=$(date +%s)
pgs_clean() {
  ceph pg stat -f json 2>/dev/null | $PY -c '
import json, sys
s = json.load(sys.stdin)
s = s.get("pg_summary", s)
n = s.get("num_pgs", 0)
clean = sum(x["num"] for x in s.get("num_pg_by_state", []) if x["name"] == "active+clean")
sys.exit(0 if n >= 64 and clean == n else 1)'
}
until pgs_clean; do
  [ $(( $(date +%s) - t0 )) -lt 120 ] || die "pool churn not active+clean in 120 s ($(ceph pg stat 2>&1))"
  sleep 2
done
mkdir -p "$DIR/workload"
setsid $PY "$repo/qa/ceph/rados_churn.py" --pool churn --objects 120 --size 4M --threads 2 \
  --delete-ratio 0.1 --rate "${SMRSTORE_DEMO_RATE:-16}" --seconds 0 \
  >"$DIR/workload/churn.log" 2>&1 </dev/null &
echo $! >"$DIR/workload/churn.pid"
echo "workload: pid $!, log $DIR/workload/churn.log"

step "beside the OSDs, a store run by smrstore-tool, publishing to ceph-mgr under churn"
start_store() {  # NAME FILL SPEC...
  _n=$1; _fill=$2; shift 2
  rm -rf "$DIR/$_n"; mkdir -p "$DIR/$_n"
  _specs=
  for _s in "$@"; do _specs="$_specs emu:$DIR/$_n/$_s"; done
  # shellcheck disable=SC2086
  "$TOOL" mkfs "$DIR/$_n/store" $_specs >/dev/null
  setsid "$TOOL" serve "$DIR/$_n/store" --publish "$_n" --ceph-conf "$CEPH_CONF" \
    --workload churn --rate 20 --fill "$_fill" --interval 2 --seed "$(printf '%s' "$_n" | cksum | cut -c1-5)" \
    >"$DIR/$_n/serve.log" 2>&1 </dev/null &
  echo $! >"$DIR/$_n/serve.pid"
  echo "$_n: pid $!, log $DIR/$_n/serve.log"
}
start_store demo-a 0.7 "d0.img?zones=64&zone_mib=16" "d1.img?zones=64&zone_mib=16"
start_store demo-hybrid 0.8 "h0.img?zone_mib=16&conv=2&realms=12&convert_ms=8000&mbps=40"

token=$(ceph smrstore token create "demo-$(date +%s)" 2>/dev/null) || die "token create failed"
t0=$(date +%s)
want=$((OSDS + 2))
until [ "$(ceph smrstore status -f json 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["summary"]["daemons"])' 2>/dev/null)" = $want ]; do
  [ $(( $(date +%s) - t0 )) -lt 120 ] || die "the module did not see the $OSDS OSDs, demo-a and demo-hybrid in 120 s (logs: $DIR/*/serve.log, $DIR/cluster/log)"
  sleep 2
done
ceph smrstore status 2>/dev/null
printf 'http://127.0.0.1:%s/#token=%s\n' "$port" "$token" >"$DIR/url"
cat <<EOT

The demo runs on (make demo-stop ends it):
  console:  http://127.0.0.1:$port/#token=$token
  API:      curl -H 'Authorization: Bearer $token' http://127.0.0.1:$port/api/v1/summary
  CLI:      CEPH_CONF=$CEPH_CONF ceph smrstore status   (zones, wa, gc, conversion)
  an OSD:   CEPH_CONF=$CEPH_CONF ceph tell osd.0 smrstore stats
Zone GC starts on the OSDs once their drives fill, about a minute in (console: GC, Zone map).
demo-hybrid's first CMR->SMR conversion starts once its churn has filled it below 15 % free
(console: Hybrid; CLI: ceph smrstore conversion).
EOT
