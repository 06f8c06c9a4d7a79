// On-file layout of an emulated zoned drive (see doc/format.md, "Emulated drive file").
//
//   file := superblock (4096 B at offset 0)
//           zone slot table (at kSlotTableOffset, nr_zones * 2 * 32 B)
//           padding to a 1 MiB boundary
//           data area (nr_zones * zone_size B; device byte x is at file offset data_offset+x)
//
// All integers little-endian. The version is bumped on any incompatible change; tags and
// fields are never reused (retired ones stay listed here as comments).
// Thread safety: constants and pure encode/decode functions.
#pragma once

#include <cstdint>
#include <optional>

#include "device/zoned_device.h"

namespace smr::emufmt {

constexpr uint64_t kMagic = 0x31554d4552534d53ull;  // "SMRSEMU1" read little-endian
constexpr uint32_t kVersion = 1;
constexpr uint64_t kSuperblockSize = 4096;
constexpr uint64_t kSlotTableOffset = 4096;
constexpr uint64_t kSlotSize = 32;
constexpr uint64_t kSlotsPerZone = 2;
constexpr uint64_t kDataAlign = 1ull << 20;

// Superblock, offset: field (width)
//   0 magic (8) | 8 version (4) | 12 nr_zones (4) | 16 zone_size (8) | 24 zone_capacity (8)
//   32 nr_conventional (4) | 36 logical_block_size (4) | 40 max_open_zones (4)
//   44 max_active_zones (4) | 48 slot_table_offset (8) | 56 data_offset (8)
//   64 crc32c of bytes [0, 64) (4) | rest zero
constexpr uint64_t kSuperblockCrcOffset = 64;

struct Superblock {
  uint32_t version = kVersion;
  uint32_t nr_zones = 0;
  uint64_t zone_size = 0;
  uint64_t zone_capacity = 0;
  uint32_t nr_conventional = 0;
  uint32_t logical_block_size = 0;
  uint32_t max_open_zones = 0;
  uint32_t max_active_zones = 0;
  uint64_t slot_table_offset = kSlotTableOffset;
  uint64_t data_offset = 0;
};

// Writes kSuperblockSize bytes.
void EncodeSuperblock(const Superblock& sb, char* dst);
// Checks magic, crc and version; Corruption with the reason otherwise.
Result<Superblock> DecodeSuperblock(const char* src);
uint64_t DataOffsetFor(uint32_t nr_zones);

// Zone state slot, offset: field (width)
//   0 seq (8): 0 = never written | 8 wp relative to zone start (8) | 16 condition (1),
//   ZoneCondition numbering of zoned_device.h | 17 reserved (3) | 20 zone index (4)
//   24 reserved (4) | 28 crc32c of bytes [0, 28) (4)
// Slot s of zone z lives at slot_table_offset + (z * kSlotsPerZone + s) * kSlotSize.
struct Slot {
  uint64_t seq = 0;
  uint64_t wp = 0;
  ZoneCondition cond = ZoneCondition::kEmpty;
  uint32_t zone = 0;
};

void EncodeSlot(const Slot& slot, char* dst);
// nullopt when the slot is unused (all zero) or fails its crc / zone index check.
std::optional<Slot> DecodeSlot(const char* src, uint32_t expected_zone);

}  // namespace smr::emufmt
