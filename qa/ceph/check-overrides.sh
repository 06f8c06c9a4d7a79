#!/bin/sh
# SMRStore's ObjectStore overrides must have exactly the Pacific signatures that Debian's
# ceph-osd 16.2.15 exports for MemStore (ctest "ceph_overrides").
#   qa/ceph/check-overrides.sh LIBSMR_OBJECTSTORE.a [OSD_BINARY]
# Ground truth: `nm -DC --defined-only /usr/bin/ceph-osd` when Debian's ceph-osd is
# installed (it must then also equal the committed qa/ceph/pacific-memstore-symbols.txt),
# else the committed list. MemStore's own helpers that are not ObjectStore methods
# (dump, dump_all, get_collection) are left out. Every other MemStore method must exist on
# SMRStore with the identical demangled signature; SMRStore's other methods must be
# ObjectStore overrides BlueStore has, with BlueStore's exact signature (e.g.
# collect_metadata, get_default_device_class). The slot-by-slot vtable comparison is
# qa/ceph/abi/check-abi.sh.
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
missing=$(comm -23 "$tmp/want" "$tmp/have")
extra=$(comm -13 "$tmp/want" "$tmp/have")
bad_extra=
if [ -n "$extra" ]; then
  if [ -x "$osd" ]; then
    nm -DC --defined-only "$osd" | sed -n 's/^[0-9a-f]* [TW] BlueStore::\([a-z][^(]*(.*\)$/MemStore::\1/p' |
      sort -u > "$tmp/bluestore"
    bad_extra=$(printf '%s\n' "$extra" | comm -23 - "$tmp/bluestore")
  else
    bad_extra=$extra
  fi
fi
if [ -n "$missing" ] || [ -n "$bad_extra" ]; then
  echo "check-overrides: SMRStore's methods differ from Pacific's (MemStore + BlueStore, from $src)."
  [ -z "$missing" ] || { echo "  MemStore overrides SMRStore lacks:"; printf '%s\n' "$missing" | sed 's/MemStore::/    ::/'; }
  [ -z "$bad_extra" ] || { echo "  SMRStore methods that are no Pacific BlueStore override:"; printf '%s\n' "$bad_extra" | sed 's/MemStore::/    ::/'; }
  exit 1
fi
n_extra=$(printf '%s' "$extra" | grep -c . || true)
echo "check-overrides: SMRStore overrides all $(wc -l < "$tmp/want") Pacific ObjectStore methods MemStore overrides, with identical signatures, plus $n_extra BlueStore overrides (from $src)"
