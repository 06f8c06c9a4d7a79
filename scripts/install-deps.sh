#!/bin/sh
# Installs what smrstore needs to build, test and demo on Debian 12, as root.
# Idempotent: packages already installed are not touched, and apt runs only when one is
# missing. Usage: scripts/install-deps.sh [build|all|vm|ceph|web]  (default all = build +
# ceph + web: everything `make test` and `make demo` need except the VM)
#   vm: only what qa/vm/run.sh (make test-vm) and qa/vm/peers.sh (make peers) need to run
#       on real kernel zoned devices in a QEMU VM: QEMU, kernel, busybox, and the peer file
#       systems' tools (mkfs.f2fs, mkfs.btrfs, mkfs.xfs, dmsetup); not in the default set.
set -eu

BUILD_PKGS="g++ cmake ninja-build make pkg-config ccache libzbd-dev libgtest-dev librocksdb-dev libboost-dev librados-dev python3 python3-matplotlib"
# Debian's Ceph 16.2.15: the daemons of the test/demo cluster, the libraries the adapter
# links (librados2's libceph-common, libradospp-dev's buffer.h), python3-rados, radosgw and
# an S3 client for the trace captures, FastAPI/uvicorn (pydantic v1) for the mgr module.
CEPH_PKGS="ceph-mon ceph-mgr ceph-osd ceph-common python3-rados radosgw librados-dev libradospp-dev python3-boto3 python3-fastapi python3-uvicorn python3-pytest python3-httpx python3-prometheus-client mypy"
# The web console: Node.js + npm build it, Debian's Chromium runs the Playwright tests.
WEB_PKGS="nodejs chromium"
VM_PKGS="qemu-system-x86 linux-image-amd64 busybox-static kmod util-linux cpio binutils f2fs-tools btrfs-progs xfsprogs e2fsprogs dmsetup"

case "${1:-all}" in
  vm) want="$VM_PKGS" ;;
  build) want="$BUILD_PKGS" ;;
  ceph) want="$CEPH_PKGS" ;;
  web) want="$WEB_PKGS" ;;
  all) want="$BUILD_PKGS $CEPH_PKGS $WEB_PKGS" ;;
  *) echo "install-deps: unknown set '$1' (build|all|vm|ceph|web)" >&2; exit 2 ;;
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
# Node.js must be new enough for Vite (npm 10+); Debian 12's own nodejs is 18 with npm 9.
case "${1:-all}" in
  web|all)
    if ! command -v npm >/dev/null 2>&1; then
      echo "install-deps: npm missing after installing nodejs" >&2; exit 1
    fi ;;
esac
