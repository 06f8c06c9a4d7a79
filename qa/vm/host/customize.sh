#!/bin/sh
# mmdebstrap --customize-hook of qa/vm/host/build-rootfs.sh: makes the freshly installed
# Debian 12 root file system in $1 a bootable VM host (root on /dev/vda, DHCP on the QEMU
# user network, sshd with the cache dir's key for root, null_blk zoned at every boot) and
# checks what the image must have: Ceph 16.2.15 and virtio_blk in the initrd.
# Usage (by mmdebstrap): customize.sh ROOTDIR PUBKEY
set -eu
R=$1
PUBKEY=$2
die() { echo "customize: FAIL: $*" >&2; exit 1; }

# Ceph must be the release the preload library is checked against (scripts/install-deps.sh).
for p in ceph-mon ceph-mgr ceph-osd ceph-common ceph-base python3-rados librados2; do
  # shellcheck disable=SC2016
  v=$(chroot "$R" dpkg-query -W -f='${Version}' "$p" 2>/dev/null) || die "$p is not installed"
  case "$v" in
    16.2.15*) ;;
    *) die "the registry gave $p $v, but smrstore is checked against Ceph 16.2.15* only; refusing it" ;;
  esac
done
chroot "$R" apt-mark hold ceph-mon ceph-mgr ceph-osd ceph-common ceph-base python3-rados librados2 >/dev/null

# The guest boots the kernel and initrd of this root file system: the initrd must bring
# up /dev/vda.
# shellcheck disable=SC2012
kver=$(ls "$R/lib/modules" | sort -V | tail -n1)
[ -r "$R/boot/vmlinuz-$kver" ] || die "no kernel /boot/vmlinuz-$kver in the root file system"
[ -r "$R/boot/initrd.img-$kver" ] || die "no initrd /boot/initrd.img-$kver in the root file system"
chroot "$R" lsinitramfs "/boot/initrd.img-$kver" | grep -q '/virtio_blk\.ko' ||
  die "/boot/initrd.img-$kver has no virtio_blk module"

echo smrvm >"$R/etc/hostname"
cat >"$R/etc/hosts" <<'HOSTS'
127.0.0.1	localhost
10.0.2.15	smrvm
::1		localhost ip6-localhost ip6-loopback
HOSTS
echo '/dev/vda / ext4 defaults,errors=remount-ro 0 1' >"$R/etc/fstab"

# DHCP on the QEMU user network (10.0.2.15), systemd-networkd.
mkdir -p "$R/etc/systemd/network"
cat >"$R/etc/systemd/network/20-qemu.network" <<'NET'
[Match]
Name=e*

[Network]
DHCP=ipv4
NET
chroot "$R" systemctl enable systemd-networkd.service >/dev/null 2>&1
# No timers that compete with the tests for the two TCG vCPUs; no network to reach anyway.
for t in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer; do
  chroot "$R" systemctl mask "$t" >/dev/null 2>&1 || true
done

# root logs in with the cache dir's key only.
mkdir -p "$R/root/.ssh"
chmod 700 "$R/root/.ssh"
cp "$PUBKEY" "$R/root/.ssh/authorized_keys"
chmod 600 "$R/root/.ssh/authorized_keys"
cat >"$R/etc/ssh/sshd_config.d/smrstore-vm.conf" <<'SSHD'
PermitRootLogin prohibit-password
PasswordAuthentication no
UseDNS no
SSHD

# A zoned null_blk at every boot (its data is lost at each reboot: OSD drives that must
# survive one are the QEMU NVMe ZNS namespaces).
echo null_blk >"$R/etc/modules-load.d/null_blk.conf"
echo 'options null_blk nr_devices=1 zoned=1 zone_size=64 zone_nr_conv=2 gb=2 memory_backed=1' \
  >"$R/etc/modprobe.d/null_blk.conf"
