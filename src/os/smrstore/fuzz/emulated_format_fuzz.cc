// Fuzz target: the emulated drive's on-file decoders (device/emulated_format.h): the
// 4096-byte drive superblock (DecodeSuperblock, versions 1 and 2), the 32-byte zone state
// slot (DecodeSlot) and the 32-byte realm slot of hybrid drives (DecodeRealmSlot). Input:
// byte 0 picks the expected zone / realm index for the slots (low 2 bits), the rest is the
// superblock block (zero-padded to 4096 bytes) whose first 32 bytes also serve as the
// slots. Each is decoded as given and with its crc(s) made correct.
// Properties, when a decoder accepts:
//   * superblock: geometry consistent (nr_zones, zone_size, lbs > 0, capacity <= size,
//     conventional <= nr_zones, data_offset >= DataOffsetFor(nr_zones), slot table at its
//     fixed offset); version 1: no realm and no hybrid field, EncodeSuperblock(sb)
//     reproduces bytes [0, 68) of the input exactly; version 2: the hybrid rules (realms > 0,
//     1 <= cmr <= smr per realm, >= 2 conventional zones, zones = conventional + realms *
//     (cmr + smr), conversion time bounded, known initial domain, realm table right after
//     the zone slot table, data past it), EncodeSuperblock(sb) reproduces bytes [0, 108);
//     either decodes to the same superblock;
//   * slot: seq != 0, zone == the expected index, a known condition (never kInactive, which
//     is reported, not stored); EncodeSlot(slot) decodes to the same slot and reproduces the
//     input's fields (bytes 0-16, 20-23, 28-31);
//   * realm slot: seq != 0, realm == the expected index, domain cmr or smr;
//     EncodeRealmSlot reproduces all 32 bytes and decodes to the same slot.
#include <cstdint>
#include <cstring>
#include <string>

#include "common/coding.h"
#include "common/crc32c.h"
#include "device/emulated_format.h"
#include "fuzz_check.h"

namespace {

using namespace smr;
using namespace smr::emufmt;

bool Same(const Superblock& a, const Superblock& b) {
  return a.version == b.version && a.nr_zones == b.nr_zones && a.zone_size == b.zone_size &&
         a.zone_capacity == b.zone_capacity && a.nr_conventional == b.nr_conventional &&
         a.logical_block_size == b.logical_block_size && a.max_open_zones == b.max_open_zones &&
         a.max_active_zones == b.max_active_zones &&
         a.slot_table_offset == b.slot_table_offset && a.data_offset == b.data_offset &&
         a.nr_realms == b.nr_realms && a.cmr_zones_per_realm == b.cmr_zones_per_realm &&
         a.smr_zones_per_realm == b.smr_zones_per_realm && a.conversion_ms == b.conversion_ms &&
         a.initial_domain == b.initial_domain && a.realm_table_offset == b.realm_table_offset;
}

void CheckSuperblock(const char* block) {
  Result<Superblock> sb = DecodeSuperblock(block);
  if (!sb.ok()) {
    FUZZ_CHECK(sb.status().IsCorruption());
    return;
  }
  FUZZ_CHECK(sb->version == kVersion || sb->version == kHybridVersion);
  FUZZ_CHECK(sb->nr_zones > 0 && sb->zone_size > 0 && sb->logical_block_size > 0);
  FUZZ_CHECK(sb->zone_capacity <= sb->zone_size);
  FUZZ_CHECK(sb->nr_conventional <= sb->nr_zones);
  FUZZ_CHECK(sb->data_offset >= DataOffsetFor(sb->nr_zones));
  FUZZ_CHECK(sb->slot_table_offset == kSlotTableOffset);
  uint64_t encoded_bytes = kSuperblockCrcOffset + 4;
  if (sb->version == kVersion) {
    FUZZ_CHECK(sb->nr_realms == 0 && sb->cmr_zones_per_realm == 0 &&
               sb->smr_zones_per_realm == 0 && sb->conversion_ms == 0 &&
               sb->initial_domain == ZoneDomain::kCmr && sb->realm_table_offset == 0);
  } else {
    FUZZ_CHECK(sb->nr_realms > 0);
    FUZZ_CHECK(sb->cmr_zones_per_realm >= 1);
    FUZZ_CHECK(sb->smr_zones_per_realm >= sb->cmr_zones_per_realm);
    FUZZ_CHECK(sb->nr_conventional >= 2);
    const unsigned __int128 zones =
        sb->nr_conventional + static_cast<unsigned __int128>(sb->nr_realms) *
                                  (uint64_t{sb->cmr_zones_per_realm} + sb->smr_zones_per_realm);
    FUZZ_CHECK(zones == sb->nr_zones);
    FUZZ_CHECK(sb->conversion_ms <= kMaxConversionMs);
    FUZZ_CHECK(sb->initial_domain == ZoneDomain::kCmr || sb->initial_domain == ZoneDomain::kSmr);
    FUZZ_CHECK(sb->realm_table_offset == RealmTableOffsetFor(sb->nr_zones));
    FUZZ_CHECK(sb->data_offset >= DataOffsetFor(sb->nr_zones, sb->nr_realms));
    FUZZ_CHECK(sb->realm_table_offset + uint64_t{sb->nr_realms} * kSlotsPerRealm * kSlotSize <=
               sb->data_offset);
    encoded_bytes = kHybridCrcOffset + 4;
  }
  std::string again(kSuperblockSize, '\0');
  EncodeSuperblock(*sb, again.data());
  FUZZ_CHECK(std::memcmp(again.data(), block, encoded_bytes) == 0);
  Result<Superblock> sb2 = DecodeSuperblock(again.data());
  FUZZ_CHECK(sb2.ok() && Same(*sb2, *sb));
}

void CheckSlot(const char* src, uint32_t zone) {
  std::optional<Slot> s = DecodeSlot(src, zone);
  if (!s) return;
  FUZZ_CHECK(s->seq != 0);
  FUZZ_CHECK(s->zone == zone);
  FUZZ_CHECK(static_cast<uint8_t>(s->cond) <= static_cast<uint8_t>(ZoneCondition::kOffline));
  FUZZ_CHECK(s->cond != ZoneCondition::kInactive);
  char again[kSlotSize];
  EncodeSlot(*s, again);
  FUZZ_CHECK(std::memcmp(again, src, 17) == 0);
  FUZZ_CHECK(std::memcmp(again + 20, src + 20, 4) == 0);
  std::optional<Slot> s2 = DecodeSlot(again, zone);
  FUZZ_CHECK(s2 && s2->seq == s->seq && s2->wp == s->wp && s2->cond == s->cond &&
             s2->zone == s->zone);
}

void CheckRealmSlot(const char* src, uint32_t realm) {
  std::optional<RealmSlot> s = DecodeRealmSlot(src, realm);
  if (!s) return;
  FUZZ_CHECK(s->seq != 0);
  FUZZ_CHECK(s->realm == realm);
  FUZZ_CHECK(s->domain == ZoneDomain::kCmr || s->domain == ZoneDomain::kSmr);
  char again[kSlotSize];
  EncodeRealmSlot(*s, again);
  FUZZ_CHECK(std::memcmp(again, src, kSlotSize) == 0);
  std::optional<RealmSlot> s2 = DecodeRealmSlot(again, realm);
  FUZZ_CHECK(s2 && s2->seq == s->seq && s2->domain == s->domain && s2->realm == s->realm);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint32_t zone = data[0] & 3;
  std::string block(kSuperblockSize, '\0');
  std::memcpy(block.data(), data + 1, std::min<size_t>(size - 1, kSuperblockSize));
  CheckSuperblock(block.data());
  CheckSlot(block.data(), zone);
  CheckRealmSlot(block.data(), zone);
  EncodeFixed32(block.data() + kSuperblockCrcOffset, crc32c::Value(block.data(), kSuperblockCrcOffset));
  CheckSuperblock(block.data());
  EncodeFixed32(block.data() + kHybridCrcOffset, crc32c::Value(block.data(), kHybridCrcOffset));
  CheckSuperblock(block.data());
  EncodeFixed32(block.data() + 28, crc32c::Value(block.data(), 28));
  CheckSlot(block.data(), zone);
  CheckRealmSlot(block.data(), zone);
  return 0;
}
