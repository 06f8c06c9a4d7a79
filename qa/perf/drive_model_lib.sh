# qa/perf/drive_model_lib.sh — the drive model shared by make drive-bench (drive_bench.sh) and
# make recovery-bench (recovery_bench.sh): smrstore OSDs on emulated HM-SMR drives and
# BlueStore OSDs on CMR block devices, both under one HDD timing model, HeadModel
# (src/os/smrstore/device/head_model.h), MBPS sequential MB/s and SEEK_MS per positioning.
# drive_bench.sh's header describes the model in full. Sourced (bash) after qa/ceph/lib.sh,
# with these variables set by the caller:
#   MBPS SEEK_MS ZONES ZONE_MIB   the model and each drive's geometry (ZONES x ZONE_MIB MiB)
#   DRIVE_BYTES                   ZONES * ZONE_MIB MiB: every drive's capacity, both stores
#   FILTER                        build/src/tools/nbdkit-smrtiming-filter.so
#   drives                        the directory of the current run's BlueStore drives
#
#   dm_check_deps NAME            the tools and files the model needs, or exit 1 (NAME: the
#                                 caller, in messages)
#   dm_smr_spec                   prints smrstore's drive spec (SMRSTORE_QA_DRIVES, @DIR@ the
#                                 OSD dir): `emu:@DIR@/drive0.img?zones=..&zone_mib=..&conv=2&
#                                 mbps=..&seek_ms=..&direct=1`
#   dm_bs_conf                    prints BlueStore's [global] lines: `bluestore block path` =
#                                 $drives/blk.$id, the DB on a plain file $drives/db.$id,
#                                 `bluestore debug enforce settings = hdd`
#   dm_bs_drive_start I STATS     a new sparse image $drives/drive.I.img of DRIVE_BYTES served
#                                 through the filter (stats into STATS) by nbdfuse on
#                                 $drives/mnt.I/disk (appended to $mounts)
#   dm_bs_drive_attach I          waits for drive I's nbdfuse, puts a loop device on it
#                                 (direct I/O, rotational, mq-deadline; appended to $loops)
#                                 and points $drives/blk.I at it
#   dm_bs_drive_stop I            detaches drive I's loop device and unmounts it (waits for
#                                 its nbdfuse to exit: the filter's final stats are written)
#   dm_unmount_all                the same for every drive still in $loops / $mounts
mounts=
loops=

dm_check_deps() {
  "$repo/scripts/install-deps.sh" ceph
  for f in "$FILTER" "$SMRSTORE_OSD_LIB"; do
    [ -f "$f" ] || { echo "$1: $f not found (make build)" >&2; exit 1; }
  done
  for b in nbdfuse nbdkit fusermount3; do
    command -v $b >/dev/null || { echo "$1: $b not found (scripts/install-deps.sh ceph)" >&2; exit 1; }
  done
  [ -e /dev/fuse ] || { echo "$1: /dev/fuse missing (FUSE is needed for BlueStore's drives)" >&2; exit 1; }
}

dm_smr_spec() {
  echo "emu:@DIR@/drive0.img?zones=$ZONES&zone_mib=$ZONE_MIB&conv=2&mbps=$MBPS&seek_ms=$SEEK_MS&direct=1"
}

# $id: Ceph's metavariable, the OSD's id. The DB on a plain (sparse) file beside the
# drives (BlueStore links osd.N/block.db to it; that path itself would link to itself).
dm_bs_conf() {
  cat <<EOF
bluestore block path = $drives/blk.\$id
bluestore block db path = $drives/db.\$id
bluestore block db create = true
bluestore block db size = 2147483648
bluestore debug enforce settings = hdd
EOF
}

dm_bs_drive_start() {  # I STATS
  rm -f "$drives/mnt.$1.pid"  # a replaced drive's: it would pass for the new nbdfuse's
  truncate -s "$DRIVE_BYTES" "$drives/drive.$1.img"
  mkdir -p "$drives/mnt.$1"
  mounts="$mounts $drives/mnt.$1"
  nbdfuse -s -P "$drives/mnt.$1.pid" "$drives/mnt.$1/disk" --command nbdkit -s \
    --filter="$FILTER" file "$drives/drive.$1.img" mbps="$MBPS" seek_ms="$SEEK_MS" \
    stats="$2" >"$drives/nbdfuse.$1.log" 2>&1 &
}

dm_bs_drive_attach() {  # I
  local dev
  _cq_wait 30 "nbdfuse $1" "$drives/nbdfuse.$1.log" test -s "$drives/mnt.$1.pid"
  # A block device on the FUSE file, as BlueStore is used on a CMR disk: the kernel's
  # block layer merges BlueStore's 64 KiB blob reads of one object (each an aio of its
  # own) into large requests and mq-deadline orders them, as on a real disk; on the
  # FUSE file itself every blob read was one request and the head sought between them.
  dev=$(losetup --direct-io=on -f --show "$drives/mnt.$1/disk")
  loops="$loops $dev"
  echo 1 >"/sys/block/${dev#/dev/}/queue/rotational"
  echo mq-deadline >"/sys/block/${dev#/dev/}/queue/scheduler" 2>/dev/null || true
  ln -sfn "$dev" "$drives/blk.$1"
}

# _dm_wait_nbdfuse MNT: nbdfuse exits once unmounted; give it (and its nbdkit) a moment to
# write final stats.
_dm_wait_nbdfuse() {
  local p n=0
  p=$(cat "$1.pid" 2>/dev/null || true)
  while [ -n "$p" ] && kill -0 "$p" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
}

dm_bs_drive_stop() {  # I
  local dev l m rest=
  dev=$(readlink "$drives/blk.$1" || true)
  for l in $loops; do
    if [ "$l" = "$dev" ]; then losetup -d "$l" 2>/dev/null || true; else rest="$rest $l"; fi
  done
  loops=$rest
  rest=
  for m in $mounts; do
    if [ "$m" = "$drives/mnt.$1" ]; then
      fusermount3 -u "$m" 2>/dev/null || true
      _dm_wait_nbdfuse "$m"
    else
      rest="$rest $m"
    fi
  done
  mounts=$rest
}

dm_unmount_all() {
  local l m
  for l in $loops; do
    losetup -d "$l" 2>/dev/null || true
  done
  loops=
  for m in $mounts; do
    fusermount3 -u "$m" 2>/dev/null || true
  done
  for m in $mounts; do
    _dm_wait_nbdfuse "$m"
  done
  mounts=
}
