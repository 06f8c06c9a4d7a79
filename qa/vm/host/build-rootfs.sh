#!/bin/bash
# Builds (or finds in the cache) the VM host image of qa/vm/host/vmhost.sh: a Debian 12
# root file system made by mmdebstrap --variant=minbase from packages.txt, customized by
# customize.sh (sshd with a key for root, DHCP, null_blk zoned, Ceph pinned to 16.2.15),
# packed into a raw ext4 image with mkfs.ext4 -d, plus the root file system's own kernel
# and initrd (the VM boots them with -kernel/-initrd, root=/dev/vda).
#
# Cache: $SMRSTORE_VMHOST_CACHE (default /var/tmp/smrstore-vmhost)/img-KEY/, KEY a hash of
# packages.txt, this script, customize.sh and ceph-pin.pref (comment lines left out): a
# later run with the same files reuses the image. Each cache dir has its own SSH key (id_ed25519), made before the
# build and put into root's authorized_keys. Prints the cache dir on the last line.
# Env: SMRSTORE_VMHOST_MIRROR  sources for mmdebstrap (default: Debian bookworm, -updates,
#                              -security from deb.debian.org)
#      SMRSTORE_VMHOST_IMAGE_SIZE  size of the ext4 image (default 6G)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${SMRSTORE_VMHOST_CACHE:-/var/tmp/smrstore-vmhost}
SIZE=${SMRSTORE_VMHOST_IMAGE_SIZE:-6G}
log() { echo "vmhost-build: $*" >&2; }
die() { echo "vmhost-build: FAIL: $*" >&2; exit 1; }

key=$(cat "$HERE/packages.txt" "$HERE/build-rootfs.sh" "$HERE/customize.sh" "$HERE/ceph-pin.pref" |
      grep -v '^[[:space:]]*#' | sha256sum | cut -c1-16)
IMG=$CACHE/img-$key
if [ -e "$IMG/ok" ]; then
  log "cached image $IMG (built $(cat "$IMG/ok"))"
  echo "$IMG"
  exit 0
fi

[ "$(id -u)" = 0 ] || die "must run as root (mmdebstrap root mode, mkfs.ext4 -d keeps owners)"
for c in mmdebstrap mkfs.ext4 ssh-keygen qemu-img; do
  command -v "$c" >/dev/null || die "$c missing (run scripts/install-deps.sh vmhost)"
done

t0=$(date +%s)
mkdir -p "$CACHE"
TMP=$(mktemp -d "$CACHE/build-$key.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
ssh-keygen -q -t ed25519 -N '' -C "smrstore-vmhost-$key" -f "$TMP/id_ed25519"

pkgs=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$HERE/packages.txt" | tr -d ' \t' | paste -sd, -)
mirrors=()
if [ -n "${SMRSTORE_VMHOST_MIRROR:-}" ]; then
  mirrors=("$SMRSTORE_VMHOST_MIRROR")
else
  mirrors=("deb http://deb.debian.org/debian bookworm main"
           "deb http://deb.debian.org/debian bookworm-updates main"
           "deb http://deb.debian.org/debian-security bookworm-security main")
fi
log "mmdebstrap --variant=minbase bookworm: $pkgs (log: $TMP/mmdebstrap.log)"
if ! mmdebstrap --mode=root --variant=minbase --include="$pkgs" \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    --aptopt='APT::Install-Recommends "false"' \
    --skip=cleanup/apt/lists \
    --setup-hook="mkdir -p \"\$1/etc/apt/preferences.d\" && cp '$HERE/ceph-pin.pref' \"\$1/etc/apt/preferences.d/smrstore-ceph-pin.pref\"" \
    --customize-hook="'$HERE/customize.sh' \"\$1\" '$TMP/id_ed25519.pub'" \
    bookworm "$TMP/root" "${mirrors[@]}" </dev/null >"$TMP/mmdebstrap.log" 2>&1; then
  tail -n 30 "$TMP/mmdebstrap.log" >&2
  die "mmdebstrap failed (last lines above)"
fi
t1=$(date +%s)

# shellcheck disable=SC2012
kver=$(ls "$TMP/root/lib/modules" | sort -V | tail -n1)
cp "$TMP/root/boot/vmlinuz-$kver" "$TMP/vmlinuz"
cp "$TMP/root/boot/initrd.img-$kver" "$TMP/initrd.img"
echo "$kver" >"$TMP/kernel-version"
# shellcheck disable=SC2016
chroot "$TMP/root" dpkg-query -W -f='${Package} ${Version}\n' >"$TMP/packages.lock"
truncate -s "$SIZE" "$TMP/rootfs.img"
mkfs.ext4 -q -F -L smrvm-root -d "$TMP/root" "$TMP/rootfs.img" ||
  die "mkfs.ext4 -d of the root file system failed"
rm -rf "$TMP/root"
mv "$TMP/mmdebstrap.log" "$TMP/build.log"
t2=$(date +%s)
echo "$(date -u +%FT%TZ): mmdebstrap $((t1 - t0)) s, image $((t2 - t1)) s" >"$TMP/ok"
rm -rf "$IMG"
mv "$TMP" "$IMG"
trap - EXIT
log "built $IMG in $((t2 - t0)) s (mmdebstrap $((t1 - t0)) s, mkfs.ext4 -d $((t2 - t1)) s);" \
    "kernel $kver, ceph-osd $(awk '$1 == "ceph-osd" { print $2 }' "$IMG/packages.lock")," \
    "$(du -sh --apparent-size "$IMG/rootfs.img" | cut -f1) image ($(du -sh "$IMG/rootfs.img" | cut -f1) used)"
echo "$IMG"
