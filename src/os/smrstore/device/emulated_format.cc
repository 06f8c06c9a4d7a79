#include "device/emulated_format.h"

#include <cstring>
#include <string>

#include "common/coding.h"
#include "common/crc32c.h"

namespace smr::emufmt {

namespace {

bool AllZero(const char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

Status BadHybrid(const std::string& why) {
  return Status::Corruption("emulated drive superblock: hybrid geometry " + why);
}

// The version-2 rules of the header, on a decoded superblock.
Status CheckHybrid(const Superblock& sb, const char* src) {
  if (sb.nr_realms == 0) return BadHybrid("has no realms");
  if (sb.cmr_zones_per_realm == 0 || sb.smr_zones_per_realm < sb.cmr_zones_per_realm) {
    return BadHybrid("has " + std::to_string(sb.cmr_zones_per_realm) + " CMR and " +
                     std::to_string(sb.smr_zones_per_realm) +
                     " SMR zones per realm (needs 1 <= cmr <= smr)");
  }
  if (sb.nr_conventional < 2) return BadHybrid("has fewer than 2 conventional zones");
  const uint64_t zones =
      uint64_t{sb.nr_conventional} +
      uint64_t{sb.nr_realms} * (uint64_t{sb.cmr_zones_per_realm} + sb.smr_zones_per_realm);
  if (zones != sb.nr_zones) {
    return BadHybrid("does not add up to " + std::to_string(sb.nr_zones) + " zones");
  }
  if (sb.conversion_ms > kMaxConversionMs) return BadHybrid("has an absurd conversion time");
  if (static_cast<uint8_t>(src[88]) > static_cast<uint8_t>(ZoneDomain::kSmr)) {
    return BadHybrid("has an unknown initial domain");
  }
  if (!AllZero(src + 68, 4) || !AllZero(src + 89, 7)) {
    return BadHybrid("has non-zero reserved bytes");
  }
  if (sb.realm_table_offset != RealmTableOffsetFor(sb.nr_zones) ||
      sb.data_offset < DataOffsetFor(sb.nr_zones, sb.nr_realms)) {
    return BadHybrid("has misplaced tables");
  }
  return Status::OK();
}

}  // namespace

void EncodeSuperblock(const Superblock& sb, char* dst) {
  const bool hybrid = sb.nr_realms > 0;
  std::memset(dst, 0, kSuperblockSize);
  EncodeFixed64(dst + 0, kMagic);
  EncodeFixed32(dst + 8, hybrid ? kHybridVersion : kVersion);
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
  if (!hybrid) return;
  EncodeFixed32(dst + 72, sb.nr_realms);
  EncodeFixed32(dst + 76, sb.cmr_zones_per_realm);
  EncodeFixed32(dst + 80, sb.smr_zones_per_realm);
  EncodeFixed32(dst + 84, sb.conversion_ms);
  dst[88] = static_cast<char>(sb.initial_domain);
  EncodeFixed64(dst + 96, sb.realm_table_offset);
  EncodeFixed32(dst + kHybridCrcOffset, crc32c::Value(dst, kHybridCrcOffset));
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
  if (sb.version != kVersion && sb.version != kHybridVersion) {
    return Status::Corruption("emulated drive format version " + std::to_string(sb.version) +
                              " is not supported (this build reads versions " +
                              std::to_string(kVersion) + " and " +
                              std::to_string(kHybridVersion) + ")");
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
  if (sb.version == kVersion) return sb;
  if (DecodeFixed32(src + kHybridCrcOffset) != crc32c::Value(src, kHybridCrcOffset)) {
    return Status::Corruption("emulated drive superblock (hybrid fields) checksum mismatch");
  }
  sb.nr_realms = DecodeFixed32(src + 72);
  sb.cmr_zones_per_realm = DecodeFixed32(src + 76);
  sb.smr_zones_per_realm = DecodeFixed32(src + 80);
  sb.conversion_ms = DecodeFixed32(src + 84);
  sb.initial_domain = static_cast<uint8_t>(src[88]) == 0 ? ZoneDomain::kCmr : ZoneDomain::kSmr;
  sb.realm_table_offset = DecodeFixed64(src + 96);
  SMR_RETURN_IF_ERROR(CheckHybrid(sb, src));
  return sb;
}

uint64_t RealmTableOffsetFor(uint32_t nr_zones) {
  return kSlotTableOffset + uint64_t{nr_zones} * kSlotsPerZone * kSlotSize;
}

uint64_t DataOffsetFor(uint32_t nr_zones, uint32_t nr_realms) {
  const uint64_t end =
      RealmTableOffsetFor(nr_zones) + uint64_t{nr_realms} * kSlotsPerRealm * kSlotSize;
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

void EncodeRealmSlot(const RealmSlot& slot, char* dst) {
  std::memset(dst, 0, kSlotSize);
  EncodeFixed64(dst + 0, slot.seq);
  dst[8] = static_cast<char>(slot.domain);
  EncodeFixed32(dst + 12, slot.realm);
  EncodeFixed32(dst + 28, crc32c::Value(dst, 28));
}

std::optional<RealmSlot> DecodeRealmSlot(const char* src, uint32_t expected_realm) {
  RealmSlot s;
  s.seq = DecodeFixed64(src);
  if (s.seq == 0) return std::nullopt;
  if (DecodeFixed32(src + 28) != crc32c::Value(src, 28)) return std::nullopt;
  const auto domain = static_cast<uint8_t>(src[8]);
  if (domain > static_cast<uint8_t>(ZoneDomain::kSmr)) return std::nullopt;
  s.domain = static_cast<ZoneDomain>(domain);
  s.realm = DecodeFixed32(src + 12);
  if (s.realm != expected_realm) return std::nullopt;
  if (!AllZero(src + 9, 3) || !AllZero(src + 16, 12)) return std::nullopt;
  return s;
}

}  // namespace smr::emufmt
