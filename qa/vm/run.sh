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

log() { echo "test-vm: $*"; }
die() { echo "test-vm: FAIL: $*" >&2; exit 1; }

[ -x "$BIN" ] || die "test binary $BIN not found (build it first: make build)"

# --- packages ---------------------------------------------------------------------------
"$ROOT/scripts/install-deps.sh" vm

KVER=${SMRSTORE_VM_KERNEL:-$(ls /lib/modules | sort -V | tail -n1)}
VMLINUZ=/boot/vmlinuz-$KVER
[ -r "$VMLINUZ" ] || die "no kernel image $VMLINUZ"
BUSYBOX=$(command -v busybox || echo /bin/busybox)
file_is_static() { ! ldd "$1" >/dev/null 2>&1; }
file_is_static "$BUSYBOX" || die "$BUSYBOX is not static (install busybox-static)"

# --- initramfs --------------------------------------------------------------------------
rm -rf "$WORK/root"
mkdir -p "$WORK/root"
R=$WORK/root
mkdir -p "$R"/{bin,sbin,dev,proc,sys,tmp,run,etc,lib64,opt/smrstore,lib/modules/"$KVER"}
cp "$BUSYBOX" "$R/bin/busybox"

# Kernel modules in load order (dependencies first), no duplicates.
: >"$R/etc/modules.order"
for m in null_blk nvme; do
  modprobe -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
  cp "$ko" "$R/lib/modules/$KVER/"
  echo "$(basename "$ko")" >>"$R/etc/modules.order"
done
log "modules: $(tr '\n' ' ' <"$R/etc/modules.order")"

# Binaries and every shared library they need (ldd), plus the dynamic loader.
copy_libs_of() {
  ldd "$1" | awk '/=> \// { print $3 } /^\t\// { print $1 }' | while read -r lib; do
    mkdir -p "$R$(dirname "$lib")"
    cp -L "$lib" "$R$lib"
  done
}
cp "$BIN" "$R/opt/smrstore/smrstore_tests"
strip --strip-debug "$R/opt/smrstore/smrstore_tests"
copy_libs_of "$BIN"
if [ -n "${SMRSTORE_VM_PROBE:-}" ]; then
  cp "$SMRSTORE_VM_PROBE" "$R/opt/smrstore/probe"
  file_is_static "$R/opt/smrstore/probe" || copy_libs_of "$SMRSTORE_VM_PROBE"
fi
cp /usr/sbin/blkzone "$R/sbin/blkzone"
copy_libs_of /usr/sbin/blkzone
# Debian's loader path is /lib64/ld-linux-x86-64.so.2 -> usr/lib/...; ldd printed it.
[ -e "$R/lib64/ld-linux-x86-64.so.2" ] || die "dynamic loader not copied"

cat >"$R/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
KVER=$(uname -r)
M() { echo "=== SMRSTORE-VM $* ==="; }
M "BOOTED kernel $KVER, $(grep -c ^processor /proc/cpuinfo) cpus, $(awk '/MemTotal/ {print $2}' /proc/meminfo) kB"
for ko in $(cat /etc/modules.order); do
  args=""
  case "$ko" in
    null_blk.ko) args="nr_devices=1 zoned=1 zone_size=256 zone_nr_conv=4 zone_max_open=128 memory_backed=1 gb=4" ;;
  esac
  insmod /lib/modules/$KVER/$ko $args || M "INSMOD-FAILED $ko"
done
mount -t configfs configfs /sys/kernel/config
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
M "KERNEL-LOG BEGIN"
dmesg | grep -iE 'null_blk|nullb|nvme|zone|blk_update|I/O error' | tail -n 60
M "KERNEL-LOG END"
M "DONE"
sync
poweroff -f
INIT
chmod +x "$R/init"
echo "$DEVICES" >"$R/etc/test-devices"
echo "$FILTER" >"$R/etc/test-filter"
echo "$STORE_DEVICES" >"$R/etc/store-devices"
echo "$STORE_FILTER" >"$R/etc/store-filter"

(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) >"$WORK/initramfs.gz"
log "initramfs $(du -h "$WORK/initramfs.gz" | cut -f1), kernel $KVER"

# --- ZNS backing files (sparse) ---------------------------------------------------------
rm -f "$WORK/zns1.img" "$WORK/zns2.img"
truncate -s 1G "$WORK/zns1.img"     # 16 x 64 MiB zones
truncate -s 512M "$WORK/zns2.img"   # 16 x 32 MiB zones

# --- boot -------------------------------------------------------------------------------
SERIAL=$WORK/serial.log
rm -f "$SERIAL"
log "booting QEMU (TCG, $MEM, timeout ${TIMEOUT}s); serial log: $SERIAL"
t_boot=$(date +%s)
set +e
timeout --foreground -k 10 "$TIMEOUT" qemu-system-x86_64 \
  -machine q35 -accel tcg,thread=multi -cpu max -smp 2 -m "$MEM" \
  -nographic -no-reboot -monitor none -serial "file:$SERIAL" \
  -kernel "$VMLINUZ" -initrd "$WORK/initramfs.gz" \
  -append "console=ttyS0 loglevel=4 panic=-1 rdinit=/init" \
  -drive file="$WORK/zns1.img",id=z1,format=raw,if=none \
  -drive file="$WORK/zns2.img",id=z2,format=raw,if=none \
  -device nvme,serial=zns0,id=nvme0 \
  -device nvme-ns,drive=z1,bus=nvme0,nsid=1,zoned=true,zoned.zone_size=64M,zoned.zone_capacity=48M,zoned.max_open=16,zoned.max_active=32 \
  -device nvme-ns,drive=z2,bus=nvme0,nsid=2,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=32M,zoned.zone_capacity=24M,zoned.max_open=4,zoned.max_active=6 \
  </dev/null >"$WORK/qemu.out" 2>&1
qrc=$?
set -e
t_end=$(date +%s)

# --- results ----------------------------------------------------------------------------
tr -d '\r' <"$SERIAL" >"$WORK/serial.txt" 2>/dev/null || true
S=$WORK/serial.txt
sed -n '/=== SMRSTORE-VM DEVICES BEGIN ===/,/=== SMRSTORE-VM DEVICES END ===/p' "$S"
fail=0
[ "$qrc" = 0 ] || { log "qemu exited $qrc (124 = timeout): $(tail -n 5 "$WORK/qemu.out")"; fail=1; }
grep -q '=== SMRSTORE-VM BOOTED' "$S" || { log "VM did not boot (see $SERIAL)"; fail=1; }
grep -q '=== SMRSTORE-VM DONE ===' "$S" || { log "VM did not finish (see $SERIAL)"; fail=1; }
grep 'SMRSTORE-VM INSMOD-FAILED\|SMRSTORE-VM CONFIGFS-FAILED' "$S" && fail=1
for d in $DEVICES; do
  sect=$(sed -n "/=== SMRSTORE-VM BEGIN $d ===/,/=== SMRSTORE-VM END $d /p" "$S")
  rc=$(printf '%s\n' "$sect" | sed -n "s/.*=== SMRSTORE-VM END $d rc=\([0-9]*\) ===.*/\1/p")
  ok=$(printf '%s\n' "$sect" | grep -c '^\[       OK \]' || true)
  bad=$(printf '%s\n' "$sect" | grep -c '^\[  FAILED  \] .*/zbd.* ms)$' || true)
  skip=$(printf '%s\n' "$sect" | grep -c '^\[  SKIPPED \] .*/zbd.* ms)$' || true)
  echo "test-vm: $d: rc=${rc:-none} ok=$ok failed=$bad skipped=$skip"
  printf '%s\n' "$sect" | grep '^\[  FAILED  \] .*/zbd.* ms)$' | sed 's/^/    /' || true
  if [ "${rc:-x}" != 0 ] || [ "$ok" = 0 ]; then fail=1; fi
done
if [ -n "$STORE_DEVICES" ]; then
  sect=$(sed -n "/=== SMRSTORE-VM BEGIN store ===/,/=== SMRSTORE-VM END store /p" "$S")
  rc=$(printf '%s\n' "$sect" | sed -n "s/.*=== SMRSTORE-VM END store rc=\([0-9]*\) ===.*/\1/p")
  ok=$(printf '%s\n' "$sect" | grep -c '^\[       OK \]' || true)
  bad=$(printf '%s\n' "$sect" | grep -c '^\[  FAILED  \] .* ms)$' || true)
  echo "test-vm: store on $STORE_DEVICES: rc=${rc:-none} ok=$ok failed=$bad"
  printf '%s\n' "$sect" | grep '^\[  FAILED  \] .* ms)$' | sed 's/^/    /' || true
  if [ "${rc:-x}" != 0 ] || [ "$ok" = 0 ]; then fail=1; fi
fi
echo "test-vm: boot+tests $((t_end - t_boot)) s, total wall time $((t_end - t_start)) s"
if [ "$fail" != 0 ]; then
  echo "test-vm: FAILED (serial log: $SERIAL)"
  exit 1
fi
echo "test-vm: all device suites passed on real kernel zoned devices"
