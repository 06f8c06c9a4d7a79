#!/bin/bash
# make drive-bench (issue 46 goal 1): smrstore OSDs on emulated HM-SMR drives against BlueStore
# OSDs on CMR block devices, both under the SAME HDD timing model — HeadModel
# (src/os/smrstore/device/head_model.h): DRIVE_BENCH_MBPS sequential MB/s (default 25, the
# 250 MB/s of `make peers-hdd` slowed 10x so that the drives and not the 2 shared cores are
# the bottleneck) and DRIVE_BENCH_SEEK_MS per positioning (default 8, an HDD's average seek
# plus half a rotation at 7200 rpm is ~8 ms; the seek is a mechanical time and is not slowed).
#
#   smrstore   each OSD on one emulated drive (spec `emu:...?zones=Z&zone_mib=M&conv=2&
#              mbps=..&seek_ms=..&direct=1`: the model charged in-process per I/O, data
#              written with O_DIRECT); its RocksDB in the OSD dir (flash).
#   BlueStore  each OSD's `bluestore block path` is a loop device (direct I/O, rotational,
#              mq-deadline) on a FUSE file, MNT/disk, served by
#              `nbdfuse -s MNT/disk --command nbdkit -s --filter=nbdkit-smrtiming-filter.so
#              file IMG mbps=.. seek_ms=.. stats=..` — the project's nbdkit filter applying
#              the same HeadModel to every read and write (one head, requests in arrival
#              order; `-s`: single-threaded FUSE, so a large request's pieces arrive in
#              order) — the CMR drive: the same capacity, conventional only. Its RocksDB
#              (`bluestore block db path`) is a plain file beside it (flash), as
#              smrstore's. `bluestore debug enforce settings = hdd` (a FUSE file does not
#              say it is rotational).
# (The drives and their set-up are qa/perf/drive_model_lib.sh's, shared with make recovery-bench.)
# Same cluster shape for both: DRIVE_BENCH_OSDS OSDs (4), pool `bench` size 3 with 128 PGs
# (32 left the OSDs 20-27 PGs each: the fullest drive 15 % above the mean),
# osd memory target 1 GiB, cephx, the same clients, on one private cluster at a time
# (qa/ceph/lib.sh). Runs alternate S, B, S, B, ... (DRIVE_BENCH_RUNS of each, default 2).
#
# Each run: fill the pool to DRIVE_BENCH_FILL (0.60) of the drives' raw capacity / size in
# 4 MiB objects by two concurrent `rados bench write --max-objects` runs, fillA (3/4 of the
# objects) and fillB (1/4) interleaved on the drives; delete fillB (holes in every zone /
# region); then the measured phases, DRIVE_BENCH_SECONDS (20) each:
#   w4m    rados bench write 4 MiB, -t 16, new objects up to fillB's count (back to the fill)
#   seq    rados bench seq, -t 16, fillA's objects
#   rand   rados bench rand, -t 16, fillA's objects
#   r4m    qa/perf/rados_lat.py read 4 MiB, 16 in flight, random order: MB/s, p50/p99
#   ow4m   rados_lat.py rewrite 4 MiB: write_full over the existing 4 MiB objects in a
#          random order (live data stays at the fill: the steady state where GC runs)
#   w4k    rados bench write 4 KiB, -t 16
#   l4k    rados_lat.py write 4 KiB, 16 in flight: ops/s, p50/p99
#   rbd    qa/ceph/osdqa.py rbd --step random4k: DRIVE_BENCH_RBD_WRITES (1500) random 4 KiB
#          writes through librbd, 16 in flight, on a 64 MiB image (pool rbdp, 16 PGs), the
#          whole image read back and compared with the client's model (verified): IOPS,
#          p50/p99
# Device figures per run: smrstore's own counters (`smrstore stats` over the asok: user and
# device bytes, GC bytes, WA) and BlueStore's drives' filter stats (reads, writes, seeks;
# seeks per GB), taken after the fill and after each phase; `ceph osd df` use after the fill.
# Prints a markdown table (medians, min–max, smrstore / BlueStore) and writes
# $OUT/drive-bench.json (every run's rows) and $OUT/drive-bench.md.
#
#   bash qa/perf/drive_bench.sh [OUT_DIR]   (default build/drive-bench; ~22 min, 5-6 per run)
# Env: DRIVE_BENCH_MBPS, DRIVE_BENCH_SEEK_MS, DRIVE_BENCH_RUNS, DRIVE_BENCH_OSDS,
#      DRIVE_BENCH_ZONES (96) and DRIVE_BENCH_ZONE_MIB (16): each drive 96 x 16 MiB = 1.5 GiB
#      (small zones: on a 1.5 GiB drive the open zones' unwritten tails and the GC reserve
#      are a large share with bigger ones),
#      DRIVE_BENCH_FILL, DRIVE_BENCH_SECONDS, DRIVE_BENCH_RBD_WRITES,
#      DRIVE_BENCH_DIR (where drives and clusters go, default /dev/shm: no host-disk cost
#      under the model; ~6 GiB), DRIVE_BENCH_STORES (default "smrstore bluestore"),
#      SMRSTORE_BUILD_DIR (default build: the preload library and the nbdkit filter).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${SMRSTORE_BUILD_DIR:-$repo/build}
export SMRSTORE_OSD_LIB=${SMRSTORE_OSD_LIB:-$BUILD/src/os/smrstore/osd/libsmrstore_osd.so}
# shellcheck source=qa/ceph/lib.sh
. "$repo/qa/ceph/lib.sh"
OUT=${1:-$repo/build/drive-bench}
MBPS=${DRIVE_BENCH_MBPS:-25}
SEEK_MS=${DRIVE_BENCH_SEEK_MS:-8}
RUNS=${DRIVE_BENCH_RUNS:-2}
OSDS=${DRIVE_BENCH_OSDS:-4}
PSIZE=3
ZONES=${DRIVE_BENCH_ZONES:-96}
ZONE_MIB=${DRIVE_BENCH_ZONE_MIB:-16}
FILL=${DRIVE_BENCH_FILL:-0.60}
SECS=${DRIVE_BENCH_SECONDS:-20}
RBD_WRITES=${DRIVE_BENCH_RBD_WRITES:-1500}
STORES=${DRIVE_BENCH_STORES:-smrstore bluestore}
FILTER=$BUILD/src/tools/nbdkit-smrtiming-filter.so
PY=/usr/bin/python3
TMO=$((SECS * 3 + 300))  # a phase that takes this long (a full or dead OSD) fails the run
DRIVE_BYTES=$((ZONES * ZONE_MIB * 1048576))
[ "$OSDS" -ge "$PSIZE" ] || { echo "drive-bench: DRIVE_BENCH_OSDS must be >= $PSIZE" >&2; exit 2; }

# shellcheck source=qa/perf/drive_model_lib.sh
. "$here/drive_model_lib.sh"
dm_check_deps drive-bench

mkdir -p "$OUT"
scratch=$(mktemp -d "${DRIVE_BENCH_DIR:-/dev/shm}/drive-bench.XXXXXX")
cl=
cleanup() {
  [ -z "$cl" ] || [ ! -d "$cl/run" ] || ceph_cluster_stop "$cl" || true
  dm_unmount_all
  cd / && rm -rf "$scratch"
}
trap cleanup EXIT

results="$OUT/drive-bench.jsonl"
: >"$results"
echo "== drive model: mbps=$MBPS seek_ms=$SEEK_MS; $OSDS OSDs x 1 drive of $ZONES x $ZONE_MIB MiB; pool size $PSIZE; fill $FILL; phases ${SECS}s; scratch $scratch"

# The numbers of fill objects: FILL of the raw capacity the pool can hold, in 4 MiB objects.
NFILL=$($PY -c "print(int($FILL * $OSDS * $DRIVE_BYTES / $PSIZE / 4194304))")
NB=$((NFILL / 4)); NA=$((NFILL - NB))

snap() {  # STORE TAG: device counters now, one JSON line into $work/snaps.jsonl
  local store=$1 tag=$2 i
  echo "$(date -u +%FT%T.%N | cut -c1-26) $tag" >>"$work/phases.txt"  # when each phase ended
  if [ "$store" = smrstore ]; then
    for i in $(seq 0 $((OSDS - 1))); do
      ceph --admin-daemon "$cl/run/osd.$i.asok" smrstore stats 2>/dev/null || echo '{}'
    done | $PY "$here/drive_bench_report.py" snap-smr "$tag" >>"$work/snaps.jsonl"
  else
    sleep 1.2  # the filter rewrites its stats at most once a second while I/O flows
    for i in $(seq 0 $((OSDS - 1))); do
      cat "$drives/stats.$i.json" 2>/dev/null || echo '{}'
      echo
      ceph --admin-daemon "$cl/run/osd.$i.asok" perf dump 2>/dev/null || echo '{}'
    done | $PY "$here/drive_bench_report.py" snap-bs "$tag" >>"$work/snaps.jsonl"
  fi
}

one_run() {  # STORE RUN
  local store=$1 run=$2 extra i t0 t1
  cl="$scratch/$store.$run"
  work="$scratch/$store.$run.work"
  drives="$scratch/$store.$run.drives"
  mkdir -p "$work" "$drives"
  extra="osd memory target = 1073741824"
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
  snap "$store" start
  t0=$(date +%s.%N)
  timeout 1200 rados bench -p bench 3600 write -b 4194304 -t 12 --no-cleanup --run-name fillA --max-objects "$NA" >fillA.out 2>&1 &
  local pa=$!
  timeout 1200 rados bench -p bench 3600 write -b 4194304 -t 4 --no-cleanup --run-name fillB --max-objects "$NB" >fillB.out 2>&1
  wait $pa
  t1=$(date +%s.%N)
  timeout 600 rados -p bench cleanup --run-name fillB >/dev/null 2>&1
  ceph osd df -f json >osd-df.json 2>/dev/null || echo '{}' >osd-df.json
  echo "   fill: $NA + $NB objects of 4 MiB in $($PY -c "print(round($t1 - $t0))") s, fillB deleted; data per drive $($PY -c '
import json, sys; d = json.load(open("osd-df.json"))
print(" ".join("%.0f%% (%d PGs)" % (100.0 * n["kb_used_data"] * 1024 / int(sys.argv[1]), n["pgs"]) for n in d.get("nodes", [])))' "$DRIVE_BYTES")"
  snap "$store" fill
  timeout $TMO rados bench -p bench "$SECS" write -b 4194304 -t 16 --no-cleanup --run-name w4m --max-objects "$NB" >w4m.out 2>&1
  snap "$store" w4m
  timeout $TMO rados bench -p bench "$SECS" seq -t 16 --run-name fillA >seq.out 2>&1
  snap "$store" seq
  timeout $TMO rados bench -p bench "$SECS" rand -t 16 --run-name fillA >rand.out 2>&1
  snap "$store" rand
  timeout $TMO $PY "$here/rados_lat.py" bench read 4194304 "$SECS" 16 benchmark_data >r4m.json
  snap "$store" r4m
  timeout $TMO $PY "$here/rados_lat.py" bench rewrite 4194304 "$SECS" 16 benchmark_data >ow4m.json
  snap "$store" ow4m
  timeout $TMO rados bench -p bench "$SECS" write -b 4096 -t 16 --no-cleanup --run-name w4k >w4k.out 2>&1
  snap "$store" w4k
  timeout $TMO $PY "$here/rados_lat.py" bench write 4096 "$SECS" >l4k.json
  snap "$store" l4k
  ceph osd pool create rbdp 16 16 replicated >/dev/null 2>&1
  ceph osd pool set rbdp size "$PSIZE" --yes-i-really-mean-it >/dev/null 2>&1
  rbd pool init rbdp
  _cq_wait "$CEPH_QA_TIMEOUT" "pool rbdp active" "" _cq_pool_active rbdp 16
  head -c 67108864 /dev/urandom >base.img
  rbd import --no-progress base.img rbdp/img >/dev/null
  snap "$store" rbd0
  timeout 1200 $PY "$repo/qa/ceph/osdqa.py" rbd --pool rbdp --image img --base-file base.img \
    --model-out model.img --step random4k --count "$RBD_WRITES" >rbd.json
  snap "$store" rbd
  rm -f base.img model.img
  cd "$repo"
  ceph_cluster_stop "$cl"
  # The engine's slow commit-thread steps (commit_pipeline.cc NoteStep: what held the
  # commit thread >= 250 ms), with the phase ends, for reading the p99 rows against.
  if [ "$store" = smrstore ]; then
    { cat "$work/phases.txt"; grep -h "slow commit-thread step" "$cl"/log/osd.*.log || true; } |
      sort >"$OUT/slow-steps.$store.$run.txt"
    echo "slow commit-thread steps ($store run $run, by phase and cause):"
    $PY "$here/drive_bench_report.py" slow-steps "$OUT/slow-steps.$store.$run.txt" | sed 's/^/    /'
  fi
  cl=
  dm_unmount_all
  [ "$store" = smrstore ] || snap_final "$store"
  $PY "$here/drive_bench_report.py" row "$store" "$run" "$work" "$NA" "$NB" "$DRIVE_BYTES" >>"$results"
  $PY "$here/drive_bench_report.py" brief "$results" | tail -1
  rm -rf "$scratch/$store.$run" "$drives"
}

snap_final() {  # the filter's stats at each connection's close (after the unmount)
  for i in $(seq 0 $((OSDS - 1))); do
    cat "$drives/stats.$i.json" 2>/dev/null || echo '{}'
    echo
  done | $PY "$here/drive_bench_report.py" snap-bs final >>"$work/snaps.jsonl"
}

for run in $(seq 1 "$RUNS"); do
  for store in $STORES; do
    one_run "$store" "$run"
  done
done

$PY "$here/drive_bench_report.py" report "$results" "$OUT/drive-bench.json" \
  "mbps=$MBPS seek_ms=$SEEK_MS osds=$OSDS zones=$ZONES zone_mib=$ZONE_MIB fill=$FILL seconds=$SECS rbd_writes=$RBD_WRITES" \
  | tee "$OUT/drive-bench.md"
