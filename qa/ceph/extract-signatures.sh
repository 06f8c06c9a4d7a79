#!/bin/sh
# Ground truth for the Ceph adapter (issue 6): the ObjectStore overrides of Debian's
# Ceph 16.2.15 OSD, as its own binary exports them (nm -DC: demangled, exact types).
# MemStore's and BlueStore's public methods are the Pacific ObjectStore interface the
# adapter must override with identical signatures; the adapter's test will compare its
# own symbols against this list.
# Usage: qa/ceph/extract-signatures.sh [OSD_BINARY] > qa/ceph/pacific-memstore-symbols.txt
# Needs Debian's ceph-osd (apt-get install ceph-osd).
set -eu
OSD=${1:-/usr/bin/ceph-osd}
[ -x "$OSD" ] || { echo "extract-signatures: $OSD not found (apt-get install ceph-osd)" >&2; exit 1; }
echo "# nm -DC --defined-only $OSD | MemStore:: methods ($(dpkg-query -W -f '${Version}' ceph-osd 2>/dev/null || echo unknown))"
nm -DC --defined-only "$OSD" | sed -n 's/^[0-9a-f]* [A-Za-z] \(MemStore::[a-z].*\)$/\1/p' |
  grep -v '^MemStore::[A-Z]' | sort -u
