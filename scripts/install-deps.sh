#!/bin/sh
# Installs what smrstore needs to build, test and demo on Debian 12, as root.
# Idempotent: packages already installed are not touched, and apt runs only when one is
# missing. Usage: scripts/install-deps.sh [build|all]  (default all)
set -eu

BUILD_PKGS="g++ cmake ninja-build make pkg-config ccache libzbd-dev libgtest-dev librocksdb-dev libboost-dev python3 python3-matplotlib"

want="$BUILD_PKGS"

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
