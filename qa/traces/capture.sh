#!/bin/sh
# Captures real ObjectStore transactions from a FileStore OSD (Debian Ceph 16.2.15) while
# unchanged clients work, and the OSD's real end state; writes one capture directory per
# workload (trace.json.gz, expected.json, meta.json; format in qa/traces/README.md).
#
#   sh qa/traces/capture.sh [--out DIR] [--keep] [WORKLOAD ...]
#     WORKLOAD: rados-basic | rados-bench | rgw   (default: all three)
#     --out DIR  where capture directories go (default: a new temp dir; use
#                --out qa/traces/captures to refresh the committed ones)
#     --keep     keep each cluster directory (logs, raw dump) under DIR/.work/
#
# Per workload: a fresh cluster (FileStore OSD, cephx; radosgw for rgw); the OSD is stopped
# once to list the objects it already holds (ceph-objectstore-tool), restarted, and its
# transaction dump is switched on; the clients run; the OSD is stopped (this closes the
# dump); the dump is normalized, the reference model computes expected.json, and every
# object the capture created is compared with what ceph-objectstore-tool reads from the
# stopped OSD. Any difference fails the capture.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../ceph/lib.sh"
PY=/usr/bin/python3
die() { echo "capture: ERROR: $*" >&2; exit 1; }

out=; keep=0; workloads=
while [ $# -gt 0 ]; do
  case $1 in
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    rados-basic|rados-bench|rgw) workloads="$workloads $1"; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (workloads: rados-basic rados-bench rgw)" ;;
  esac
done
[ -n "$workloads" ] || workloads="rados-basic rados-bench rgw"
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/smrstore-captures.XXXXXX")
mkdir -p "$out"; out=$(cd "$out" && pwd)
for b in ceph-objectstore-tool rados radosgw radosgw-admin; do
  command -v $b >/dev/null || die "$b not found (scripts/install-deps.sh ceph)"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/smrstore-capture-work.XXXXXX")
cl=
cleanup() {
  if [ -n "$cl" ] && [ -d "$cl/run" ]; then ceph_cluster_stop "$cl" || true; fi
  if [ $keep -eq 0 ]; then rm -rf "$work"; fi
}
trap cleanup EXIT

# run CMD...: runs a client command and records it for meta.json.
run() {
  echo "+ $*" >&2
  printf '%s\n' "$*" >>"$w/commands.txt"
  "$@" >>"$w/client.out" 2>&1 || { tail -n 20 "$w/client.out" >&2; die "client command failed: $*"; }
}

osd_pid() { cat "$cl/run/osd.0.pid"; }
# radosgw hangs in shutdown once the OSD is gone, so it stops first (while the dump still
# runs: whatever it writes on the way out is part of the capture).
stop_rgw() {
  [ -f "$cl/run/client.rgw.x.pid" ] || return 0
  p=$(cat "$cl/run/client.rgw.x.pid"); kill -TERM "$p" 2>/dev/null || true
  n=0; while kill -0 "$p" 2>/dev/null; do sleep 0.2; n=$((n + 1)); [ $n -lt 300 ] || die "radosgw did not stop"; done
  rm -f "$cl/run/client.rgw.x.pid"
}
stop_osd() {
  # A fast shutdown (the default) exits without unmounting FileStore, which leaves the dump
  # truncated; a full shutdown closes it after the last transaction.
  ceph daemon osd.0 config set osd_fast_shutdown false >/dev/null || die "cannot turn osd_fast_shutdown off"
  p=$(osd_pid); kill -TERM "$p"
  n=0; while kill -0 "$p" 2>/dev/null; do sleep 0.2; n=$((n + 1)); [ $n -lt 600 ] || die "osd.0 did not stop"; done
  rm -f "$cl/run/osd.0.pid"
}
start_osd() {
  ceph-osd -i 0 -c "$CEPH_CONF" >>"$cl/log/osd.0.out" 2>&1 || die "ceph-osd restart failed"
  _cq_wait "$CEPH_QA_TIMEOUT" "osd.0 up and in after restart" "$cl/log/osd.0.log" _cq_osd_up_in || exit 1
  _cq_wait "$CEPH_QA_TIMEOUT" "all PGs active after the OSD restart" "$cl/log/osd.0.log" all_pgs_active || exit 1
}
all_pgs_active() {
  ceph --connect-timeout 20 pg stat -f json | $PY -c '
import json, sys
d = json.load(sys.stdin)
s = d.get("pg_summary", d)
states = s.get("num_pg_by_state", [])
total = s.get("num_pgs", 0)
active = sum(x["num"] for x in states if "active" in x["name"].split("+"))
sys.exit(0 if total and active == total else 1)'
}

workload_rados_basic() {
  ceph_pool_create basic 8
  f=$w/data; mkdir -p "$f"
  head -c 200000 /dev/urandom >"$f/200k"; head -c 3000 /dev/urandom >"$f/3k"
  head -c 1500000 /dev/urandom >"$f/1500k"
  run rados -p basic put o1 "$f/200k"
  run rados -p basic get o1 "$f/o1.out"
  cmp "$f/200k" "$f/o1.out" || die "o1 read back differs"
  run rados -p basic put o2 "$f/1500k"
  run rados -p basic put o3 "$f/3k"
  run rados -p basic setxattr o1 color blue
  run rados -p basic setxattr o1 size-class large
  run rados -p basic rmxattr o1 size-class
  run rados -p basic setomapval o1 k1 v1
  run rados -p basic setomapval o1 k2 value-two
  run rados -p basic setomapval o1 k3 v3
  run rados -p basic rmomapkey o1 k1
  run rados -p basic setomapheader o1 header-bytes
  run rados -p basic truncate o2 1000
  run rados -p basic append o3 "$f/3k"
  run rados -p basic create o4
  run rados -p basic setomapval o4 only-key x
  run rados -p basic clearomap o4
  run rados -p basic rm o3
  run rados -p basic mksnap s1
  run rados -p basic put o2 "$f/3k"
  run rados -p basic rmsnap s1
  run $PY "$here/workloads/rados_py.py" "$CEPH_CONF" basic
  sleep 5   # let the snap trimmer remove the clone of o2 before the OSD stops
}

workload_rados_bench() {
  ceph_pool_create bench 8
  run rados bench -p bench 3 write -b 16384 -t 4 --no-cleanup --run-name tr
  run rados bench -p bench 3 seq -t 4 --run-name tr
  run rados bench -p bench 3 rand -t 4 --run-name tr
  run rados -p bench cleanup --run-name tr
}

workload_rgw() {
  run $PY "$here/workloads/rgw_s3.py" "http://127.0.0.1:$rgw_port" TRACEACCESSKEY0001 tracesecretkey0000000000000000000000001
  sleep 3
}

for wl in $workloads; do
  w=$work/$wl; mkdir -p "$w"; : >"$w/commands.txt"; cl=$w/cluster
  echo "capture: === $wl ===" >&2
  if [ "$wl" = rgw ]; then
    rgw_port=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    ceph_cluster_start "$cl" --objectstore filestore --cephx --rgw "$rgw_port"
    radosgw-admin user create --uid trace --display-name "trace capture" \
      --access-key TRACEACCESSKEY0001 --secret tracesecretkey0000000000000000000000001 >/dev/null \
      || die "radosgw-admin user create failed"
  else
    ceph_cluster_start "$cl" --objectstore filestore --cephx
  fi
  # The objects the OSD holds before the dump starts (a write to one changes it, it does
  # not create it).
  stop_osd
  $PY "$here/osdstate.py" list "$cl/osd.0" >"$w/preexisting.json" || die "listing the OSD's objects failed"
  start_osd
  ceph daemon osd.0 config set filestore_dump_file "$w/dump.json" >/dev/null || die "cannot switch the dump on"
  t0=$(date +%s)
  case $wl in
    rados-basic) workload_rados_basic ;;
    rados-bench) workload_rados_bench ;;
    rgw) workload_rgw ;;
  esac
  ceph osd dump -f json >"$w/pools.json"
  stop_rgw
  stop_osd   # closes the dump; every transaction up to the OSD's last one is in it
  secs=$(( $(date +%s) - t0 ))
  $PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$w/dump.json" || die "$w/dump.json is not complete JSON"

  d=$out/$wl; mkdir -p "$d"
  (cd "$here" && $PY normalize.py --pools "$w/pools.json" --preexisting "$w/preexisting.json" \
      --out "$d/trace.json.gz" "$w/dump.json") || die "normalizing the dump failed"
  (cd "$here" && $PY model.py "$d/trace.json.gz") >"$d/expected.json" || die "the model failed"
  (cd "$here" && $PY osdstate.py check "$cl/osd.0" "$d/expected.json") \
    || die "$wl: the real OSD's end state differs from the model (see MISMATCH lines above)"
  (cd "$here" && $PY meta.py --name "$wl" --seconds "$secs" --commands "$w/commands.txt" \
      --dump "$w/dump.json" --trace "$d/trace.json.gz" --expected "$d/expected.json") >"$d/meta.json" \
    || die "writing meta.json failed"
  ceph_cluster_stop "$cl" || die "stopping the $wl cluster failed"
  cl=
  echo "capture: $wl -> $d ($(du -k "$d/trace.json.gz" | cut -f1) KiB trace)" >&2
done
echo "$out"
