#include "device/emulated_format.h"

#include <cstring>
#include <string>

#include "common/coding.h"
#include "common/crc32c.h"

namespace smr::emufmt {

void EncodeSuperblock(const Superblock& sb, char* dst) {
  std::memset(dst, 0, kSuperblockSize);
  EncodeFixed64(dst + 0, kMagic);
  EncodeFixed32(dst + 8, sb.version);
  EncodeFixed32(dst + 12, sb.nr_zones);
  EncodeFixed64(dst + 16, sb.zone_size);
  EncodeFixed64(dst + 24, sb.zone_capacity);
  EncodeFixed32(dst + 32, sb.nr_conventional);
  EncodeFixed32(dst + 36, sb.logical_block_size);
  EncodeFixed32(dst + 40, sb.max_open_zones);
  EncodeFixed32(dst + 44, sb.max_active_zones);
  EncodeFixed64(dst + 48, sb.slot_table_offset);
  EncodeFixed64(dst + 56, sb.data_offset);
  EncodeFixed32(dst + kSuperblockCrcOffset, crc32c::Value(dst, kSuperblockCrcOffset));
}

Result<Superblock> DecodeSuperblock(const char* src) {
  if (DecodeFixed64(src) != kMagic) {
    return Status::Corruption("not an smrstore emulated drive (bad magic)");
  }
  if (DecodeFixed32(src + kSuperblockCrcOffset) != crc32c::Value(src, kSuperblockCrcOffset)) {
    return Status::Corruption("emulated drive superblock checksum mismatch");
  }
  Superblock sb;
  sb.version = DecodeFixed32(src + 8);
  if (sb.version != kVersion) {
    return Status::Corruption("emulated drive format version " + std::to_string(sb.version) +
                              " is not supported (this build reads version " +
                              std::to_string(kVersion) + ")");
  }
  sb.nr_zones = DecodeFixed32(src + 12);
  sb.zone_size = DecodeFixed64(src + 16);
  sb.zone_capacity = DecodeFixed64(src + 24);
  sb.nr_conventional = DecodeFixed32(src + 32);
  sb.logical_block_size = DecodeFixed32(src + 36);
  sb.max_open_zones = DecodeFixed32(src + 40);
  sb.max_active_zones = DecodeFixed32(src + 44);
  sb.slot_table_offset = DecodeFixed64(src + 48);
  sb.data_offset = DecodeFixed64(src + 56);
  if (sb.nr_zones == 0 || sb.zone_size == 0 || sb.logical_block_size == 0 ||
      sb.zone_capacity > sb.zone_size || sb.nr_conventional > sb.nr_zones ||
      sb.data_offset < DataOffsetFor(sb.nr_zones) || sb.slot_table_offset != kSlotTableOffset) {
    return Status::Corruption("emulated drive superblock has an inconsistent geometry");
  }
  return sb;
}

uint64_t DataOffsetFor(uint32_t nr_zones) {
  const uint64_t end = kSlotTableOffset + uint64_t{nr_zones} * kSlotsPerZone * kSlotSize;
  return (end + kDataAlign - 1) / kDataAlign * kDataAlign;
}

void EncodeSlot(const Slot& slot, char* dst) {
  std::memset(dst, 0, kSlotSize);
  EncodeFixed64(dst + 0, slot.seq);
  EncodeFixed64(dst + 8, slot.wp);
  dst[16] = static_cast<char>(slot.cond);
  EncodeFixed32(dst + 20, slot.zone);
  EncodeFixed32(dst + 28, crc32c::Value(dst, 28));
}

std::optional<Slot> DecodeSlot(const char* src, uint32_t expected_zone) {
  Slot s;
  s.seq = DecodeFixed64(src);
  if (s.seq == 0) return std::nullopt;
  if (DecodeFixed32(src + 28) != crc32c::Value(src, 28)) return std::nullopt;
  s.wp = DecodeFixed64(src + 8);
  const auto cond = static_cast<uint8_t>(src[16]);
  if (cond > static_cast<uint8_t>(ZoneCondition::kOffline)) return std::nullopt;
  s.cond = static_cast<ZoneCondition>(cond);
  s.zone = DecodeFixed32(src + 20);
  if (s.zone != expected_zone) return std::nullopt;
  return s;
}

}  // namespace smr::emufmt
