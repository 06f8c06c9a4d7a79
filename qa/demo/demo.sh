#!/bin/sh
# make demo: an emulated HM-SMR drive at work. Creates a drive with the geometry of a real
# one (256 MiB zones, ~1 % conventional, 128 open zones max), writes objects' worth of
# data into sequential zones at their write pointers, reads it back verified, drives zones
# through finish/reset, and prints the zone report. Data stays in $SMRSTORE_DEMO_DIR.
set -eu
TOOL=${1:-build/src/tools/smrstore-tool}
DIR=${SMRSTORE_DEMO_DIR:-/var/tmp/smrstore-demo}
mkdir -p "$DIR"
IMG="$DIR/drive0.img"
rm -f "$IMG"
SPEC="emu:$IMG?zones=100&zone_mib=256&max_open=128"
step() { printf '\n== %s\n' "$*"; }

step "create an emulated host-managed SMR drive: $SPEC"
$TOOL mkdev "$SPEC"
step "write: 256 MiB fills zone 1, 100 MiB half-fills zone 2, 4 MiB into zone 3"
$TOOL write "emu:$IMG" --zone 1 --length 256M --seed 1
$TOOL write "emu:$IMG" --zone 2 --length 100M --seed 2
$TOOL write "emu:$IMG" --zone 3 --length 4M --seed 3
step "a write that is not at the write pointer is refused, as a real drive refuses it"
$TOOL write "emu:$IMG" --offset 512M --length 4K || true
step "read back and verify every byte"
$TOOL read "emu:$IMG" --offset 256M --length 256M --verify-seed 1
$TOOL read "emu:$IMG" --offset 512M --length 100M --verify-seed 2
step "finish zone 3 (no more writes), reset zone 1 (space reclaimed)"
$TOOL zone "emu:$IMG" finish 3
$TOOL zone "emu:$IMG" reset 1
step "zone report (first 8 of 100 zones)"
$TOOL zones "emu:$IMG" --count 8
step "drive summary"
$TOOL zones "emu:$IMG" --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
d, s = r["device"], r["summary"]
conds = ", ".join("%s=%d" % (k, v) for k, v in s.items()
                  if v and k not in ("zones_reported", "written_bytes"))
print("%d zones of %d MiB, %d MiB below write pointers; %s"
      % (d["nr_zones"], d["zone_size"] >> 20, s["written_bytes"] >> 20, conds))'
echo
echo "image: $IMG ($(du -h "$IMG" | cut -f1) on disk for $(($(stat -c %s "$IMG") >> 30)) GiB of zones)"
