#!/usr/bin/env python3
"""Writes dm-zoned metadata for a single host-managed zoned device, as `dmzadm --format`
would (dm-zoned-tools is not packaged in Debian 12). Written from the on-disk format the
kernel documents and checks (Documentation/admin-guide/device-mapper/dm-zoned.rst,
drivers/md/dm-zoned-metadata.c: dmz_check_sb, dmz_load_mapping, dmz_get_bitmap), not from
dmzadm's code.

Layout (metadata version 2, one device): two metadata sets, each starting at the first
block of a conventional zone: set 0 in the first conventional zone, set 1 nr_meta_zones
zones later. A set is
    block 0                 super block (512 B used, rest of the 4 KiB block zero)
    1 .. nr_map_blocks      chunk mapping table: (dzone_id, bzone_id) le32 pairs, 512 per
                            block, all unmapped (0xffffffff) on a fresh device
    then nr_bitmap_blocks   block validity bitmaps, zone_nr_bitmap_blocks per zone, by zone
                            id, all zero (no valid block)
Super block fields (little endian): magic 'DZBD' (0x445a4244) u32, version u32, gen u64,
sb_block u64 (this set's first block, in 4 KiB blocks), nr_meta_blocks u32,
nr_reserved_seq u32, nr_chunks u32, nr_map_blocks u32, nr_bitmap_blocks u32, crc u32,
label[32], dmz_uuid[16], dev_uuid[16], zero padding to 512. crc = the kernel's
crc32_le(seed = gen) over the whole 4 KiB block with the crc field zero.
The kernel accepts nr_chunks <= usable zones - 2 x metadata zones - reserved sequential
zones; the target's size is nr_chunks zones.

Output: DIR/set0.img and DIR/set1.img (to be written at the printed byte offsets of the
device) and the dm table line on stdout as  "OFFSET0 OFFSET1 SECTORS".
"""
import argparse
import os
import struct
import uuid
import zlib

BLOCK = 4096
MAGIC = 0x445A4244  # 'D' 'Z' 'B' 'D'
VERSION = 2


def crc32_le(seed: int, data: bytes) -> int:
    """The kernel's crc32_le: reflected CRC-32 (0xedb88320) without pre/post inversion.
    zlib.crc32 inverts before and after, so invert around it."""
    return (~zlib.crc32(data, (~seed) & 0xFFFFFFFF)) & 0xFFFFFFFF


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--zones", type=int, required=True, help="zones on the device")
    ap.add_argument("--zone-mib", type=int, required=True)
    ap.add_argument("--conv", type=int, required=True, help="conventional zones at the start")
    ap.add_argument("--reserved-seq", type=int, default=2,
                    help="sequential zones reserved for reclaim (default 2)")
    ap.add_argument("--label", default="smrstore-peers")
    ap.add_argument("--gen", type=int, default=1)
    ap.add_argument("--out", required=True, help="directory for set0.img / set1.img")
    a = ap.parse_args()

    zone_blocks = a.zone_mib * (1 << 20) // BLOCK
    if zone_blocks & (zone_blocks - 1):
        raise SystemExit("dmz_format: the zone size must be a power of two")
    bitmap_bytes = zone_blocks // 8
    zone_bitmap_blocks = max(1, bitmap_bytes // BLOCK)
    nr_bitmap_blocks = a.zones * zone_bitmap_blocks
    # Metadata zones and chunks depend on each other only through nr_map_blocks: iterate.
    nr_chunks = a.zones
    while True:
        nr_map_blocks = (nr_chunks + 511) // 512
        nr_meta_blocks = 1 + nr_map_blocks + nr_bitmap_blocks
        nr_meta_zones = (nr_meta_blocks + zone_blocks - 1) // zone_blocks
        want = a.zones - 2 * nr_meta_zones - a.reserved_seq
        if want == nr_chunks:
            break
        nr_chunks = want
    if nr_chunks <= 0:
        raise SystemExit("dmz_format: the device is too small")
    if 2 * nr_meta_zones >= a.conv:
        raise SystemExit("dmz_format: need more than %d conventional zones (two metadata sets"
                         " of %d zone(s) each, plus random zones for buffering)"
                         % (2 * nr_meta_zones, nr_meta_zones))

    dmz_uuid = uuid.uuid4().bytes
    dev_uuid = uuid.uuid4().bytes
    os.makedirs(a.out, exist_ok=True)
    offsets = []
    for s in (0, 1):
        zone = s * nr_meta_zones  # set 0 in conventional zone 0, set 1 after set 0's zones
        sb_block = zone * zone_blocks
        head = struct.pack("<IIQQIIIII", MAGIC, VERSION, a.gen, sb_block, nr_meta_blocks,
                           a.reserved_seq, nr_chunks, nr_map_blocks, nr_bitmap_blocks)
        label = a.label.encode()[:31].ljust(32, b"\0")
        sb = bytearray(BLOCK)
        sb[0:len(head)] = head
        crc_at = len(head)
        sb[crc_at:crc_at + 4] = b"\0\0\0\0"
        sb[crc_at + 4:crc_at + 4 + 64] = label + dmz_uuid + dev_uuid
        crc = crc32_le(a.gen, bytes(sb))
        sb[crc_at:crc_at + 4] = struct.pack("<I", crc)
        maps = b"\xff" * (nr_map_blocks * BLOCK)
        bitmaps = bytes(nr_bitmap_blocks * BLOCK)
        with open(os.path.join(a.out, "set%d.img" % s), "wb") as f:
            f.write(bytes(sb) + maps + bitmaps)
        offsets.append(sb_block * BLOCK)
    sectors = nr_chunks * zone_blocks * (BLOCK // 512)
    print(offsets[0], offsets[1], sectors)


if __name__ == "__main__":
    main()
