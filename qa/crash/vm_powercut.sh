#!/bin/bash
# Power cuts that also drop what RocksDB wrote but did not sync (qa/crash/README.md): in a
# QEMU TCG VM (qa/vm/lib.sh), the store directory AND its emulated drives live on ext4 over
# dm-flakey over a RAM disk (brd). Each point: smrstore-crash runs a batch of puts of new
# objects (1-4 in flight) with no cut of its own, acknowledging each commit; at a random
# instant the dm table is switched to drop_writes (every write from then on is lost, as at a
# power cut), the process is killed, the file system unmounted (its dirty pages go nowhere),
# the table switched back and the file system mounted again: what survives is what had
# reached the device — fsync'd data, plus whatever writeback happened to flush. (The process
# is stopped with SIGSTOP just before the switch and its acks taken then.) Then
# `fsck --deep` must be clean, every acknowledged put must read back byte-exact, the op in
# flight must be absent or whole, and ops never started must be absent.
#
# Usage: qa/crash/vm_powercut.sh BUILD_DIR [POINTS]   (default 20 points)
# Env:   SMRSTORE_CRASH_VM_DIR (default BUILD_DIR/crash-vm), SMRSTORE_VM_TIMEOUT (1800),
#        SMRSTORE_CRASH_SEED (the VM's shell RANDOM seed; default: from the clock)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?usage: $0 BUILD_DIR [POINTS]}" && pwd)
POINTS=${2:-20}
WORK=${SMRSTORE_CRASH_VM_DIR:-$BUILD/crash-vm}
TIMEOUT=${SMRSTORE_VM_TIMEOUT:-1800}
SEED=${SMRSTORE_CRASH_SEED:-$(date +%s)}
mkdir -p "$WORK"
VM_LOG_TAG=crash-vm
# shellcheck source=qa/vm/lib.sh
. "$ROOT/qa/vm/lib.sh"
t_start=$(date +%s)
"$ROOT/scripts/install-deps.sh" vm >/dev/null

vm_init_root
vm_add_modules brd dm-flakey ext4
vm_module_args brd.ko "rd_nr=1 rd_size=393216"
vm_add_bin "$BUILD/src/tools/smrstore-tool" /opt/smrstore/smrstore-tool strip
vm_add_bin "$BUILD/qa/crash/smrstore-crash" /opt/smrstore/smrstore-crash strip
vm_add_bin /usr/sbin/dmsetup /sbin/dmsetup
vm_add_bin /usr/sbin/mke2fs /sbin/mke2fs
cp /etc/mke2fs.conf "$R/etc/mke2fs.conf"
echo "$POINTS" >"$R/etc/points"
echo "$SEED" >"$R/etc/seed"

{
vm_init_preamble
cat <<'INIT'
T=/opt/smrstore/smrstore-tool
H=/opt/smrstore/smrstore-crash
RANDOM=$(cat /etc/seed)
POINTS=$(cat /etc/points)
SZ=$(cat /sys/block/ram0/size)
GOOD="0 $SZ flakey /dev/ram0 0 100000 0"
DROP="0 $SZ flakey /dev/ram0 0 0 100000 1 drop_writes"
mkdir -p /mnt /tmp/c
/sbin/mke2fs -F -q -t ext4 /dev/ram0 || M "MKFS-FAILED"
dmsetup create --noudevsync flaky --table "$GOOD" || M "DMSETUP-FAILED"
[ -b /dev/mapper/flaky ] || dmsetup mknodes flaky
mount -t ext4 /dev/mapper/flaky /mnt || M "MOUNT-FAILED"
S=/mnt/st
D0="emu:/mnt/d0.img?zones=24&zone_mib=2&conv=1"
D1="emu:/mnt/d1.img?zones=24&zone_mib=2&conv=1"
$T mkfs $S "$D0" "$D1" --inline-max 4096 --max-record 65536 >/dev/null || M "STORE-MKFS-FAILED"
$T mkcoll $S 1.0_head >/dev/null
sync
hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
M "BEGIN points"
p=0
while [ $p -lt $POINTS ]; do
  p=$((p + 1))
  n=$((20 + RANDOM % 40)); depth=$((1 + RANDOM % 4)); : >/tmp/ops
  i=0
  while [ $i -lt $n ]; do
    sz=$(( (RANDOM % 4 == 0) ? RANDOM % 4096 : RANDOM * 8 % 300000 ))
    head -c $sz /dev/urandom >/tmp/c/$p.$i
    echo "put 1.0_head $(hex p$p.$i) /tmp/c/$p.$i" >>/tmp/ops
    i=$((i + 1))
  done
  $H powercut $S --cut-at 0 --depth $depth </tmp/ops >/tmp/acks 2>/tmp/err &
  pid=$!
  # The cut: 0.05-1.55 s into the run (mount, commits, RocksDB writes and flushes in flight).
  usleep $((50000 + RANDOM * 1500000 / 32768))
  # Freeze the process first, then take its acks: an ack printed after the switch would be
  # of a commit whose writes the device already dropped (drop_writes reports success).
  kill -STOP $pid 2>/dev/null
  cp /tmp/acks /tmp/acks.cut
  dmsetup suspend --noudevsync --nolockfs flaky && dmsetup load flaky --table "$DROP" && dmsetup resume --noudevsync flaky || M "SWITCH-FAILED"
  kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
  mv /tmp/acks.cut /tmp/acks
  umount /mnt || M "UMOUNT-FAILED"
  dmsetup suspend --noudevsync --nolockfs flaky && dmsetup load flaky --table "$GOOD" && dmsetup resume --noudevsync flaky || M "SWITCH-FAILED"
  mount -t ext4 /dev/mapper/flaky /mnt || M "MOUNT-FAILED"
  acked=$(grep -c '^A ' /tmp/acks || true); started=$(grep -c '^S ' /tmp/acks || true)
  res=ok; why=""; verified=0
  if ! $T fsck $S --deep >/tmp/fsck 2>&1; then res=FAIL; why="fsck: $(tail -n 3 /tmp/fsck | tr '\n' ' ')"; fi
  i=0
  while [ $res = ok ] && [ $i -lt $n ]; do
    if grep -q "^A $i\$" /tmp/acks; then
      rm -f /tmp/got
      if $T get $S 1.0_head p$p.$i /tmp/got >/dev/null 2>/tmp/gerr && cmp -s /tmp/got /tmp/c/$p.$i; then
        verified=$((verified + 1))
      else res=FAIL; why="acked p$p.$i does not read back: $(cat /tmp/gerr)"; fi
    elif grep -q "^S $i\$" /tmp/acks; then
      rm -f /tmp/got
      if $T get $S 1.0_head p$p.$i /tmp/got >/dev/null 2>&1 && ! cmp -s /tmp/got /tmp/c/$p.$i; then
        res=FAIL; why="in-flight p$p.$i present but not whole"
      fi
    elif $T stat $S 1.0_head p$p.$i >/dev/null 2>&1; then
      res=FAIL; why="p$p.$i never started but present"
    fi
    i=$((i + 1))
  done
  echo "POINT $p ops=$n depth=$depth started=$started acked=$acked verified=$verified $res $why"
  if [ $res = FAIL ]; then
    echo "DIAG acks: $(tr '\n' ' ' </tmp/acks) stderr: $(tail -c 300 /tmp/err)"
    echo "DIAG objects: $($T ls $S 1.0_head 2>&1 | tr '\n' ' ')"
    echo "DIAG meta: $(ls -l --full-time $S/meta | tr '\n' ';')"
    grep -iE 'Recover|log #|WAL|corrupt|error' $S/meta/LOG 2>/dev/null | tail -n 25 | sed 's/^/DIAG LOG: /'
    # start again from a fresh store so later points still test something
    rm -rf $S /mnt/d0.img /mnt/d1.img
    $T mkfs $S "$D0" "$D1" --inline-max 4096 --max-record 65536 >/dev/null
    $T mkcoll $S 1.0_head >/dev/null
  fi
  rm -f /tmp/c/$p.*
done
M "END points"
INIT
vm_init_epilogue 'flakey|ext4|EXT4|I/O error|device-mapper' 40
} >"$R/init"
vm_pack
vm_boot "$TIMEOUT" 2G
fail=0
vm_check_run >/dev/null || fail=1
pts=$(vm_section points | grep '^POINT ' || true)
printf '%s\n' "$pts" | sed 's/^/  /'
n=$(printf '%s\n' "$pts" | grep -c '^POINT ' || true)
bad=$(printf '%s\n' "$pts" | grep -c ' FAIL' || true)
ver=$(printf '%s\n' "$pts" | sed -n 's/.* verified=\([0-9]*\) .*/\1/p' | awk '{s += $1} END {print s + 0}')
grep "SMRSTORE-VM [A-Z-]*FAILED" "$WORK/serial.txt" && { echo "crash-vm: the VM set-up failed (serial log: $WORK/serial.log)"; fail=1; }
echo "crash-vm summary: seed $SEED: $n points tried (power cuts dropping unsynced file system writes), $ver acknowledged objects verified, $bad failures, $(($(date +%s) - t_start)) s (VM $VM_BOOT_SECONDS s)"
[ "$n" -gt 0 ] && [ "$bad" = 0 ] && [ "$fail" = 0 ]
