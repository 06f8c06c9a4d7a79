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
# and runs the same object workload, `smrstore-tool bench` (src/tools/bench/workload_bench.cc):
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
# PEERS_DEVICE=hdd (issue 19 goal 1) gives the zoned device an HDD's cost instead: a QEMU
# NVMe ZNS namespace, nvme0n1 (same zone count and size, no conventional zones: ZNS has none),
# whose backing drive is an NBD export served on the host by nbdkit's file plugin through
# build/src/tools/nbdkit-smrtiming-filter.so — the emulated drive's timing model
# (device/head_model.h: sequential MB/s, a positioning time for any I/O that does not
# continue the previous one, read-ahead) with PEERS_MBPS / PEERS_SEEK_MS; requests served in
# arrival order. The guest sets mq-deadline and rotational on it, as for an SMR disk; the
# controller's mdts=10 and max_sectors_kb = max_hw_sectors_kb let requests be up to 4 MiB. Before the VM the
# same raw leg runs on the host on an emulated drive with those parameters (emu-raw.json),
# so the two can be compared on sequential and random 4 KiB reads. In this mode:
#   nullb1   is every system's fast metadata device (RAM): smrstore's RocksDB (ext4, 1 GiB as
#            before) and F2FS's metadata (mkfs.f2fs -m -c /dev/nvme0n1 /dev/nullb1: F2FS
#            keeps its metadata on the first, regular device; PEERS_F2FS_META_MIB, default
#            64; its main area may use the rest of nullb1 too); device WA counts both;
#   dm-zoned is not run: on a device without conventional zones it needs a second, regular
#            device and metadata for two devices, which qa/vm/dmz_format.py does not write.
#   Zones are reset (blkzone reset) between systems, not recreated.
#
# Usage: qa/vm/peers.sh [path/to/smrstore-tool]
# Env:   SMRSTORE_PEERS_DIR      work dir (default build/peers)
#        SMRSTORE_PEERS_SYSTEMS  default "smrstore smrstore@0.567 f2fs dmz-ext4 btrfs" (hdd:
#                                "smrstore f2fs smrstore@f2fs btrfs"); dmz-xfs
#                                is supported but not in the default (time)
#                                (smrstore@0.567: the live bytes F2FS holds at 0.8 of its
#                                own capacity on the default device; btrfs last: it can hang)
#        SMRSTORE_PEERS_LIMIT    seconds per system before it is stopped (default 700; hdd
#                                1500): OVERRUN if it was still writing, else HUNG
#        SMRSTORE_PEERS_BENCH    bench options for every system
#                                (default "--util 0.8 --duration 90 --seed 1")
#        PEERS_ZONES PEERS_ZONE_MIB PEERS_CONV   the device (default 128 16 8)
#        SMRSTORE_PEERS_TIMEOUT  seconds for the VM run (default 5400; systems that finished
#                                before a timeout still report)
#        SMRSTORE_PEERS_MEM      VM memory (default 6G)
#        PEERS_REPORT_ONLY=1     no VM: the tables again from $WORK/serial.log of an earlier
#                                run with the same settings
#        PEERS_DEVICE            nullb (default) | hdd (above)
#        PEERS_MBPS PEERS_SEEK_MS  hdd: the timing model (default 250 and 8, bench's --mbps
#                                default pairing)
#        PEERS_BACKING_DIR       hdd: where the ZNS backing file and the emulated drive of
#                                the host's raw leg go (default /dev/shm: a file system that
#                                adds no cost of its own to the model's)
set -euo pipefail

t_start=$(date +%s)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TOOL=${1:-$ROOT/build/src/tools/smrstore-tool}
WORK=${SMRSTORE_PEERS_DIR:-$ROOT/build/peers}
if [ "${PEERS_DEVICE:-nullb}" = hdd ]; then
  SYSTEMS=${SMRSTORE_PEERS_SYSTEMS:-"smrstore f2fs smrstore@f2fs btrfs"}
else
  SYSTEMS=${SMRSTORE_PEERS_SYSTEMS:-"smrstore smrstore@0.567 f2fs dmz-ext4 btrfs"}
fi
BENCH=${SMRSTORE_PEERS_BENCH:-"--util 0.8 --duration 90 --seed 1"}
ZONES=${PEERS_ZONES:-128}
ZONE_MIB=${PEERS_ZONE_MIB:-16}
CONV=${PEERS_CONV:-8}
TIMEOUT=${SMRSTORE_PEERS_TIMEOUT:-5400}
# hdd: a system fills 1.6 GB at a few MB/s there (btrfs: ~4 MB/s), so more time.
if [ "${PEERS_DEVICE:-nullb}" = hdd ]; then LIMIT=${SMRSTORE_PEERS_LIMIT:-1500}; else LIMIT=${SMRSTORE_PEERS_LIMIT:-700}; fi
MEM=${SMRSTORE_PEERS_MEM:-6G}
DEVICE=${PEERS_DEVICE:-nullb}
MBPS=${PEERS_MBPS:-250}
SEEK_MS=${PEERS_SEEK_MS:-8}
BACKING_DIR=${PEERS_BACKING_DIR:-/dev/shm}
F2FS_META_MIB=${PEERS_F2FS_META_MIB:-64}
case "$DEVICE" in
  nullb) ZDEV=nullb0 ;;
  hdd) ZDEV=nvme0n1; CONV=0 ;;
  *) echo "peers: PEERS_DEVICE must be nullb or hdd, not '$DEVICE'" >&2; exit 2 ;;
esac

VM_LOG_TAG=peers
# shellcheck source=qa/vm/lib.sh
. "$ROOT/qa/vm/lib.sh"

[ -x "$TOOL" ] || vm_die "$TOOL not found (build it first: make build)"
# Debian's python3 (python3-matplotlib), even when another python3 comes first in PATH.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$ROOT/scripts/install-deps.sh" vm
mkdir -p "$WORK"

# Builds the initramfs, boots the VM (hdd: with nbdkit and the host's raw leg first) and
# leaves the serial log in $WORK; sets VM_QRC, VM_BOOT_SECONDS (also kept in $WORK/vm-run).
build_and_boot() {
# --- initramfs --------------------------------------------------------------------------
vm_init_root
vm_add_modules null_blk f2fs btrfs dm-zoned xfs ext4
[ "$DEVICE" = hdd ] && vm_add_modules nvme
vm_module_args null_blk.ko "nr_devices=0"  # devices come from configfs
vm_log "modules: $(tr '\n' ' ' <"$R/etc/modules.order")"
vm_add_bin "$TOOL" /opt/smrstore/smrstore-tool strip
for b in blkzone mkfs.f2fs mkfs.btrfs mkfs.xfs mke2fs dmsetup; do
  vm_add_bin "$(command -v "$b")" "/sbin/$b"
done
ln -s mke2fs "$R/sbin/mkfs.ext4"

# dm-zoned metadata for this geometry (the target's size comes with it); nullb mode only.
if [ "$DEVICE" = nullb ]; then
  read -r DMZ_OFF0 DMZ_OFF1 DMZ_SECTORS < <("$PY" "$ROOT/qa/vm/dmz_format.py" \
    --zones "$ZONES" --zone-mib "$ZONE_MIB" --conv "$CONV" --out "$R/etc/dmz")
  echo "$DMZ_OFF0 $DMZ_OFF1 $DMZ_SECTORS" >"$R/etc/dmz/layout"
fi
echo "$ZONES $ZONE_MIB $CONV $DEVICE $ZDEV $F2FS_META_MIB" >"$R/etc/geometry"
echo "$SYSTEMS" >"$R/etc/systems"
echo "$BENCH" >"$R/etc/bench-args"
echo "$LIMIT" >"$R/etc/limit"

{
vm_init_preamble
cat <<'INIT'
read -r ZONES ZONE_MIB CONV DEVICE Z F2FS_META_MIB </etc/geometry
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
# The zoned device, fresh for every system: a new null_blk, or the ZNS namespace's zones
# reset (hdd mode).
zdev() {
  if [ "$DEVICE" = hdd ]; then
    blkzone reset /dev/$Z || { M "CONFIGFS-FAILED blkzone reset /dev/$Z"; return 1; }
  else
    nullb nullb0 $((ZONES * ZONE_MIB)) 1
  fi
}
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
if [ "$DEVICE" = hdd ]; then
  i=0
  while [ $i -lt 100 ] && [ ! -b /dev/$Z ]; do sleep 0.1; i=$((i + 1)); done
  # As a host sets up an SMR disk: mq-deadline (one write per zone in flight, in order;
  # the kernel left "none" on the NVMe namespace) and rotational (QEMU's NVMe says SSD).
  echo mq-deadline >/sys/block/$Z/queue/scheduler || M "CONFIGFS-FAILED scheduler"
  echo 1 >/sys/block/$Z/queue/rotational || M "CONFIGFS-FAILED rotational"
  # Requests up to the controller's limit (4 MiB) instead of the kernel's default 1280 KiB:
  # with one write per zone in flight, each request pays the VM's round trip.
  cat /sys/block/$Z/queue/max_hw_sectors_kb >/sys/block/$Z/queue/max_sectors_kb ||
    M "CONFIGFS-FAILED max_sectors_kb"
fi
zdev
q=/sys/block/$Z/queue
echo "$Z zoned=$(cat $q/zoned) nr_zones=$(cat $q/nr_zones) chunk_sectors=$(cat $q/chunk_sectors) lbs=$(cat $q/logical_block_size) max_open=$(cat $q/max_open_zones) max_active=$(cat $q/max_active_zones) size_sectors=$(cat /sys/block/$Z/size) max_sectors_kb=$(cat $q/max_sectors_kb) rotational=$(cat $q/rotational) scheduler=$(cat $q/scheduler)"
blkzone report /dev/$Z | head -n $((CONV + 2)) | sed 's/^/  /'
M "DEVICES END"

# bench ARGS...: the tool with a deadline of LIMIT s (a progress line every 60 s). A system
# that overruns is killed. If the device was still being written in its last 60 s it is
# marked OVERRUN (slow, not stuck) and the next system runs once the tool has exited; if not
# (a kernel hang: tasks stuck in D state cannot be killed) it is marked HUNG and the rest are
# skipped, since the zoned device stays busy.
LIMIT=$(cat /etc/limit)
hung=0
wsect() { awk '{print $7}' /sys/block/$Z/stat; }
bench() {
  ./smrstore-tool bench "$@" >/tmp/out.json 2>/tmp/err &
  pid=$!
  t=0
  w0=$(wsect)
  w60=$w0
  while kill -0 $pid 2>/dev/null; do
    sleep 5
    t=$((t + 5))
    if [ $((t % 60)) = 0 ]; then
      w=$(wsect)
      echo "progress $name ${t}s ${Z}_write_sectors=$w"
      wlast=$((w - w60))
      w60=$w
    fi
    if [ $t -ge $LIMIT ]; then
      kill -9 $pid 2>/dev/null
      i=0
      while kill -0 $pid 2>/dev/null && [ $i -lt 60 ]; do sleep 1; i=$((i + 1)); done
      if [ "${wlast:-0}" -gt 0 ] && ! kill -0 $pid 2>/dev/null; then
        M "OVERRUN $name after ${t}s, still writing: $wlast sectors in its last 60 s"
        return 125
      fi
      M "HUNG $name after ${t}s"
      hung=1
      return 124
    fi
  done
  wait $pid
}

# jnum FILE KEY: the first number KEY has in a bench JSON (one key per line).
jnum() { sed -n "s/.*\"$2\": \([0-9.e+-]*\).*/\1/p" "$1" 2>/dev/null | head -n 1; }

# run NAME[@UTIL]: one system on a fresh zoned device (@UTIL overrides --util); its JSON
# between the markers. smrstore@f2fs: the util at which smrstore holds the live bytes F2FS
# held in its run (F2FS's target live bytes / smrstore's capacity in its own run; both must
# have run before it).
run() {
  name=$1
  sys=${name%@*}
  extra=""
  b=$BENCH
  if [ "$sys" != "$name" ]; then
    u=${name#*@}
    if [ "$u" = f2fs ]; then
      fl=$(jnum /tmp/res-f2fs.json target_live_bytes)
      sc=$(jnum /tmp/res-smrstore.json data_bytes)
      u=$(awk -v l="$fl" -v c="$sc" 'BEGIN { if (l > 0 && c > 0) printf "%.4f", l / c }')
      echo "util for equal live data: ${u:-none} (F2FS live $fl B, smrstore capacity $sc B)"
      [ -n "$u" ] || u=0
    fi
    extra="--util $u"
    b=$(echo "$BENCH" | sed 's/--util [^ ]*//')
  fi
  M "BEGIN $name"
  zdev
  t0=$(date +%s)
  rc=0
  case $sys in
    raw)
      bench --devices zbd:/dev/$Z --dir /tmp --raw-only --json || rc=$?
      ;;
    smrstore)
      nullb nullb1 1024 0 && mkfs.ext4 -q -F -m 0 -E lazy_itable_init=0,lazy_journal_init=0 /dev/nullb1 &&
        mount -t ext4 /dev/nullb1 /meta || rc=90
      [ $rc = 0 ] && { bench --devices zbd:/dev/$Z --dir /meta --stat-dev $Z,nullb1 \
        $b $extra --json || rc=$?; }
      [ $hung = 1 ] || umount /meta 2>/dev/null
      ;;
    f2fs|btrfs|dmz-ext4|dmz-xfs)
      dev=/dev/$Z
      stat=$Z
      case $sys in
        f2fs)
          if [ "$DEVICE" = hdd ]; then
            # Metadata on the regular fast device, data on the zoned one.
            nullb nullb1 $F2FS_META_MIB 0 || rc=90
            [ $rc = 0 ] && { mkfs.f2fs -f -m -c /dev/$Z /dev/nullb1 >/tmp/mkfs.log 2>&1 || rc=91; }
            dev=/dev/nullb1
            stat=$Z,nullb1
          else
            mkfs.f2fs -f -m $dev >/tmp/mkfs.log 2>&1 || rc=91
          fi
          fst=f2fs ;;
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
      [ $rc = 0 ] && { bench --fs-dir /mnt/p --dir /tmp --stat-dev $stat $b $extra --json || rc=$?; }
      if [ $hung = 0 ]; then
        umount /mnt/p 2>/dev/null
        case $sys in dmz-*) dmz_down 2>/dev/null ;; esac
      fi
      sed 's/^/  mkfs: /' /tmp/mkfs.log | tail -n 25
      ;;
  esac
  echo "wall_seconds=$(($(date +%s) - t0)) rc=$rc ${Z}_stat: $(cat /sys/block/$Z/stat)"
  tail -n 20 /tmp/err 2>/dev/null | sed 's/^/  stderr: /'
  M "JSON BEGIN $name"
  cat /tmp/out.json 2>/dev/null
  cp /tmp/out.json /tmp/res-$name.json 2>/dev/null
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
vm_init_epilogue 'null_blk|nullb|nvme|zone|f2fs|btrfs|dm-zoned|xfs|ext4|I/O error|blk_update' 80
} >"$R/init"
vm_pack

# --- boot -------------------------------------------------------------------------------
QARGS=()
NBD_PID=""
if [ "$DEVICE" = hdd ]; then
  FILTER=$(dirname "$TOOL")/nbdkit-smrtiming-filter.so
  [ -f "$FILTER" ] || vm_die "$FILTER not found (build it: make build; needs nbdkit-plugin-dev)"
  command -v nbdkit >/dev/null || vm_die "nbdkit not found (scripts/install-deps.sh vm)"
  mkdir -p "$BACKING_DIR"
  # The host's raw leg on an emulated drive with the same geometry and timing model.
  EMU="$BACKING_DIR/smrstore-peers-emu.$$"
  rm -f "$EMU"
  "$TOOL" mkdev "emu:$EMU?zones=$ZONES&zone_mib=$ZONE_MIB" >/dev/null
  vm_log "host: raw leg on an emulated drive, mbps=$MBPS seek_ms=$SEEK_MS (in $BACKING_DIR)"
  "$TOOL" bench --devices "emu:$EMU?zones=$ZONES&zone_mib=$ZONE_MIB&mbps=$MBPS&seek_ms=$SEEK_MS" \
    --dir "$BACKING_DIR" --raw-only --json >"$WORK/emu-raw.json" || vm_die "host raw leg failed"
  rm -f "$EMU"
  IMG="$BACKING_DIR/smrstore-peers-zns.$$.img"
  rm -f "$IMG" "$WORK/nbd.sock" "$WORK/hdd-stats.json"
  truncate -s $((ZONES * ZONE_MIB))M "$IMG"
  nbdkit --foreground --unix "$WORK/nbd.sock" --filter="$FILTER" file "$IMG" \
    mbps="$MBPS" seek_ms="$SEEK_MS" stats="$WORK/hdd-stats.json" 2>"$WORK/nbdkit.log" &
  NBD_PID=$!
  # nbdkit may have exited already: a failed kill must not turn a finished run into exit 1.
  trap 'kill $NBD_PID 2>/dev/null || true; rm -f "$IMG"' EXIT
  i=0
  while [ ! -S "$WORK/nbd.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  [ -S "$WORK/nbd.sock" ] || vm_die "nbdkit did not start: $(cat "$WORK/nbdkit.log")"
  QARGS=(-drive "driver=nbd,server.type=unix,server.path=$WORK/nbd.sock,id=z0,if=none"
         -device nvme,serial=zns0,id=nvme0,mdts=10
         -device "nvme-ns,drive=z0,bus=nvme0,nsid=1,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=${ZONE_MIB}M,zoned.zone_capacity=${ZONE_MIB}M,zoned.max_open=0,zoned.max_active=0")
fi
WATCH_PID=""
if [ "$DEVICE" = hdd ]; then
  # Per-system device counters: at each system's BEGIN and END marker on the serial console,
  # a copy of the filter's counters (rewritten at most once a second while I/O flows).
  rm -f "$WORK"/hdd-stats-*.json
  : >"$WORK/serial.log"
  # (No tr in the pipe: it would buffer the lines; the name stops before the \r anyway.)
  (tail -n +1 -F "$WORK/serial.log" 2>/dev/null | while IFS= read -r line; do
    m=$(printf '%s\n' "$line" | sed -n 's/.*=== SMRSTORE-VM \(BEGIN\|END\) \([^ =]*\).*/\1-\2/p')
    [ -n "$m" ] && cp "$WORK/hdd-stats.json" "$WORK/hdd-stats-$m.json" 2>/dev/null
  done) &
  WATCH_PID=$!
fi
vm_boot "$TIMEOUT" "$MEM" "${QARGS[@]}"
t_end=$(date +%s)
if [ -n "$WATCH_PID" ]; then
  sleep 3  # tail -F may not have passed on the last markers yet (run 3 lost END-btrfs)
  pkill -P "$WATCH_PID" 2>/dev/null || true
  kill "$WATCH_PID" 2>/dev/null || true
fi
if [ -n "$NBD_PID" ]; then
  kill "$NBD_PID" 2>/dev/null || true
  wait "$NBD_PID" 2>/dev/null || true
  rm -f "$IMG"
  vm_log "hdd model (host, nbdkit filter): $(cat "$WORK/hdd-stats.json" 2>/dev/null)"
fi
echo "$VM_QRC $VM_BOOT_SECONDS" >"$WORK/vm-run"
}

if [ "$DEVICE" = hdd ]; then
  REPORT_ARGS=(--device "QEMU NVMe ZNS on nbdkit + smrtiming filter (mbps=$MBPS seek_ms=$SEEK_MS)"
               --emu-raw "$WORK/emu-raw.json" --hdd-stats "$WORK/hdd-stats.json")
else
  REPORT_ARGS=(--device "null_blk zoned (RAM)")
fi
if [ -n "${PEERS_REPORT_ONLY:-}" ]; then
  # The results again from the serial log of an earlier run in $WORK (same settings).
  [ -f "$WORK/serial.log" ] || vm_die "PEERS_REPORT_ONLY: no $WORK/serial.log"
  tr -d '\r' <"$WORK/serial.log" >"$WORK/serial.txt"
  if [ -f "$WORK/vm-run" ]; then
    read -r VM_QRC VM_BOOT_SECONDS <"$WORK/vm-run"
  else
    VM_QRC=0  # a run that stopped before writing vm-run: vm_check_run still needs DONE
    VM_BOOT_SECONDS=$(awk '/SMRSTORE-VM DONE/ { print int(prev) } { if (match($0, /^\[ *[0-9.]+\]/)) { prev = substr($0, 2, RLENGTH - 2) } }' "$WORK/serial.txt")
  fi
  t_end=$(date +%s)
else
  build_and_boot
fi

# --- results ----------------------------------------------------------------------------
fail=0
vm_check_run || fail=1
rm -f "$WORK"/result-*.json
for s in raw $SYSTEMS; do
  sect=$(vm_section "$s")
  rc=$(printf '%s\n' "$sect" | sed -n "s/.*=== SMRSTORE-VM END $s rc=\([0-9]*\) ===.*/\1/p")
  printf '%s\n' "$sect" | sed -n "/=== SMRSTORE-VM JSON BEGIN $s ===/,/=== SMRSTORE-VM JSON END $s ===/p" |
    sed '1d;$d' >"$WORK/result-$s.json"
  printf '%s\n' "$sect" | grep -E '^(wall_seconds|progress|skipped|util for|  (stderr|mkfs):)|HUNG|OVERRUN' |
    sed "s/^/peers: $s: /" || true
  echo "peers: $s: rc=${rc:-none}"
  [ "${rc:-x}" = 0 ] || fail=1
done
if [ -n "${PEERS_REPORT_ONLY:-}" ]; then
  vm_log "VM boot+run $VM_BOOT_SECONDS s (from the earlier run)"
else
  vm_log "VM boot+run $VM_BOOT_SECONDS s, total wall time $((t_end - t_start)) s"
fi
"$PY" "$ROOT/qa/vm/peers_report.py" --dir "$WORK" --systems "raw $SYSTEMS" \
  --wall-seconds "$VM_BOOT_SECONDS" --geometry "$ZONES x $ZONE_MIB MiB, $CONV conventional" \
  --bench "$BENCH" --device-bytes $((ZONES * ZONE_MIB * 1048576)) --zoned-dev "$ZDEV" \
  "${REPORT_ARGS[@]}" || fail=1
if [ "$fail" != 0 ]; then
  vm_log "FAILED or incomplete (serial log: $WORK/serial.log); the table shows what ran"
  exit 1
fi
vm_log "done: $WORK/results.md, $WORK/results.json, $WORK/peers.png"
