#!/bin/bash
# smrstore vs the file systems users would pick instead, on the SAME kernel zoned device
# model, in ONE QEMU VM run (TCG; the initramfs is built from Debian's files as in
# qa/vm/run.sh, see qa/vm/lib.sh). Every system starts on a fresh null_blk:
#   nullb0  null_blk via configfs, host-managed, memory-backed, 4 KiB blocks,
#           PEERS_ZONES x PEERS_ZONE_MIB MiB zones, the first PEERS_CONV conventional
#           (default 128 x 16 MiB = 2 GiB, 8 conventional), no open/active limits.
#           Why 16 MiB zones: with 64 MiB zones on 2 GiB, mkfs.f2fs reserves 955 of 1024
#           segments for GC (its reserve scales with the section = zone size) and F2FS
#           runs out of space at half of what statvfs reports; dm-zoned needs 2 conventional
#           zones for its two metadata sets and buffers random writes in the others.
# and runs the same object workload, `smrstore-tool bench` (src/tools/workload_bench.cc):
#   raw       bench --raw-only on zbd:/dev/nullb0 (4 MiB sequential writes at the write
#             pointers, then reads): the device's raw sequential bandwidth in this run
#   smrstore  bench --devices zbd:/dev/nullb0; its RocksDB (metadata "on flash") on ext4 on
#             nullb1, a regular memory-backed null_blk whose writes are reported too
#   f2fs      mkfs.f2fs -m                       bench --fs-dir (one file per object)
#   btrfs     mkfs.btrfs -O zoned -m single -d single
#   dmz-ext4  dm-zoned (metadata written by qa/vm/dmz_format.py; dmzadm is not packaged in
#             Debian 12) with ext4 on top (-m 0, no lazy init)
#   dmz-xfs   dm-zoned with XFS on top
# A system may be given as NAME@UTIL (e.g. f2fs@0.6) to run it at another --util.
# Each at --util 0.8 of the capacity the system itself offers users (the store's Statfs
# total; for a file system what statvfs reports available on the empty file system, f_bavail:
# F2FS counts its overprovisioning and GC reserve in f_blocks), GC active, --stat-dev nullb0:
# device-level WA = bytes the kernel wrote to nullb0 / user bytes PUT, in the steady state.
# Results come back over the serial console; written to $DIR/results.json, results.md and
# peers.png (qa/vm/peers_report.py).
#
# Usage: qa/vm/peers.sh [path/to/smrstore-tool]
# Env:   SMRSTORE_PEERS_DIR      work dir (default build/peers)
#        SMRSTORE_PEERS_SYSTEMS  default "smrstore smrstore@0.567 f2fs dmz-ext4 btrfs"; dmz-xfs
#                                is supported but not in the default (time)
#                                (smrstore@0.567: the live bytes F2FS holds at 0.8 of its
#                                own capacity on the default device; btrfs last: it can hang)
#        SMRSTORE_PEERS_LIMIT    seconds per system before it counts as hung (default 700)
#        SMRSTORE_PEERS_BENCH    bench options for every system
#                                (default "--util 0.8 --duration 90 --seed 1")
#        PEERS_ZONES PEERS_ZONE_MIB PEERS_CONV   the device (default 128 16 8)
#        SMRSTORE_PEERS_TIMEOUT  seconds for the VM run (default 5400; systems that finished
#                                before a timeout still report)
#        SMRSTORE_PEERS_MEM      VM memory (default 6G)
set -euo pipefail

t_start=$(date +%s)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TOOL=${1:-$ROOT/build/src/tools/smrstore-tool}
WORK=${SMRSTORE_PEERS_DIR:-$ROOT/build/peers}
SYSTEMS=${SMRSTORE_PEERS_SYSTEMS:-"smrstore smrstore@0.567 f2fs dmz-ext4 btrfs"}
BENCH=${SMRSTORE_PEERS_BENCH:-"--util 0.8 --duration 90 --seed 1"}
ZONES=${PEERS_ZONES:-128}
ZONE_MIB=${PEERS_ZONE_MIB:-16}
CONV=${PEERS_CONV:-8}
TIMEOUT=${SMRSTORE_PEERS_TIMEOUT:-5400}
LIMIT=${SMRSTORE_PEERS_LIMIT:-700}
MEM=${SMRSTORE_PEERS_MEM:-6G}

VM_LOG_TAG=peers
# shellcheck source=qa/vm/lib.sh
. "$ROOT/qa/vm/lib.sh"

[ -x "$TOOL" ] || vm_die "$TOOL not found (build it first: make build)"
# Debian's python3 (python3-matplotlib), even when another python3 comes first in PATH.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$ROOT/scripts/install-deps.sh" vm
mkdir -p "$WORK"

# --- initramfs --------------------------------------------------------------------------
vm_init_root
vm_add_modules null_blk f2fs btrfs dm-zoned xfs ext4
vm_module_args null_blk.ko "nr_devices=0"  # devices come from configfs
vm_log "modules: $(tr '\n' ' ' <"$R/etc/modules.order")"
vm_add_bin "$TOOL" /opt/smrstore/smrstore-tool strip
for b in blkzone mkfs.f2fs mkfs.btrfs mkfs.xfs mke2fs dmsetup; do
  vm_add_bin "$(command -v "$b")" "/sbin/$b"
done
ln -s mke2fs "$R/sbin/mkfs.ext4"

# dm-zoned metadata for this geometry (the target's size comes with it).
read -r DMZ_OFF0 DMZ_OFF1 DMZ_SECTORS < <("$PY" "$ROOT/qa/vm/dmz_format.py" \
  --zones "$ZONES" --zone-mib "$ZONE_MIB" --conv "$CONV" --out "$R/etc/dmz")
echo "$DMZ_OFF0 $DMZ_OFF1 $DMZ_SECTORS" >"$R/etc/dmz/layout"
echo "$ZONES $ZONE_MIB $CONV" >"$R/etc/geometry"
echo "$SYSTEMS" >"$R/etc/systems"
echo "$BENCH" >"$R/etc/bench-args"
echo "$LIMIT" >"$R/etc/limit"

{
vm_init_preamble
cat <<'INIT'
read -r ZONES ZONE_MIB CONV </etc/geometry
BENCH=$(cat /etc/bench-args)
CFG=/sys/kernel/config/nullb
# nullb NAME SIZE_MIB ZONED: a fresh memory-backed null_blk (old one, if any, removed).
nullb() {
  if [ -d $CFG/$1 ]; then
    echo 0 >$CFG/$1/power
    rmdir $CFG/$1
  fi
  mkdir $CFG/$1 || { M "CONFIGFS-FAILED mkdir $1"; return 1; }
  if [ "$3" = 1 ]; then
    z="zoned=1 zone_size=$ZONE_MIB zone_nr_conv=$CONV zone_max_open=0 zone_max_active=0"
  else
    z="zoned=0"
  fi
  for kv in size=$2 blocksize=4096 memory_backed=1 $z; do
    echo "${kv#*=}" >$CFG/$1/${kv%%=*} || { M "CONFIGFS-FAILED $1 $kv"; return 1; }
  done
  echo 1 >$CFG/$1/power || { M "CONFIGFS-FAILED $1 power"; return 1; }
  i=0
  while [ $i -lt 50 ] && [ ! -b /dev/$1 ]; do sleep 0.1; i=$((i + 1)); done
}
# The zoned device, fresh for every system.
zdev() { nullb nullb0 $((ZONES * ZONE_MIB)) 1; }
# dm-zoned on nullb0: our metadata, then the target.
dmz_up() {
  read -r off0 off1 sectors </etc/dmz/layout
  dd if=/etc/dmz/set0.img of=/dev/nullb0 bs=4096 seek=$((off0 / 4096)) conv=fsync 2>/dev/null &&
    dd if=/etc/dmz/set1.img of=/dev/nullb0 bs=4096 seek=$((off1 / 4096)) conv=fsync 2>/dev/null &&
    dmsetup --noudevsync create dmz --table "0 $sectors zoned /dev/nullb0" || return 1
  [ -b /dev/mapper/dmz ] || mknod /dev/mapper/dmz b $(dmsetup info -c --noheadings -o major,minor dmz | tr ':' ' ')
}
dmz_down() { dmsetup --noudevsync remove dmz; }
mkdir -p /mnt/p /meta
export DM_DISABLE_UDEV=1

cd /opt/smrstore
M "DEVICES BEGIN"
zdev
q=/sys/block/nullb0/queue
echo "nullb0 zoned=$(cat $q/zoned) nr_zones=$(cat $q/nr_zones) chunk_sectors=$(cat $q/chunk_sectors) lbs=$(cat $q/logical_block_size) max_open=$(cat $q/max_open_zones) max_active=$(cat $q/max_active_zones) size_sectors=$(cat /sys/block/nullb0/size)"
blkzone report /dev/nullb0 | head -n $((CONV + 2)) | sed 's/^/  /'
M "DEVICES END"

# bench ARGS...: the tool with a deadline of LIMIT s (a progress line every 60 s). A system
# that overruns (a kernel hang: tasks stuck in D state cannot be killed) is marked HUNG and
# the rest are skipped, since nullb0 stays busy.
LIMIT=$(cat /etc/limit)
hung=0
bench() {
  ./smrstore-tool bench "$@" >/tmp/out.json 2>/tmp/err &
  pid=$!
  t=0
  while kill -0 $pid 2>/dev/null; do
    sleep 5
    t=$((t + 5))
    [ $((t % 60)) = 0 ] && echo "progress $name ${t}s nullb0_write_sectors=$(awk '{print $7}' /sys/block/nullb0/stat)"
    if [ $t -ge $LIMIT ]; then
      kill -9 $pid 2>/dev/null
      M "HUNG $name after ${t}s"
      hung=1
      return 124
    fi
  done
  wait $pid
}

# run NAME[@UTIL]: one system on a fresh nullb0 (@UTIL overrides --util); its JSON
# between the markers.
run() {
  name=$1
  sys=${name%@*}
  extra=""
  b=$BENCH
  if [ "$sys" != "$name" ]; then
    extra="--util ${name#*@}"
    b=$(echo "$BENCH" | sed 's/--util [^ ]*//')
  fi
  M "BEGIN $name"
  zdev
  t0=$(date +%s)
  rc=0
  case $sys in
    raw)
      bench --devices zbd:/dev/nullb0 --dir /tmp --raw-only --json || rc=$?
      ;;
    smrstore)
      nullb nullb1 1024 0 && mkfs.ext4 -q -F -m 0 -E lazy_itable_init=0,lazy_journal_init=0 /dev/nullb1 &&
        mount -t ext4 /dev/nullb1 /meta || rc=90
      [ $rc = 0 ] && { bench --devices zbd:/dev/nullb0 --dir /meta --stat-dev nullb0,nullb1 \
        $b $extra --json || rc=$?; }
      [ $hung = 1 ] || umount /meta 2>/dev/null
      ;;
    f2fs|btrfs|dmz-ext4|dmz-xfs)
      dev=/dev/nullb0
      case $sys in
        f2fs) mkfs.f2fs -f -m $dev >/tmp/mkfs.log 2>&1 || rc=91; fst=f2fs ;;
        btrfs) mkfs.btrfs -f -O zoned -m single -d single $dev >/tmp/mkfs.log 2>&1 || rc=91; fst=btrfs ;;
        dmz-ext4|dmz-xfs)
          dev=/dev/mapper/dmz
          dmz_up >/tmp/mkfs.log 2>&1 || rc=92
          if [ $rc = 0 ] && [ $sys = dmz-ext4 ]; then
            mkfs.ext4 -q -F -m 0 -E lazy_itable_init=0,lazy_journal_init=0 $dev >>/tmp/mkfs.log 2>&1 || rc=91; fst=ext4
          elif [ $rc = 0 ]; then
            mkfs.xfs -f $dev >>/tmp/mkfs.log 2>&1 || rc=91; fst=xfs
          fi ;;
      esac
      [ $rc = 0 ] && { mount -t $fst $dev /mnt/p >>/tmp/mkfs.log 2>&1 || rc=93; }
      [ $rc = 0 ] && { bench --fs-dir /mnt/p --dir /tmp --stat-dev nullb0 $b $extra --json || rc=$?; }
      if [ $hung = 0 ]; then
        umount /mnt/p 2>/dev/null
        case $sys in dmz-*) dmz_down 2>/dev/null ;; esac
      fi
      sed 's/^/  mkfs: /' /tmp/mkfs.log | tail -n 25
      ;;
  esac
  echo "wall_seconds=$(($(date +%s) - t0)) rc=$rc nullb0_stat: $(cat /sys/block/nullb0/stat)"
  tail -n 20 /tmp/err 2>/dev/null | sed 's/^/  stderr: /'
  M "JSON BEGIN $name"
  cat /tmp/out.json 2>/dev/null
  M "JSON END $name"
  rm -f /tmp/out.json /tmp/err /tmp/mkfs.log
  M "END $name rc=$rc"
}

run raw
for s in $(cat /etc/systems); do
  if [ $hung = 1 ]; then
    M "BEGIN $s"
    echo "skipped: an earlier system hung"
    M "END $s rc=125"
  else
    run $s
  fi
done
INIT
vm_init_epilogue 'null_blk|nullb|zone|f2fs|btrfs|dm-zoned|xfs|ext4|I/O error|blk_update' 80
} >"$R/init"
vm_pack

# --- boot -------------------------------------------------------------------------------
vm_boot "$TIMEOUT" "$MEM"
t_end=$(date +%s)

# --- results ----------------------------------------------------------------------------
fail=0
vm_check_run || fail=1
rm -f "$WORK"/result-*.json
for s in raw $SYSTEMS; do
  sect=$(vm_section "$s")
  rc=$(printf '%s\n' "$sect" | sed -n "s/.*=== SMRSTORE-VM END $s rc=\([0-9]*\) ===.*/\1/p")
  printf '%s\n' "$sect" | sed -n "/=== SMRSTORE-VM JSON BEGIN $s ===/,/=== SMRSTORE-VM JSON END $s ===/p" |
    sed '1d;$d' >"$WORK/result-$s.json"
  printf '%s\n' "$sect" | grep -E '^(wall_seconds|progress|skipped|  (stderr|mkfs):)|HUNG' |
    sed "s/^/peers: $s: /" || true
  echo "peers: $s: rc=${rc:-none}"
  [ "${rc:-x}" = 0 ] || fail=1
done
vm_log "VM boot+run $VM_BOOT_SECONDS s, total wall time $((t_end - t_start)) s"
"$PY" "$ROOT/qa/vm/peers_report.py" --dir "$WORK" --systems "raw $SYSTEMS" \
  --wall-seconds "$VM_BOOT_SECONDS" --geometry "$ZONES x $ZONE_MIB MiB, $CONV conventional" \
  --bench "$BENCH" --device-bytes $((ZONES * ZONE_MIB * 1048576)) || fail=1
if [ "$fail" != 0 ]; then
  vm_log "FAILED or incomplete (serial log: $WORK/serial.log); the table shows what ran"
  exit 1
fi
vm_log "done: $WORK/results.md, $WORK/results.json, $WORK/peers.png"
