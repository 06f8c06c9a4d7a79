#!/bin/sh
# SMRStore's ObjectStore overrides must have exactly the Pacific signatures that Debian's
# ceph-osd 16.2.15 exports for MemStore (ctest "ceph_overrides").
#   qa/ceph/check-overrides.sh LIBSMR_OBJECTSTORE.a [OSD_BINARY]
# Ground truth: `nm -DC --defined-only /usr/bin/ceph-osd` when Debian's ceph-osd is
# installed (it must then also equal the committed qa/ceph/pacific-memstore-symbols.txt),
# else the committed list. MemStore's own helpers that are not ObjectStore methods
# (dump, dump_all, get_collection) are left out. Every other MemStore method must exist on
# SMRStore with the identical demangled signature, and SMRStore may have no other method.
set -eu
lib=${1:?usage: check-overrides.sh LIBSMR_OBJECTSTORE.a [OSD_BINARY]}
osd=${2:-/usr/bin/ceph-osd}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
committed=$here/pacific-memstore-symbols.txt
grep -v '^#' "$committed" > "$tmp/committed"
if [ -x "$osd" ]; then
  "$here/extract-signatures.sh" "$osd" | grep -v '^#' > "$tmp/memstore"
  if ! cmp -s "$tmp/memstore" "$tmp/committed"; then
    echo "check-overrides: $osd's MemStore symbols differ from $committed:"
    diff "$tmp/committed" "$tmp/memstore" || true
    exit 1
  fi
  src="$osd"
else
  cp "$tmp/committed" "$tmp/memstore"
  src="$committed (no $osd here)"
fi
grep -v -e '^MemStore::dump(' -e '^MemStore::dump_all(' -e '^MemStore::get_collection(' \
  "$tmp/memstore" | sort -u > "$tmp/want"
nm -C --defined-only "$lib" | sed -n 's/^[0-9a-f]* [TW] \(SMRStore::[a-z][^(]*(.*\)$/\1/p' |
  sed 's/^SMRStore::/MemStore::/' | sort -u > "$tmp/have"
if ! cmp -s "$tmp/want" "$tmp/have"; then
  echo "check-overrides: SMRStore's methods differ from Pacific's (MemStore, from $src)."
  echo "  '<' only in Pacific, '>' only in SMRStore:"
  diff "$tmp/want" "$tmp/have" | grep '^[<>]' | sed 's/MemStore::/::/'
  exit 1
fi
echo "check-overrides: SMRStore overrides all $(wc -l < "$tmp/want") Pacific ObjectStore methods MemStore overrides, with identical signatures (from $src)"
