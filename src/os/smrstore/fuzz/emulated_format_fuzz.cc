// Fuzz target: the emulated drive's on-file decoders (device/emulated_format.h): the
// 4096-byte drive superblock (DecodeSuperblock) and the 32-byte zone state slot
// (DecodeSlot). Input: byte 0 picks the expected zone index for the slot (low 2 bits), the
// rest is the superblock block (zero-padded to 4096 bytes) whose first 32 bytes also serve
// as the slot. Each is decoded as given and with its crc made correct.
// Properties, when a decoder accepts:
//   * superblock: geometry consistent (nr_zones, zone_size, lbs > 0, capacity <= size,
//     conventional <= nr_zones, data_offset >= DataOffsetFor(nr_zones), slot table at its
//     fixed offset); EncodeSuperblock(sb) reproduces bytes [0, 68) of the input exactly and
//     decodes to the same superblock;
//   * slot: seq != 0, zone == the expected index, a known condition; EncodeSlot(slot)
//     decodes to the same slot and reproduces the input's fields (bytes 0-16, 20-23, 28-31).
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
         a.slot_table_offset == b.slot_table_offset && a.data_offset == b.data_offset;
}

void CheckSuperblock(const char* block) {
  Result<Superblock> sb = DecodeSuperblock(block);
  if (!sb.ok()) {
    FUZZ_CHECK(sb.status().IsCorruption());
    return;
  }
  FUZZ_CHECK(sb->version == kVersion);
  FUZZ_CHECK(sb->nr_zones > 0 && sb->zone_size > 0 && sb->logical_block_size > 0);
  FUZZ_CHECK(sb->zone_capacity <= sb->zone_size);
  FUZZ_CHECK(sb->nr_conventional <= sb->nr_zones);
  FUZZ_CHECK(sb->data_offset >= DataOffsetFor(sb->nr_zones));
  FUZZ_CHECK(sb->slot_table_offset == kSlotTableOffset);
  std::string again(kSuperblockSize, '\0');
  EncodeSuperblock(*sb, again.data());
  FUZZ_CHECK(std::memcmp(again.data(), block, kSuperblockCrcOffset + 4) == 0);
  Result<Superblock> sb2 = DecodeSuperblock(again.data());
  FUZZ_CHECK(sb2.ok() && Same(*sb2, *sb));
}

void CheckSlot(const char* src, uint32_t zone) {
  std::optional<Slot> s = DecodeSlot(src, zone);
  if (!s) return;
  FUZZ_CHECK(s->seq != 0);
  FUZZ_CHECK(s->zone == zone);
  FUZZ_CHECK(static_cast<uint8_t>(s->cond) <= static_cast<uint8_t>(ZoneCondition::kOffline));
  char again[kSlotSize];
  EncodeSlot(*s, again);
  FUZZ_CHECK(std::memcmp(again, src, 17) == 0);
  FUZZ_CHECK(std::memcmp(again + 20, src + 20, 4) == 0);
  std::optional<Slot> s2 = DecodeSlot(again, zone);
  FUZZ_CHECK(s2 && s2->seq == s->seq && s2->wp == s->wp && s2->cond == s->cond &&
             s2->zone == s->zone);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint32_t zone = data[0] & 3;
  std::string block(kSuperblockSize, '\0');
  std::memcpy(block.data(), data + 1, std::min<size_t>(size - 1, kSuperblockSize));
  CheckSuperblock(block.data());
  CheckSlot(block.data(), zone);
  EncodeFixed32(block.data() + kSuperblockCrcOffset, crc32c::Value(block.data(), kSuperblockCrcOffset));
  CheckSuperblock(block.data());
  EncodeFixed32(block.data() + 28, crc32c::Value(block.data(), 28));
  CheckSlot(block.data(), zone);
  return 0;
}
