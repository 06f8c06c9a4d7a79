#!/bin/bash
# A real Debian 12 host in a QEMU VM (TCG; KVM hangs on this machine): systemd as PID 1,
# udev, sshd, Debian's Ceph 16.2.15, and kernel zoned block devices:
#   /dev/nullb0   null_blk zoned (modprobe.d): 2 GiB, 64 MiB zones, 2 conventional; its
#                 data is LOST at every guest reboot (scratch / preflight only)
#   /dev/nvme0n1, /dev/nvme1n1   QEMU NVMe ZNS namespaces on files in the run dir
#                 (/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_smrzns0, ..._smrzns1), 64 MiB zones;
#                 zone state and data survive a guest reboot while QEMU runs: OSD drives
#   /dev/vdb      a plain virtio disk (/dev/disk/by-id/virtio-smrmeta0), for metadata
# Root is /dev/vda, a qcow2 overlay (per run) on the cached ext4 image of build-rootfs.sh.
# The guest reboots without QEMU exiting. Networking: QEMU user mode, isolated
# (restrict=on), only sshd forwarded, from 127.0.0.1:PORT.
#
# Usage: qa/vm/host/vmhost.sh build|start|wait|ssh [CMD...]|reboot|stop|status|ssh-config
#   build       build or reuse the cached image (build-rootfs.sh)
#   start       a fresh run dir (clean disks), boot, wait for sshd; prints the boot time
#   wait [S]    wait up to S seconds (default 900) for sshd
#   ssh [CMD]   ssh into the VM as root (the cache dir's key)
#   reboot      systemctl reboot in the guest, wait for a new boot id; prints the time
#   stop        systemctl poweroff (QEMU exits), or kill QEMU after 120 s
#   ssh-config  path of an ssh_config for the VM (Host smrvm), for ssh -F / Ansible
# Env: SMRSTORE_VMHOST_CACHE  image cache (default /var/tmp/smrstore-vmhost)
#      SMRSTORE_VMHOST_RUN    run dir (default $CACHE/run): disks, pid, serial.log
#      SMRSTORE_VMHOST_PORT   127.0.0.1 port forwarded to the guest's sshd (default 10022)
#      SMRSTORE_VMHOST_MEM    guest memory (default 4G); SMRSTORE_VMHOST_SMP (default 2)
#      SMRSTORE_VMHOST_ZNS_SIZE  size of each ZNS namespace (default 4G: 64 zones)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${SMRSTORE_VMHOST_CACHE:-/var/tmp/smrstore-vmhost}
RUN=${SMRSTORE_VMHOST_RUN:-$CACHE/run}
PORT=${SMRSTORE_VMHOST_PORT:-10022}
MEM=${SMRSTORE_VMHOST_MEM:-4G}
SMP=${SMRSTORE_VMHOST_SMP:-2}
ZNS_SIZE=${SMRSTORE_VMHOST_ZNS_SIZE:-4G}
export SMRSTORE_VMHOST_CACHE=$CACHE

log() { echo "vmhost: $*" >&2; }
die() { echo "vmhost: FAIL: $*" >&2; exit 1; }

image_dir() {
  [ -r "$RUN/image" ] || die "no VM in $RUN (run: $0 start)"
  cat "$RUN/image"
}

qemu_pid() {
  local pid
  [ -r "$RUN/qemu.pid" ] || return 1
  pid=$(cat "$RUN/qemu.pid")
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

write_ssh_config() {
  cat >"$RUN/ssh_config" <<CONF
Host smrvm
  HostName 127.0.0.1
  Port $PORT
  User root
  IdentityFile $1/id_ed25519
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  ConnectTimeout 10
  ServerAliveInterval 15
  ServerAliveCountMax 8
CONF
}

vm_ssh() { ssh -F "$RUN/ssh_config" smrvm "$@"; }

# wait_ssh TIMEOUT: until sshd answers (and QEMU still runs).
wait_ssh() {
  local deadline=$(($(date +%s) + $1))
  while :; do
    qemu_pid >/dev/null || die "QEMU is not running (see $RUN/qemu.log, $RUN/serial.log)"
    if vm_ssh -o ConnectTimeout=5 -o BatchMode=yes true 2>/dev/null; then return 0; fi
    [ "$(date +%s)" -lt "$deadline" ] || die "no sshd on 127.0.0.1:$PORT after $1 s (see $RUN/serial.log)"
    sleep 3
  done
}

cmd_build() { "$HERE/build-rootfs.sh" | tail -n1; }

cmd_start() {
  local img t0
  if qemu_pid >/dev/null; then die "a VM already runs from $RUN (pid $(qemu_pid)); $0 stop first"; fi
  command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (scripts/install-deps.sh vmhost)"
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    die "127.0.0.1:$PORT is already in use (set SMRSTORE_VMHOST_PORT)"
  fi
  img=$("$HERE/build-rootfs.sh" | tail -n1)
  [ -e "$img/ok" ] || die "no image in $img"
  mkdir -p "$RUN"
  rm -f "$RUN"/disk.qcow2 "$RUN"/zns0.img "$RUN"/zns1.img "$RUN"/meta.img "$RUN"/serial.log "$RUN"/qemu.log
  echo "$img" >"$RUN/image"
  write_ssh_config "$img"
  qemu-img create -q -f qcow2 -F raw -b "$img/rootfs.img" "$RUN/disk.qcow2"
  truncate -s "$ZNS_SIZE" "$RUN/zns0.img" "$RUN/zns1.img"
  truncate -s 2G "$RUN/meta.img"
  log "booting $img (kernel $(cat "$img/kernel-version"), $MEM, $SMP vCPUs, TCG) on 127.0.0.1:$PORT; serial log $RUN/serial.log"
  t0=$(date +%s)
  # Only sshd is forwarded, bound to 127.0.0.1; restrict=on keeps the guest off any other
  # network (it needs none: everything is in the image).
  qemu-system-x86_64 \
    -machine q35 -accel tcg,thread=multi -cpu max -smp "$SMP" -m "$MEM" \
    -display none -monitor none -serial "file:$RUN/serial.log" \
    -daemonize -pidfile "$RUN/qemu.pid" \
    -kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 net.ifnames=0 systemd.show_status=false" \
    -drive file="$RUN/disk.qcow2",id=root,format=qcow2,if=none,cache=unsafe \
    -device virtio-blk-pci,drive=root,serial=smrvm-root \
    -drive file="$RUN/meta.img",id=meta,format=raw,if=none,cache=unsafe \
    -device virtio-blk-pci,drive=meta,serial=smrmeta0 \
    -drive file="$RUN/zns0.img",id=z0,format=raw,if=none \
    -drive file="$RUN/zns1.img",id=z1,format=raw,if=none \
    -device nvme,serial=smrzns0,id=nvme0 \
    -device nvme-ns,drive=z0,bus=nvme0,nsid=1,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=64M,zoned.max_open=16,zoned.max_active=32 \
    -device nvme,serial=smrzns1,id=nvme1 \
    -device nvme-ns,drive=z1,bus=nvme1,nsid=1,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=64M,zoned.max_open=16,zoned.max_active=32 \
    -netdev user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:"$PORT"-:22 \
    -device virtio-net-pci,netdev=n0 \
    </dev/null >"$RUN/qemu.log" 2>&1 || die "QEMU did not start: $(tail -n 3 "$RUN/qemu.log")"
  wait_ssh 900
  log "sshd up $(($(date +%s) - t0)) s after QEMU started ($(vm_ssh 'systemctl is-system-running' 2>/dev/null || true); kernel $(vm_ssh uname -r))"
}

cmd_reboot() {
  local old new t0
  old=$(vm_ssh cat /proc/sys/kernel/random/boot_id)
  t0=$(date +%s)
  vm_ssh 'systemctl reboot' >/dev/null 2>&1 || true
  local deadline=$((t0 + 900))
  while :; do
    qemu_pid >/dev/null || die "QEMU exited during the reboot (see $RUN/serial.log)"
    new=$(vm_ssh -o ConnectTimeout=5 -o BatchMode=yes cat /proc/sys/kernel/random/boot_id 2>/dev/null || true)
    if [ -n "$new" ] && [ "$new" != "$old" ]; then break; fi
    [ "$(date +%s)" -lt "$deadline" ] || die "the guest did not come back within 900 s (see $RUN/serial.log)"
    sleep 3
  done
  log "rebooted: sshd up again $(($(date +%s) - t0)) s after systemctl reboot (QEMU pid $(qemu_pid) unchanged)"
}

cmd_stop() {
  local pid i=0
  pid=$(qemu_pid) || { log "no VM running in $RUN"; return 0; }
  vm_ssh -o ConnectTimeout=5 'systemctl poweroff' >/dev/null 2>&1 || true
  while kill -0 "$pid" 2>/dev/null && [ $i -lt 120 ]; do sleep 1; i=$((i + 1)); done
  if kill -0 "$pid" 2>/dev/null; then
    log "the guest did not power off in 120 s; killing QEMU (pid $pid)"
    kill "$pid"
  fi
  rm -f "$RUN/qemu.pid"
  log "stopped"
}

case "${1:-}" in
  build) cmd_build ;;
  start) cmd_start ;;
  wait) image_dir >/dev/null; wait_ssh "${2:-900}" ;;
  ssh) shift; image_dir >/dev/null; vm_ssh "$@" ;;
  reboot) image_dir >/dev/null; cmd_reboot ;;
  stop) cmd_stop ;;
  status) if pid=$(qemu_pid); then echo "running (pid $pid, 127.0.0.1:$PORT, run dir $RUN)"; else echo "not running"; exit 1; fi ;;
  ssh-config) image_dir >/dev/null; echo "$RUN/ssh_config" ;;
  *) echo "usage: $0 build|start|wait [S]|ssh [CMD...]|reboot|stop|status|ssh-config" >&2; exit 2 ;;
esac
