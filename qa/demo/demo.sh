#!/bin/sh
# make demo: an emulated HM-SMR drive at work. Creates a drive with the geometry of a real
# one (256 MiB zones, ~1 % conventional, 128 open zones max), writes objects' worth of
# data into sequential zones at their write pointers, reads it back verified, drives zones
# through finish/reset, and prints the zone report; then builds a two-drive store on
# emulated drives and stores, reads back and checks objects. Data stays in
# $SMRSTORE_DEMO_DIR.
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

STORE="$DIR/store"
rm -rf "$STORE" "$DIR/sd0.img" "$DIR/sd1.img"
step "a store on two emulated HM-SMR drives (metadata in RocksDB under $STORE)"
$TOOL mkfs "$STORE" "emu:$DIR/sd0.img?zones=40&zone_mib=256" "emu:$DIR/sd1.img?zones=40&zone_mib=256"
$TOOL mkcoll "$STORE" 1.0_head
head -c 50000000 /dev/urandom > "$DIR/big.bin"
step "put a 50 MB object (records striped over both drives), a tiny one (kept inline in RocksDB), an xattr and an omap key"
$TOOL put "$STORE" 1.0_head big "$DIR/big.bin"
printf 'small object' > "$DIR/small.bin" && $TOOL put "$STORE" 1.0_head small "$DIR/small.bin"
$TOOL setxattr "$STORE" 1.0_head big owner demo
$TOOL setomapval "$STORE" 1.0_head big index-key index-value
step "get it back and compare"
rm -f "$DIR/big.out" && $TOOL get "$STORE" 1.0_head big "$DIR/big.out" && cmp "$DIR/big.bin" "$DIR/big.out" && echo "50 MB object: identical"
$TOOL ls "$STORE" 1.0_head
$TOOL stat "$STORE" 1.0_head big
step "fsck --deep (every record read and checked) and df"
$TOOL fsck "$STORE" --deep
$TOOL df "$STORE"
$TOOL zones "$STORE" --count 6
rm -f "$DIR/big.bin" "$DIR/big.out" "$DIR/small.bin"
