#!/bin/sh
# Reproducer of an engine bug found by the crash sweep's power cuts (qa/crash/README.md,
# "Findings"): after a metadata checkpoint, MetadataJournal::Checkpoint
# (store/metadata_journal.cc) resets the obsolete journal zones one by one and only then
# commits them as free. A crash between the first reset and that commit leaves the
# metadata saying a journal zone holds committed data that the drive no longer has, and
# mount refuses the store:
#   Corruption: DRIVE: zone N write pointer 0 is behind committed data ending at ...
# (zone/zone_manager.cc frees an emptied zone only if it is not a journal zone). Usage:
#   qa/crash/repro_journal_release.sh BUILD_DIR     exit 0 = the bug is gone, 1 = reproduced
# ~30 s: 3000 omap updates on two drives (every commit adds a journal record, so
# checkpoints free journal zones on both drives), once with the device calls traced to
# find two consecutive zone resets, then again from scratch with the power cut between them.
set -eu
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
T=$build/src/tools/smrstore-tool
H=$build/qa/crash/smrstore-crash
W=$(mktemp -d "${TMPDIR:-/tmp}/smrstore-repro.XXXXXX")
trap 'rm -rf "$W"' EXIT
fresh() {
  rm -rf "$W/st" "$W"/d*.img
  $T mkfs "$W/st" "emu:$W/d0.img?zones=24&zone_mib=2&conv=1" \
    "emu:$W/d1.img?zones=24&zone_mib=2&conv=1" >/dev/null
  $T mkcoll "$W/st" 1.0_head >/dev/null
  echo hello >"$W/f" && $T put "$W/st" 1.0_head o00 "$W/f" >/dev/null
}
python3 -c '
for i in range(3000):
    print("omap 1.0_head 6f3030 %s %s" % (("k%d" % (i % 50)).encode().hex(), "ab" * 2000))
' >"$W/ops.txt"
fresh
$H powercut "$W/st" --cut-at 0 --depth 1 --trace 1 <"$W/ops.txt" >"$W/out.txt" 2>"$W/trace.txt"
cut=$(awk '$3 == "reset" { if (prev == NR - 1) { print $2; exit } prev = NR }' "$W/trace.txt")
[ -n "$cut" ] || { echo "no two consecutive zone resets: nothing to cut between"; exit 0; }
grep -B1 "^call $cut " "$W/trace.txt" | sed 's/^/  /'
fresh
$H powercut "$W/st" --cut-at "$cut" --depth 1 <"$W/ops.txt" | tail -1
if $T fsck "$W/st"; then
  echo "PASS: the store mounts and fsck is clean after a power cut between the resets"
else
  echo "REPRODUCED: a power cut between two journal-zone resets leaves an unmountable store"
  exit 1
fi
