#!/bin/sh
# Installs what smrstore needs to build, test and demo on Debian 12, as root.
# Idempotent: packages already installed are not touched, and apt runs only when one is
# missing. Usage: scripts/install-deps.sh [build|all|vm|vmhost|ceph|web]  (default all = build +
# ceph + web: everything `make test` and `make demo` need except the VM)
#   vm: only what qa/vm/run.sh (make test-vm) and qa/vm/peers.sh (make peers) need to run
#       on real kernel zoned devices in a QEMU VM: QEMU, kernel, busybox, and the peer file
#       systems' tools (mkfs.f2fs, mkfs.btrfs, mkfs.xfs, dmsetup); not in the default set.
#   vmhost: what qa/vm/host/vmhost.sh and qa/ansible/ (make test-ansible) need: QEMU and
#       qemu-img, mmdebstrap for the VM's Debian root file system, mkfs.ext4 -d, an SSH
#       client, Ansible 7.7 (ansible-core 2.14) with ansible-lint; not in the default set.
set -eu

# clang + libclang-rt-14-dev (libFuzzer and the sanitizer runtimes, only recommended by
# clang): Debian's clang 14 builds the libFuzzer targets (src/os/smrstore/fuzz/, qa/fuzz/run.sh).
# nlohmann-json3-dev: the JSON library of the C++ side (store/stats_schema_test.cc reads
# mgr-module/smrstore/stats_schema.json with it).
BUILD_PKGS="g++ cmake ninja-build make pkg-config ccache libzbd-dev libgtest-dev librocksdb-dev libboost-dev librados-dev nlohmann-json3-dev python3 python3-matplotlib clang libclang-rt-14-dev nbdkit-plugin-dev nbdkit python3-libnbd"
# Debian's Ceph 16.2.15: the daemons of the test/demo cluster, the libraries the adapter
# links (librados2's libceph-common, libradospp-dev's buffer.h), python3-rados, radosgw and
# an S3 client for the trace captures, FastAPI/uvicorn (pydantic v1) for the mgr module,
# python3-jsonschema for its tests (documents against mgr-module/smrstore/stats_schema.json),
# python3-seccomp for the preload check under systemd's MemoryDenyWriteExecute filter
# (qa/ceph/mdwe_exec.py). prometheus (2.42) for promtool, which checks and unit-tests the
# module's alert rules (mgr-module/monitoring/check.sh; the package is the only one with
# promtool; on a systemd host it also enables a Prometheus server on :9090, `systemctl
# disable --now prometheus` if unwanted), python3-yaml for that script. libnbd-bin (nbdfuse)
# and fuse3 (fusermount3) for qa/perf/drive_bench.sh (make drive-bench), which serves
# BlueStore's CMR drives as FUSE files through nbdkit and the project's timing filter.
# python3-rbd: librbd for qa/ceph/osdqa.py rbd (the OSD client suite, drive-bench).
CEPH_PKGS="ceph-mon ceph-mgr ceph-osd ceph-common python3-rados radosgw librados-dev libradospp-dev python3-boto3 python3-fastapi python3-uvicorn python3-pytest python3-jsonschema python3-httpx python3-prometheus-client mypy python3-seccomp prometheus python3-yaml libnbd-bin fuse3 python3-rbd"
# The web console: Node.js + npm build it, Debian's Chromium runs the Playwright tests.
WEB_PKGS="nodejs chromium"
VM_PKGS="qemu-system-x86 linux-image-amd64 busybox-static kmod util-linux cpio binutils f2fs-tools btrfs-progs xfsprogs e2fsprogs dmsetup nbdkit"
# The systemd host VM (qa/vm/host/) and the Ansible roles tested against it (ansible/): the
# VM boots the kernel and initrd of its own root file system, so no host kernel is needed.
VMHOST_PKGS="qemu-system-x86 qemu-utils mmdebstrap e2fsprogs openssh-client ansible ansible-core ansible-lint"

case "${1:-all}" in
  vm) want="$VM_PKGS" ;;
  vmhost) want="$VMHOST_PKGS" ;;
  build) want="$BUILD_PKGS" ;;
  ceph) want="$CEPH_PKGS" ;;
  web) want="$WEB_PKGS" ;;
  all) want="$BUILD_PKGS $CEPH_PKGS $WEB_PKGS" ;;
  *) echo "install-deps: unknown set '$1' (build|all|vm|vmhost|ceph|web)" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -Eq "(install|hold) ok installed"; then
    missing="$missing $p"
  fi
done

# Ceph must be the release whose ABI the preload library and the adapter are checked against
# (layouts, vtable slots, signatures read from this exact build). A registry that serves a
# newer Ceph must not silently get it installed: refuse with the version it offers.
CEPH_VERSION_GLOB="16.2.15*"
ceph_pinned() {
  case "$1" in ceph-*|radosgw|librados*|libradospp-dev|python3-rados|python3-rbd|librbd*|rbd*) return 0 ;; esac
  return 1
}

apt_update() {
  # A mirror caught mid-sync answers with mismatched indexes; one retry after a pause.
  if ! apt-get update -qq 2>"$apt_err"; then
    echo "install-deps: apt-get update failed, retrying once in 10 s:" >&2
    sed 's/^/  /' "$apt_err" >&2
    sleep 10
    apt-get update -qq 2>"$apt_err" || {
      echo "install-deps: apt-get update failed again; the registry answered:" >&2
      sed 's/^/  /' "$apt_err" >&2
      exit 1
    }
  fi
}

if [ -n "$missing" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing Debian packages:$missing (run as root to install them)" >&2
    exit 1
  fi
  echo "install-deps: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt_err=$(mktemp)
  trap 'rm -f "$apt_err"' EXIT
  apt_update
  spec=""
  for p in $missing; do
    cand=$(apt-cache policy "$p" 2>/dev/null | sed -n 's/^ *Candidate: //p')
    if [ -z "$cand" ] || [ "$cand" = "(none)" ]; then
      echo "install-deps: package '$p' is not offered by the configured registries" \
           "(apt-cache policy $p: candidate ${cand:-none})" >&2
      exit 1
    fi
    if ceph_pinned "$p"; then
      # shellcheck disable=SC2254
      case "$cand" in
        $CEPH_VERSION_GLOB) ;;
        *) echo "install-deps: the registry offers $p $cand, but smrstore is built and" \
                "checked against Ceph $CEPH_VERSION_GLOB only; refusing to install it" >&2
           exit 1 ;;
      esac
    fi
    spec="$spec $p"
  done
  # shellcheck disable=SC2086
  if ! apt-get install -y -qq --no-install-recommends $spec >/dev/null 2>"$apt_err"; then
    echo "install-deps: apt-get install$spec failed; apt answered:" >&2
    grep -v '^debconf: ' "$apt_err" | sed 's/^/  /' >&2
    exit 1
  fi
fi
# Installed Ceph packages are held, so that a later `apt-get upgrade` cannot replace the
# binaries the Ceph adapter was checked against (doc/ceph-integration.md, "Ceph package updates"). `apt-mark unhold`
# undoes it.
held=""
for p in $want; do
  if ceph_pinned "$p" && dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -Eq "(install|hold) ok installed"; then
    held="$held $p"
  fi
done
if [ -n "$held" ] && [ "$(id -u)" = 0 ]; then
  # shellcheck disable=SC2086
  apt-mark hold $held >/dev/null
fi
# Node.js must be new enough for Vite (npm 10+); Debian 12's own nodejs is 18 with npm 9.
case "${1:-all}" in
  web|all)
    if ! command -v npm >/dev/null 2>&1; then
      echo "install-deps: npm missing after installing nodejs" >&2; exit 1
    fi ;;
esac
