// On-file layout of an emulated zoned drive (see doc/format.md, "Emulated drive file").
//
//   file := superblock (4096 B at offset 0)
//           zone slot table (at kSlotTableOffset, nr_zones * 2 * 32 B)
//           realm slot table (version 2 only: at RealmTableOffsetFor(nr_zones),
//                             nr_realms * 2 * 32 B)
//           padding to a 1 MiB boundary
//           data area (nr_zones * zone_size B; device byte x is at file offset data_offset+x)
//
// Versions: 1 = drives that are not hybrid; 2 = hybrid drives (nr_realms > 0): version 1
// plus the hybrid fields of the superblock and the realm slot table. A drive that is not
// hybrid is still written as version 1, byte for byte; both versions are read.
// All integers little-endian. The version is bumped on any incompatible change; tags and
// fields are never reused (retired ones stay listed here as comments).
// Thread safety: constants and pure encode/decode functions.
#pragma once

#include <cstdint>
#include <optional>

#include "device/zoned_device.h"

namespace smr::emufmt {

constexpr uint64_t kMagic = 0x31554d4552534d53ull;  // "SMRSEMU1" read little-endian
constexpr uint32_t kVersion = 1;        // drives that are not hybrid
constexpr uint32_t kHybridVersion = 2;  // hybrid drives (nr_realms > 0)
constexpr uint64_t kSuperblockSize = 4096;
constexpr uint64_t kSlotTableOffset = 4096;
constexpr uint64_t kSlotSize = 32;
constexpr uint64_t kSlotsPerZone = 2;
constexpr uint64_t kDataAlign = 1ull << 20;

// Superblock, offset: field (width)
//   0 magic (8) | 8 version (4) | 12 nr_zones (4) | 16 zone_size (8) | 24 zone_capacity (8)
//   32 nr_conventional (4) | 36 logical_block_size (4) | 40 max_open_zones (4)
//   44 max_active_zones (4) | 48 slot_table_offset (8) | 56 data_offset (8)
//   64 crc32c of bytes [0, 64) (4) | rest zero (version 1)
// Version 2 keeps bytes [0, 68) as above (so a version-1 reader verifies the crc and then
// names the version it does not read) and adds, in the same block:
//   68 zero (4) | 72 nr_realms (4, > 0) | 76 cmr_zones_per_realm (4)
//   80 smr_zones_per_realm (4) | 84 conversion_ms (4) | 88 initial domain (1: 0 cmr, 1 smr,
//   the domain of a realm that has no valid realm slot) | 89 zero (7)
//   96 realm_table_offset (8) | 104 crc32c of bytes [0, 104) (4) | rest zero
// Rules checked by DecodeSuperblock (kCorruption otherwise): version 1 has nr_realms 0 (and
// its bytes 68.. are ignored, as version 1 always did); version 2 has 1 <= cmr <= smr,
// nr_conventional >= 2, nr_zones == nr_conventional + nr_realms * (cmr + smr),
// conversion_ms <= kMaxConversionMs, a known initial domain, zero reserved bytes,
// realm_table_offset == RealmTableOffsetFor(nr_zones) and data_offset >=
// DataOffsetFor(nr_zones, nr_realms).
constexpr uint64_t kSuperblockCrcOffset = 64;
constexpr uint64_t kHybridCrcOffset = 104;
constexpr uint32_t kMaxConversionMs = 600000;  // 10 minutes

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
  // Hybrid drives (version 2); all zero for version 1.
  uint32_t nr_realms = 0;
  uint32_t cmr_zones_per_realm = 0;
  uint32_t smr_zones_per_realm = 0;
  uint32_t conversion_ms = 0;
  ZoneDomain initial_domain = ZoneDomain::kCmr;
  uint64_t realm_table_offset = 0;
};

// Writes kSuperblockSize bytes. The version written follows nr_realms (1 when 0, else 2);
// sb.version is not consulted. For version 1 the hybrid fields are not written.
void EncodeSuperblock(const Superblock& sb, char* dst);
// Checks magic, crc, version and the rules above; Corruption with the reason otherwise.
Result<Superblock> DecodeSuperblock(const char* src);
// First byte past the zone slot table: where a version-2 drive keeps its realm slot table.
uint64_t RealmTableOffsetFor(uint32_t nr_zones);
// The data area's offset: past the slot tables, rounded up to kDataAlign.
uint64_t DataOffsetFor(uint32_t nr_zones, uint32_t nr_realms = 0);

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

// Realm slot (version 2), offset: field (width)
//   0 seq (8): 0 = never written | 8 domain (1): 0 cmr, 1 smr | 9 zero (3)
//   12 realm index (4) | 16 zero (12) | 28 crc32c of bytes [0, 28) (4)
// Slot s of realm r lives at realm_table_offset + (r * kSlotsPerRealm + s) * kSlotSize.
// Like the zone slots: a change writes the older slot with seq + 1 in one pwrite; the
// valid slot with the higher seq is the realm's active domain; with no valid slot the realm
// is in the superblock's initial domain.
constexpr uint64_t kSlotsPerRealm = 2;
struct RealmSlot {
  uint64_t seq = 0;
  ZoneDomain domain = ZoneDomain::kCmr;
  uint32_t realm = 0;
};

void EncodeRealmSlot(const RealmSlot& slot, char* dst);
// nullopt when the slot is unused (seq 0) or fails its crc, realm index, domain or
// zero-bytes check.
std::optional<RealmSlot> DecodeRealmSlot(const char* src, uint32_t expected_realm);

}  // namespace smr::emufmt
