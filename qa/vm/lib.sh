# Shared by qa/vm/run.sh (device and store suites) and qa/vm/peers.sh (peer file systems):
# an initramfs built from Debian's files (kernel modules, busybox, our binaries with their
# shared libraries), booted under QEMU TCG, results over the serial console between
# "=== SMRSTORE-VM ... ===" markers. Source it after setting ROOT and WORK; it sets
# KVER, VMLINUZ and R (the initramfs root). Needs: scripts/install-deps.sh vm.

vm_log() { echo "${VM_LOG_TAG:-vm}: $*"; }
vm_die() { echo "${VM_LOG_TAG:-vm}: FAIL: $*" >&2; exit 1; }

vm_file_is_static() { ! ldd "$1" >/dev/null 2>&1; }

# Kernel, busybox and a fresh initramfs root in $WORK/root with the usual directories.
vm_init_root() {
  KVER=${SMRSTORE_VM_KERNEL:-$(ls /lib/modules | sort -V | tail -n1)}
  VMLINUZ=/boot/vmlinuz-$KVER
  [ -r "$VMLINUZ" ] || vm_die "no kernel image $VMLINUZ"
  local busybox
  busybox=$(command -v busybox || echo /bin/busybox)
  vm_file_is_static "$busybox" || vm_die "$busybox is not static (install busybox-static)"
  R=$WORK/root
  rm -rf "$R"
  mkdir -p "$R"/{bin,sbin,dev,proc,sys,tmp,run,etc,lib64,opt/smrstore,lib/modules/"$KVER"}
  cp "$busybox" "$R/bin/busybox"
  : >"$R/etc/modules.order"
  : >"$R/etc/modules.args"
}

# Kernel modules and their dependencies, in load order, no duplicates.
vm_add_modules() {
  local m ko
  for m in "$@"; do
    modprobe -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
  done | while read -r ko; do
    grep -qx "$(basename "$ko")" "$R/etc/modules.order" && continue
    cp "$ko" "$R/lib/modules/$KVER/"
    basename "$ko" >>"$R/etc/modules.order"
  done
}

# Module parameters: vm_module_args null_blk.ko "nr_devices=1 zoned=1".
vm_module_args() { echo "$1 $2" >>"$R/etc/modules.args"; }

# Every shared library a binary needs (ldd), plus the dynamic loader.
vm_copy_libs_of() {
  local lib
  ldd "$1" | awk '/=> \// { print $3 } /^\t\// { print $1 }' | while read -r lib; do
    mkdir -p "$R$(dirname "$lib")"
    cp -L "$lib" "$R$lib"
  done
}

# vm_add_bin SRC DEST [strip]: a binary (and its libraries) at DEST inside the initramfs.
vm_add_bin() {
  mkdir -p "$R$(dirname "$2")"
  cp -L "$1" "$R$2"
  [ "${3:-}" = strip ] && strip --strip-debug "$R$2"
  vm_file_is_static "$1" || vm_copy_libs_of "$1"
}

# The start of every /init: mounts, the marker function M, modules with their parameters.
vm_init_preamble() {
  cat <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
KVER=$(uname -r)
M() { echo "=== SMRSTORE-VM $* ==="; }
M "BOOTED kernel $KVER, $(grep -c ^processor /proc/cpuinfo) cpus, $(awk '/MemTotal/ {print $2}' /proc/meminfo) kB"
for ko in $(cat /etc/modules.order); do
  args=$(awk -v k="$ko" '$1 == k { $1 = ""; print }' /etc/modules.args)
  # shellcheck disable=SC2086
  insmod /lib/modules/$KVER/$ko $args || M "INSMOD-FAILED $ko"
done
mount -t configfs configfs /sys/kernel/config
INIT
}

# The end of every /init: kernel messages matching the extended regex $1 (last $2 lines),
# the DONE marker, power off. sync gets at most 10 s: after a file system hung in the
# kernel it never returns, and the VM would sit until QEMU's timeout.
vm_init_epilogue() {
  cat <<INIT
M "KERNEL-LOG BEGIN"
dmesg | grep -iE '$1' | tail -n $2
M "KERNEL-LOG END"
M "DONE"
sync &
i=0
while [ \$i -lt 10 ] && kill -0 \$! 2>/dev/null; do sleep 1; i=\$((i + 1)); done
poweroff -f
INIT
}

# Packs $R into $WORK/initramfs.gz.
vm_pack() {
  [ -e "$R/lib64/ld-linux-x86-64.so.2" ] || vm_die "dynamic loader not copied"
  chmod +x "$R/init"
  (cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) >"$WORK/initramfs.gz"
  vm_log "initramfs $(du -h "$WORK/initramfs.gz" | cut -f1), kernel $KVER"
}

# vm_boot TIMEOUT MEM [extra QEMU args...]: boots the initramfs (TCG; KVM hangs on this
# machine), serial console to $WORK/serial.log, then CR-stripped to $WORK/serial.txt.
# Sets VM_QRC (QEMU's exit code; 124 = timeout) and VM_BOOT_SECONDS.
vm_boot() {
  local timeout=$1 mem=$2 t0
  shift 2
  rm -f "$WORK/serial.log"
  vm_log "booting QEMU (TCG, $mem, timeout ${timeout}s); serial log: $WORK/serial.log"
  t0=$(date +%s)
  set +e
  timeout --foreground -k 10 "$timeout" qemu-system-x86_64 \
    -machine q35 -accel tcg,thread=multi -cpu max -smp 2 -m "$mem" \
    -nographic -no-reboot -monitor none -serial "file:$WORK/serial.log" \
    -kernel "$VMLINUZ" -initrd "$WORK/initramfs.gz" \
    -append "console=ttyS0 loglevel=4 panic=-1 rdinit=/init" \
    "$@" </dev/null >"$WORK/qemu.out" 2>&1
  VM_QRC=$?
  set -e
  VM_BOOT_SECONDS=$(($(date +%s) - t0))
  tr -d '\r' <"$WORK/serial.log" >"$WORK/serial.txt" 2>/dev/null || true
}

# Lines between "=== SMRSTORE-VM BEGIN NAME ===" and "=== SMRSTORE-VM END NAME ... ===".
vm_section() {
  sed -n "/=== SMRSTORE-VM BEGIN $1 ===/,/=== SMRSTORE-VM END $1 /p" "$WORK/serial.txt"
}

# After vm_boot: prints the DEVICES section and checks that QEMU exited cleanly, the VM
# booted and finished, and no module or configfs step failed. Returns 1 if any did not.
vm_check_run() {
  local s=$WORK/serial.txt ok=0
  sed -n '/=== SMRSTORE-VM DEVICES BEGIN ===/,/=== SMRSTORE-VM DEVICES END ===/p' "$s"
  [ "$VM_QRC" = 0 ] || { vm_log "qemu exited $VM_QRC (124 = timeout): $(tail -n 5 "$WORK/qemu.out")"; ok=1; }
  grep -q '=== SMRSTORE-VM BOOTED' "$s" || { vm_log "VM did not boot (see $WORK/serial.log)"; ok=1; }
  grep -q '=== SMRSTORE-VM DONE ===' "$s" || { vm_log "VM did not finish (see $WORK/serial.log)"; ok=1; }
  ! grep 'SMRSTORE-VM INSMOD-FAILED\|SMRSTORE-VM CONFIGFS-FAILED' "$s" || ok=1
  return $ok
}
