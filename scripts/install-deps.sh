#!/bin/sh
# Installs what smrstore needs to build, test and demo on Debian 12, as root.
# Idempotent: packages already installed are not touched, and apt runs only when one is
# missing. Usage: scripts/install-deps.sh [build|all|vm]  (default all)
#   vm: only what qa/vm/run.sh (make test-vm) and qa/vm/peers.sh (make peers) need to run
#       on real kernel zoned devices in a QEMU VM: QEMU, kernel, busybox, and the peer file
#       systems' tools (mkfs.f2fs, mkfs.btrfs, mkfs.xfs, dmsetup); not in the default set.
set -eu

BUILD_PKGS="g++ cmake ninja-build make pkg-config ccache libzbd-dev libgtest-dev librocksdb-dev libboost-dev python3 python3-matplotlib"
VM_PKGS="qemu-system-x86 linux-image-amd64 busybox-static kmod util-linux cpio binutils f2fs-tools btrfs-progs xfsprogs e2fsprogs dmsetup"

case "${1:-all}" in
  vm) want="$VM_PKGS" ;;
  *) want="$BUILD_PKGS" ;;
esac

missing=""
for p in $want; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -n "$missing" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing Debian packages:$missing (run as root to install them)" >&2
    exit 1
  fi
  echo "install-deps: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
