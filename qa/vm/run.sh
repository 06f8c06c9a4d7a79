#!/bin/bash
# Runs the device conformance suite (Backends/DeviceConformanceTest.*/zbd) against REAL
# kernel zoned block devices inside a QEMU VM (TCG; KVM hangs on this machine):
#   nullb0   null_blk, host-managed, 16 x 256 MiB zones, 4 conventional (HM-SMR model)
#   nullb1   null_blk via configfs, 16 x 64 MiB zones with 48 MiB capacity, 2 conventional,
#            4 KiB blocks, max_open 4 / max_active 6 (exercises the open/active limit tests)
#   nvme0n1  QEMU NVMe ZNS, 16 x 64 MiB zones, 48 MiB capacity, max_open 16 / max_active 32
#   nvme0n2  QEMU NVMe ZNS, 16 x 32 MiB zones, 24 MiB capacity, 4 KiB blocks,
#            max_open 4 / max_active 6
# Everything in the VM comes from Debian's files (kernel, modules, busybox, util-linux's
# blkzone) plus our test binary and its shared libraries, packed into an initramfs.
# Results come back over the serial console between markers; this script parses them and
# exits non-zero if a suite failed or the VM did not finish.
#
# Usage: qa/vm/run.sh [path/to/smrstore_tests]
# Env:   SMRSTORE_VM_DIR   work dir (default build/vm; serial log = $DIR/serial.log)
#        SMRSTORE_VM_TIMEOUT  seconds for the whole VM run (default 2400)
#        SMRSTORE_VM_MEM   VM memory (default 6G)
#        SMRSTORE_VM_DEVICES  devices to test (default "nullb0 nullb1 nvme0n1 nvme0n2")
#        SMRSTORE_VM_FILTER   gtest filter (default 'Backends/DeviceConformanceTest.*/zbd')
#        SMRSTORE_VM_PROBE    optional static binary run as `PROBE /dev/DEV` before each suite
#                             (for looking at raw kernel behaviour; output in the serial log)
set -euo pipefail

t_start=$(date +%s)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$ROOT/build/src/os/smrstore/smrstore_tests}
WORK=${SMRSTORE_VM_DIR:-$ROOT/build/vm}
TIMEOUT=${SMRSTORE_VM_TIMEOUT:-2400}
MEM=${SMRSTORE_VM_MEM:-6G}
DEVICES=${SMRSTORE_VM_DEVICES:-"nullb0 nullb1 nvme0n1 nvme0n2"}
FILTER=${SMRSTORE_VM_FILTER:-'Backends/DeviceConformanceTest.*/zbd'}
# A two-drive store over a null_blk and a ZNS device (zone capacity < size on both): the
# store's conformance and model suites (empty = skip).
STORE_DEVICES=${SMRSTORE_VM_STORE_DEVICES:-/dev/nullb1,/dev/nvme0n2}
STORE_FILTER=${SMRSTORE_VM_STORE_FILTER:-'StoreConformance*:StoreModel*'}

VM_LOG_TAG=test-vm
# shellcheck source=qa/vm/lib.sh
. "$ROOT/qa/vm/lib.sh"
log() { vm_log "$@"; }
die() { vm_die "$@"; }

[ -x "$BIN" ] || die "test binary $BIN not found (build it first: make build)"

# --- packages ---------------------------------------------------------------------------
"$ROOT/scripts/install-deps.sh" vm

# --- initramfs --------------------------------------------------------------------------
vm_init_root
vm_add_modules null_blk nvme
vm_module_args null_blk.ko "nr_devices=1 zoned=1 zone_size=256 zone_nr_conv=4 zone_max_open=128 memory_backed=1 gb=4"
log "modules: $(tr '\n' ' ' <"$R/etc/modules.order")"
vm_add_bin "$BIN" /opt/smrstore/smrstore_tests strip
[ -n "${SMRSTORE_VM_PROBE:-}" ] && vm_add_bin "$SMRSTORE_VM_PROBE" /opt/smrstore/probe
vm_add_bin /usr/sbin/blkzone /sbin/blkzone

{
vm_init_preamble
cat <<'INIT'
# A second null_blk with zone capacity < zone size and tight open/active limits.
NB=/sys/kernel/config/nullb/nullb1
if mkdir $NB; then
  for kv in size=1024 blocksize=4096 memory_backed=1 zoned=1 zone_size=64 zone_capacity=48 \
            zone_nr_conv=2 zone_max_open=4 zone_max_active=6; do
    echo "${kv#*=}" >$NB/${kv%%=*} || M "CONFIGFS-FAILED $kv"
  done
  echo 1 >$NB/power || M "CONFIGFS-FAILED power"
fi
# Wait for the nvme namespaces to appear.
i=0
while [ $i -lt 100 ] && [ ! -b /dev/nvme0n2 ]; do sleep 0.1; i=$((i + 1)); done

M "DEVICES BEGIN"
for b in /sys/block/*; do
  d=${b##*/}
  case "$d" in nullb*|nvme*) ;; *) continue ;; esac
  q=$b/queue
  echo "$d zoned=$(cat $q/zoned) nr_zones=$(cat $q/nr_zones 2>/dev/null) chunk_sectors=$(cat $q/chunk_sectors) lbs=$(cat $q/logical_block_size) pbs=$(cat $q/physical_block_size) max_open=$(cat $q/max_open_zones 2>/dev/null) max_active=$(cat $q/max_active_zones 2>/dev/null) size_sectors=$(cat $b/size) zone_append_max=$(cat $q/zone_append_max_bytes 2>/dev/null)"
  blkzone report /dev/$d 2>&1 | sed 's/^/  /'
done
M "DEVICES END"

cd /opt/smrstore
for d in $(cat /etc/test-devices); do
  M "BEGIN $d"
  if [ -b /dev/$d ]; then
    if [ -x ./probe ]; then ./probe /dev/$d 2>&1; fi
    SMRSTORE_TEST_ZBD=/dev/$d ./smrstore_tests --gtest_color=no \
      --gtest_filter="$(cat /etc/test-filter)" 2>&1
    rc=$?
  else
    echo "no /dev/$d"
    rc=127
  fi
  M "END $d rc=$rc"
done
if [ -s /etc/store-devices ]; then
  M "BEGIN store"
  SMRSTORE_TEST_STORE_ZBD=$(cat /etc/store-devices) ./smrstore_tests --gtest_color=no \
    --gtest_filter="$(cat /etc/store-filter)" 2>&1
  M "END store rc=$?"
fi
INIT
vm_init_epilogue 'null_blk|nullb|nvme|zone|blk_update|I/O error' 60
} >"$R/init"
echo "$DEVICES" >"$R/etc/test-devices"
echo "$FILTER" >"$R/etc/test-filter"
echo "$STORE_DEVICES" >"$R/etc/store-devices"
echo "$STORE_FILTER" >"$R/etc/store-filter"

vm_pack

# --- ZNS backing files (sparse) ---------------------------------------------------------
rm -f "$WORK/zns1.img" "$WORK/zns2.img"
truncate -s 1G "$WORK/zns1.img"     # 16 x 64 MiB zones
truncate -s 512M "$WORK/zns2.img"   # 16 x 32 MiB zones

# --- boot -------------------------------------------------------------------------------
vm_boot "$TIMEOUT" "$MEM" \
  -drive file="$WORK/zns1.img",id=z1,format=raw,if=none \
  -drive file="$WORK/zns2.img",id=z2,format=raw,if=none \
  -device nvme,serial=zns0,id=nvme0 \
  -device nvme-ns,drive=z1,bus=nvme0,nsid=1,zoned=true,zoned.zone_size=64M,zoned.zone_capacity=48M,zoned.max_open=16,zoned.max_active=32 \
  -device nvme-ns,drive=z2,bus=nvme0,nsid=2,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=32M,zoned.zone_capacity=24M,zoned.max_open=4,zoned.max_active=6
SERIAL=$WORK/serial.log
t_end=$(date +%s)

# --- results ----------------------------------------------------------------------------
fail=0
vm_check_run || fail=1
for d in $DEVICES; do
  sect=$(vm_section "$d")
  rc=$(printf '%s\n' "$sect" | sed -n "s/.*=== SMRSTORE-VM END $d rc=\([0-9]*\) ===.*/\1/p")
  ok=$(printf '%s\n' "$sect" | grep -c '^\[       OK \]' || true)
  bad=$(printf '%s\n' "$sect" | grep -c '^\[  FAILED  \] .*/zbd.* ms)$' || true)
  skip=$(printf '%s\n' "$sect" | grep -c '^\[  SKIPPED \] .*/zbd.* ms)$' || true)
  echo "test-vm: $d: rc=${rc:-none} ok=$ok failed=$bad skipped=$skip"
  printf '%s\n' "$sect" | grep '^\[  FAILED  \] .*/zbd.* ms)$' | sed 's/^/    /' || true
  if [ "${rc:-x}" != 0 ] || [ "$ok" = 0 ]; then fail=1; fi
done
if [ -n "$STORE_DEVICES" ]; then
  sect=$(vm_section store)
  rc=$(printf '%s\n' "$sect" | sed -n "s/.*=== SMRSTORE-VM END store rc=\([0-9]*\) ===.*/\1/p")
  ok=$(printf '%s\n' "$sect" | grep -c '^\[       OK \]' || true)
  bad=$(printf '%s\n' "$sect" | grep -c '^\[  FAILED  \] .* ms)$' || true)
  echo "test-vm: store on $STORE_DEVICES: rc=${rc:-none} ok=$ok failed=$bad"
  printf '%s\n' "$sect" | grep '^\[  FAILED  \] .* ms)$' | sed 's/^/    /' || true
  if [ "${rc:-x}" != 0 ] || [ "$ok" = 0 ]; then fail=1; fi
fi
echo "test-vm: boot+tests $VM_BOOT_SECONDS s, total wall time $((t_end - t_start)) s"
if [ "$fail" != 0 ]; then
  echo "test-vm: FAILED (serial log: $SERIAL)"
  exit 1
fi
echo "test-vm: all device suites passed on real kernel zoned devices"
