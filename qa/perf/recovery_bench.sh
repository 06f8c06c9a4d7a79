#!/bin/bash
# make recovery-bench (issue 46 goal 3, the measurement): backfill of a replaced OSD, smrstore
# against BlueStore, on the same HDD timing model as make drive-bench — HeadModel
# (src/os/smrstore/device/head_model.h) at RECOVERY_BENCH_MBPS sequential MB/s (25) and
# RECOVERY_BENCH_SEEK_MS per positioning (8): smrstore OSDs on emulated HM-SMR drives
# (`emu:...&mbps=..&seek_ms=..&direct=1`), BlueStore OSDs on loop devices over nbdfuse +
# nbdkit with the project's timing filter (qa/perf/drive_model_lib.sh sets both up; the
# model in full: qa/perf/drive_bench.sh's header). RocksDB on flash (the OSD dir / a file
# beside the drives) for both.
#
# Cluster, the same for both stores: RECOVERY_BENCH_OSDS OSDs (4), one drive each of
# RECOVERY_BENCH_ZONES x RECOVERY_BENCH_ZONE_MIB MiB (96 x 16 = 1.5 GiB, drive-bench's),
# pool `bench` size 3 with 128 PGs, osd memory target 1 GiB, cephx (qa/ceph/lib.sh), and
# recovery let run at full speed, identically:
#   osd max backfills = 16, osd recovery max active = 16, osd recovery sleep (and _hdd,
#   _ssd, _hybrid) = 0, osd recovery op priority = 63 (nothing else runs),
#   mgr stats period = 1 (PG states reach the mgr every second: the end of backfill is seen
#   within ~1-2 s, not 5);
# and the PG logs held to one entry (osd min / max pg log entries = 1, osd pg log trim
# min = 1) with each object's xattr set twice after the fill, so that every PG holding data
# has trimmed its log and the empty new OSD is BACKFILLED (scanned and copied in object
# order) — as a real drive of millions of objects is. With whole logs (a few entries per PG
# here) Ceph recovers a new OSD from the log instead, in write order (seen in a first smoke
# run: `active+recovering`, never `backfilling`). The report counts the PG states seen.
# Runs alternate S, B, S, B, ... (RECOVERY_BENCH_RUNS of each, default 2).
#
# Each run: fill the pool to RECOVERY_BENCH_FILL (0.50) of the drives' raw capacity / 3 in
# 4 MiB objects by two concurrent `rados bench write` runs, fillA (3/4) and fillB (1/4)
# interleaved on the drives, delete fillB (holes in every zone / region, as drive-bench
# does), wait until all PGs are active+clean. Then replace osd.V (RECOVERY_BENCH_VICTIM, 0)
# the way an operator replaces a failed drive while keeping the OSD id and CRUSH position
# (Ceph's "Replacing an OSD": destroy, not purge, so no PG maps anywhere else meanwhile):
#   ceph osd set noout; stop osd.V; ceph osd destroy V --yes-i-really-mean-it;
#   the drive wiped — smrstore: the OSD dir (drive image, RocksDB) removed, a fresh drive
#   of the same spec; BlueStore: its loop device and nbdfuse taken down, a new sparse image
#   of the same size under a new filter instance, the DB file and OSD dir removed;
#   ceph osd new UUID V (reuses the destroyed id); its cephx key again; ceph-osd --mkfs
#   --osd-uuid UUID; the device counters of the SOURCE drives (the other OSDs) taken;
#   ceph-osd -i V started (t0); ceph osd unset noout; then `ceph pg stat` polled every
#   second until every PG is active+clean and stays so for 6 s: t1 = the first clean poll.
# Figures per run: seconds (t1 - t0), bytes recovered (the sum over the pool's PGs of
# stat_sum.num_bytes_recovered / num_objects_recovered in `ceph pg dump`, and the new OSD's
# data bytes in `ceph osd df`), MB/s (recovered bytes / seconds, 10^6), that as a fraction of
# the model's sequential bandwidth; the SOURCE drives' reads, read bytes, seeks and seeks per
# GB of drive I/O during the backfill (smrstore: the emulated drives' HeadModel counters in
# `smrstore stats` → drives[].head; BlueStore: the filter's stats, each drive poked with one
# 4 KiB direct read after 1.1 s so its stats file is current) and the new drive's writes
# (bytes, MB/s over the backfill). Writes $OUT/recovery-bench.json and .md (the table).
#
#   bash qa/perf/recovery_bench.sh [OUT_DIR]   (default build/recovery-bench)
# Env: RECOVERY_BENCH_MBPS, _SEEK_MS, _RUNS, _OSDS, _ZONES, _ZONE_MIB, _FILL, _VICTIM,
#      _DIR (drives and clusters, default /dev/shm), _STORES (default "smrstore bluestore"),
#      _TIMEOUT (seconds to wait for the backfill, default 1800), SMRSTORE_BUILD_DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${SMRSTORE_BUILD_DIR:-$repo/build}
export SMRSTORE_OSD_LIB=${SMRSTORE_OSD_LIB:-$BUILD/src/os/smrstore/osd/libsmrstore_osd.so}
# shellcheck source=qa/ceph/lib.sh
. "$repo/qa/ceph/lib.sh"
OUT=${1:-$repo/build/recovery-bench}
MBPS=${RECOVERY_BENCH_MBPS:-25}
SEEK_MS=${RECOVERY_BENCH_SEEK_MS:-8}
RUNS=${RECOVERY_BENCH_RUNS:-2}
OSDS=${RECOVERY_BENCH_OSDS:-4}
PSIZE=3
ZONES=${RECOVERY_BENCH_ZONES:-96}
ZONE_MIB=${RECOVERY_BENCH_ZONE_MIB:-16}
FILL=${RECOVERY_BENCH_FILL:-0.50}
V=${RECOVERY_BENCH_VICTIM:-0}
STORES=${RECOVERY_BENCH_STORES:-smrstore bluestore}
BACKFILL_TMO=${RECOVERY_BENCH_TIMEOUT:-1800}
FILTER=$BUILD/src/tools/nbdkit-smrtiming-filter.so
PY=/usr/bin/python3
REPORT=$here/recovery_bench_report.py
DRIVE_BYTES=$((ZONES * ZONE_MIB * 1048576))
[ "$OSDS" -gt "$PSIZE" ] || { echo "recovery-bench: RECOVERY_BENCH_OSDS must be > $PSIZE" >&2; exit 2; }
[ "$V" -lt "$OSDS" ] || { echo "recovery-bench: RECOVERY_BENCH_VICTIM must be < $OSDS" >&2; exit 2; }

# shellcheck source=qa/perf/drive_model_lib.sh
. "$here/drive_model_lib.sh"
dm_check_deps recovery-bench

mkdir -p "$OUT"
scratch=$(mktemp -d "${RECOVERY_BENCH_DIR:-/dev/shm}/recovery-bench.XXXXXX")
cl=
drives=
cleanup() {
  [ -z "$cl" ] || [ ! -d "$cl/run" ] || ceph_cluster_stop "$cl" || true
  dm_unmount_all
  cd / && rm -rf "$scratch"
}
trap cleanup EXIT

results="$OUT/recovery-bench.jsonl"
: >"$results"
NFILL=$($PY -c "print(int($FILL * $OSDS * $DRIVE_BYTES / $PSIZE / 4194304))")
NB=$((NFILL / 4)); NA=$((NFILL - NB))
echo "== drive model: mbps=$MBPS seek_ms=$SEEK_MS; $OSDS OSDs x 1 drive of $ZONES x $ZONE_MIB MiB; pool size $PSIZE, 128 PGs; fill $FILL ($NA + $NB objects of 4 MiB, the $NB deleted); osd.$V replaced; scratch $scratch"

RECOVERY_CONF="osd max backfills = 16
osd recovery max active = 16
osd recovery sleep = 0
osd recovery sleep hdd = 0
osd recovery sleep ssd = 0
osd recovery sleep hybrid = 0
osd recovery op priority = 63
osd min pg log entries = 1
osd max pg log entries = 1
osd pg log trim min = 1
mgr stats period = 1"

others() { local i; for i in $(seq 0 $((OSDS - 1))); do [ "$i" = "$V" ] || echo "$i"; done; }

snap() {  # STORE TAG IDS...: the drives' counters of OSDs IDS now, one JSON line per OSD
  local store=$1 tag=$2 i dev
  shift 2
  if [ "$store" = bluestore ]; then
    sleep 1.1  # the filter rewrites its stats file on an I/O a second after the last rewrite
    for i in "$@"; do
      dev=$(readlink "$drives/blk.$i")
      dd if="$dev" of=/dev/null bs=4096 count=1 iflag=direct status=none
    done
  fi
  for i in "$@"; do
    if [ "$store" = smrstore ]; then
      ceph --admin-daemon "$cl/run/osd.$i.asok" smrstore stats 2>/dev/null || echo '{}'
    else
      cat "$drives/stats.$i.json" 2>/dev/null || echo '{}'
    fi | $PY "$REPORT" snap "$store" "$tag" "$i" >>"$work/snaps.jsonl"
  done
}

one_run() {  # STORE RUN
  local store=$1 run=$2 extra smr_drives i t0 t1 uuid
  cl="$scratch/$store.$run"
  work="$scratch/$store.$run.work"
  drives="$scratch/$store.$run.drives"
  mkdir -p "$work" "$drives"
  extra="osd memory target = 1073741824
$RECOVERY_CONF"
  if [ "$store" = bluestore ]; then
    for i in $(seq 0 $((OSDS - 1))); do
      dm_bs_drive_start "$i" "$drives/stats.$i.json"
    done
    for i in $(seq 0 $((OSDS - 1))); do
      dm_bs_drive_attach "$i"
    done
    extra="$extra
$(dm_bs_conf)"
    smr_drives=$SMRSTORE_QA_DRIVES
  else
    smr_drives=$(dm_smr_spec)
  fi
  echo "== run $run: $store"
  SMRSTORE_QA_DRIVES=$smr_drives CEPH_QA_BLUESTORE_BYTES=$DRIVE_BYTES CEPH_QA_EXTRA_CONF="$extra" \
    ceph_cluster_start "$cl" --objectstore "$store" --osds "$OSDS" --size "$PSIZE" --cephx
  ceph_pool_create bench 128 "$PSIZE"
  cd "$work"
  : >snaps.jsonl
  t0=$(date +%s.%N)
  timeout 1200 rados bench -p bench 3600 write -b 4194304 -t 12 --no-cleanup --run-name fillA --max-objects "$NA" >fillA.out 2>&1 &
  local pa=$!
  timeout 1200 rados bench -p bench 3600 write -b 4194304 -t 4 --no-cleanup --run-name fillB --max-objects "$NB" >fillB.out 2>&1
  wait $pa
  t1=$(date +%s.%N)
  timeout 600 rados -p bench cleanup --run-name fillB >/dev/null 2>&1
  # Two more log entries per object (an xattr set twice): with the PG logs held to one
  # entry, every PG holding data has trimmed its log past the empty new OSD's last_update,
  # so the new OSD is backfilled, as a drive of millions of objects is.
  timeout 600 $PY - <<'EOF'
import os
import rados
c = rados.Rados(conffile=os.environ["CEPH_CONF"])
c.connect()
io = c.open_ioctx("bench")
for o in list(io.list_objects()):
    for i in range(2):
        io.set_xattr(o.key, "recovery-bench", str(i).encode())
io.close()
c.shutdown()
EOF
  ceph_wait_clean 600
  ceph osd df -f json >osd-df-before.json 2>/dev/null || echo '{}' >osd-df-before.json
  echo "   fill: $NA + $NB objects of 4 MiB in $($PY -c "print(round($t1 - $t0))") s, fillB deleted, all PGs active+clean"

  # Replace osd.$V: stop, destroy (the id and CRUSH position stay), wipe, re-create, start.
  ceph osd set noout >/dev/null 2>&1
  ceph_osd_stop "$cl" "$V"
  ceph osd destroy "$V" --yes-i-really-mean-it >/dev/null 2>&1
  rm -rf "$cl/osd.$V"
  mkdir -p "$cl/osd.$V"
  if [ "$store" = smrstore ]; then
    dm_smr_spec | sed "s|@DIR@|$cl/osd.$V|g" >"$cl/osd.$V/smrstore_devices"
  else
    dm_bs_drive_stop "$V"
    rm -f "$drives/drive.$V.img" "$drives/db.$V"
    mv "$drives/stats.$V.json" "$drives/stats.$V.old.json"
    dm_bs_drive_start "$V" "$drives/stats.$V.json"
    dm_bs_drive_attach "$V"
  fi
  uuid=$(cat /proc/sys/kernel/random/uuid)
  [ "$(ceph osd new "$uuid" "$V" 2>/dev/null)" = "$V" ] || { echo "recovery-bench: ceph osd new $uuid $V failed" >&2; exit 1; }
  ceph auth get-or-create "osd.$V" mon 'allow profile osd' mgr 'allow profile osd' osd 'allow *' \
    -o "$cl/keyring.osd.$V" 2>/dev/null
  ceph_osd_run "$cl" "$V" --mkfs --osd-uuid "$uuid" \
    || { echo "recovery-bench: mkfs of the new osd.$V failed" >&2; _cq_tail "$cl/log/osd.$V.out"; exit 1; }
  ceph pg dump pgs -f json >pg-dump-before.json 2>/dev/null
  snap "$store" start $(others)
  t0=$(date +%s.%N)
  ceph_osd_run "$cl" "$V" || { echo "recovery-bench: the new osd.$V did not start" >&2; _cq_tail "$cl/log/osd.$V.log"; exit 1; }
  _cq_wait "$CEPH_QA_TIMEOUT" "the new osd.$V to be up and in" "$cl/log/osd.$V.log" _cq_osd_up_in "$V" || ceph osd in "$V"
  ceph osd unset noout >/dev/null 2>&1
  # Until every PG is active+clean for 6 s; t1: the first of those polls. One line a poll.
  local since= now
  while :; do
    now=$(date +%s.%N)
    if ! ceph pg stat -f json >pgstat.json 2>/dev/null; then sleep 1; continue; fi
    if $PY "$REPORT" poll "$now" pgstat.json >>backfill.jsonl; then
      [ -n "$since" ] || since=$now
      $PY -c "import sys; sys.exit(0 if float(sys.argv[1]) - float(sys.argv[2]) >= 6 else 1)" "$now" "$since" && break
    else
      since=
    fi
    if $PY -c "import sys; sys.exit(0 if float(sys.argv[1]) - float(sys.argv[2]) >= $BACKFILL_TMO else 1)" "$now" "$t0"; then
      echo "recovery-bench: backfill not done after ${BACKFILL_TMO}s" >&2; ceph -s >&2; exit 1
    fi
    sleep 1
  done
  t1=$since
  snap "$store" end $(others)
  snap "$store" new "$V"
  ceph pg dump pgs -f json >pg-dump-after.json 2>/dev/null
  ceph osd df -f json >osd-df-after.json 2>/dev/null || echo '{}' >osd-df-after.json
  ceph -s >status-after.txt 2>&1 || true
  cd "$repo"
  ceph_cluster_stop "$cl"
  cl=
  dm_unmount_all
  $PY "$REPORT" row "$store" "$run" "$work" "$t0" "$t1" "$V" "$MBPS" >>"$results"
  $PY "$REPORT" brief "$results" | tail -1
  mkdir -p "$OUT/raw/$store.$run"
  cp "$work"/*.json "$work"/*.jsonl "$work"/*.out "$work"/*.txt "$OUT/raw/$store.$run/" 2>/dev/null || true
  rm -rf "$scratch/$store.$run" "$drives" "$work"
}

for run in $(seq 1 "$RUNS"); do
  for store in $STORES; do
    one_run "$store" "$run"
  done
done

$PY "$REPORT" report "$results" "$OUT/recovery-bench.json" \
  "mbps=$MBPS seek_ms=$SEEK_MS osds=$OSDS zones=$ZONES zone_mib=$ZONE_MIB fill=$FILL victim=osd.$V objects=$NA+$NB(deleted)" \
  | tee "$OUT/recovery-bench.md"
