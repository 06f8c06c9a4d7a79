#include "format/record.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "common/coding.h"
#include "common/crc32c.h"
#include "format/object_id.h"

namespace smr {

namespace {

using namespace recfmt;  // NOLINT: this file is the codec of these constants

// The first byte is zero and every byte equals the next: one memcmp instead of a byte
// loop (a header's check covers up to 4 KiB; the byte loop was most of a decode's time).
bool AllZero(const char* p, size_t n) {
  return n == 0 || (p[0] == 0 && std::memcmp(p, p + 1, n - 1) == 0);
}

Status HeaderCorruption(const std::string& what) {
  return Status::Corruption("record header: " + what);
}

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

const char* RecordTypeName(RecordType type) {
  switch (type) {
    case RecordType::kData:
      return "data";
    case RecordType::kTombstone:
      return "tombstone";
    case RecordType::kZoneFooter:
      return "zone-footer";
    case RecordType::kSuperblock:
      return "superblock";
    case RecordType::kJournal:
      return "journal";
    case RecordType::kCheckpoint:
      return "checkpoint";
    case RecordType::kPack:
      return "pack";
  }
  return "unknown";
}

bool IsKnownRecordType(uint8_t tag) {
  return tag >= static_cast<uint8_t>(RecordType::kData) &&
         tag <= static_cast<uint8_t>(RecordType::kPack);
}

bool PackEntry::operator==(const PackEntry& o) const {
  return offset == o.offset && payload_len == o.payload_len && payload_crc == o.payload_crc &&
         seq == o.seq && collection_id == o.collection_id && nid == o.nid &&
         logical_offset == o.logical_offset;
}

bool RecordHeader::operator==(const RecordHeader& o) const {
  return type == o.type && flags == o.flags && payload_len == o.payload_len &&
         payload_crc == o.payload_crc && seq == o.seq && collection_id == o.collection_id &&
         nid == o.nid && logical_offset == o.logical_offset && object_key == o.object_key &&
         pack == o.pack;
}

uint32_t PayloadCrc(const void* data, size_t n) { return n == 0 ? 0 : crc32c::Value(data, n); }

void EncodeRecordHeader(const RecordHeader& h, char* block) {
  std::memset(block, 0, kHeaderSize);
  const bool omit = h.object_key.size() > kMaxObjectKeyLen;
  uint8_t flags = h.flags;
  if (omit) {
    flags |= kFlagKeyOmitted;
  } else {
    flags &= static_cast<uint8_t>(~kFlagKeyOmitted);
  }
  EncodeFixed32(block + kMagicOffset, kMagic);
  EncodeFixed16(block + kVersionOffset, kVersion);
  block[kTypeOffset] = static_cast<char>(h.type);
  block[kFlagsOffset] = static_cast<char>(flags);
  EncodeFixed32(block + kPayloadLenOffset, h.payload_len);
  EncodeFixed32(block + kPayloadCrcOffset, h.payload_crc);
  EncodeFixed64(block + kSeqOffset, h.seq);
  EncodeFixed64(block + kCollectionIdOffset, h.collection_id);
  EncodeFixed64(block + kNidOffset, h.nid);
  EncodeFixed64(block + kLogicalOffsetOffset, h.logical_offset);
  if (!omit && !h.object_key.empty()) {
    EncodeFixed16(block + kObjectKeyLenOffset, static_cast<uint16_t>(h.object_key.size()));
    std::memcpy(block + kObjectKeyOffset, h.object_key.data(), h.object_key.size());
  }
  if (h.type == RecordType::kPack) {
    // At most kMaxPackEntries fit; a longer directory is cut (and then fails to decode:
    // the count in logical_offset no longer matches).
    char* p = block + kObjectKeyOffset;
    for (size_t i = 0; i < h.pack.size() && i < kMaxPackEntries; ++i, p += kPackEntrySize) {
      const PackEntry& e = h.pack[i];
      EncodeFixed32(p + 0, e.payload_len);
      EncodeFixed32(p + 4, e.payload_crc);
      EncodeFixed64(p + 8, e.seq);
      EncodeFixed64(p + 16, e.collection_id);
      EncodeFixed64(p + 24, e.nid);
      EncodeFixed64(p + 32, e.logical_offset);
    }
  }
  EncodeFixed32(block + kHeaderCrcOffset, crc32c::Value(block, kHeaderCrcOffset));
}

namespace {

// DecodeRecordHeader, the checks every record type shares: known flags, the payload and
// key lengths within their limits, no crc without a payload, no key flagged as omitted.
Status CheckCommonFields(const RecordHeader& h, uint16_t key_len, const std::string& type_name) {
  if ((h.flags & ~kKnownFlags) != 0) {
    return HeaderCorruption("unknown flags " + Hex(h.flags) + " in a " + type_name + " record");
  }
  if (h.payload_len > kMaxPayloadLen) {
    return HeaderCorruption("payload length " + std::to_string(h.payload_len) +
                            " exceeds the limit of " + std::to_string(kMaxPayloadLen));
  }
  if (key_len > kMaxObjectKeyLen) {
    return HeaderCorruption("object key length " + std::to_string(key_len) +
                            " exceeds the header's room of " + std::to_string(kMaxObjectKeyLen));
  }
  if (h.payload_len == 0 && h.payload_crc != 0) {
    return HeaderCorruption("payload crc " + Hex(h.payload_crc) + " without a payload");
  }
  if (h.key_omitted() && key_len != 0) {
    return HeaderCorruption("object key stored although flagged as omitted");
  }
  return Status::OK();
}

// DecodeRecordHeader, a pack record: its fields and its directory of h->logical_offset
// entries (decoded into h->pack), whose payloads must add up to the record's.
Status DecodePackDirectory(const char* block, uint16_t key_len, RecordHeader* h) {
  if (h->flags != 0) {
    return HeaderCorruption("flags " + Hex(h->flags) + " in a pack record");
  }
  if (h->collection_id != 0 || h->nid != 0 || key_len != 0) {
    return HeaderCorruption("object fields set in a pack record");
  }
  if (h->logical_offset == 0 || h->logical_offset > kMaxPackEntries) {
    return HeaderCorruption("pack entry count " + std::to_string(h->logical_offset) +
                            " outside 1 … " + std::to_string(kMaxPackEntries));
  }
  const char* p = block + kObjectKeyOffset;
  uint64_t sum = 0;
  h->pack.resize(h->logical_offset);
  for (size_t i = 0; i < h->pack.size(); ++i, p += kPackEntrySize) {
    PackEntry& e = h->pack[i];
    e.offset = static_cast<uint32_t>(sum);
    e.payload_len = DecodeFixed32(p + 0);
    e.payload_crc = DecodeFixed32(p + 4);
    e.seq = DecodeFixed64(p + 8);
    e.collection_id = DecodeFixed64(p + 16);
    e.nid = DecodeFixed64(p + 24);
    e.logical_offset = DecodeFixed64(p + 32);
    const std::string where = "pack entry " + std::to_string(i) + ": ";
    if (e.payload_len == 0) return HeaderCorruption(where + "payload length 0");
    if (e.nid == 0) return HeaderCorruption(where + "nid 0");
    if (e.seq > h->seq) {
      return HeaderCorruption(where + "seq " + std::to_string(e.seq) +
                              " after the record's " + std::to_string(h->seq));
    }
    sum += e.payload_len;
  }
  if (sum != h->payload_len) {
    return HeaderCorruption("pack entries hold " + std::to_string(sum) +
                            " bytes but the payload length is " +
                            std::to_string(h->payload_len));
  }
  return Status::OK();
}

// DecodeRecordHeader, the checks of the record's own type (a pack's: DecodePackDirectory,
// which fills h->pack).
Status CheckTypeFields(const char* block, uint16_t key_len, const std::string& type_name,
                       RecordHeader* hp) {
  const RecordHeader& h = *hp;
  switch (h.type) {
    case RecordType::kData:
      if ((h.flags & kFlagRemoved) != 0) {
        return HeaderCorruption("flag 'removed' in a data record");
      }
      break;
    case RecordType::kTombstone:
      if (h.payload_len != 0) {
        return HeaderCorruption("payload length " + std::to_string(h.payload_len) +
                                " in a tombstone (must be 0)");
      }
      break;
    case RecordType::kZoneFooter:
    case RecordType::kSuperblock:
      if (h.flags != 0) {
        return HeaderCorruption("flags " + Hex(h.flags) + " in a " + type_name + " record");
      }
      if (h.collection_id != 0 || h.nid != 0 || h.logical_offset != 0 || key_len != 0) {
        return HeaderCorruption("object fields set in a " + type_name + " record");
      }
      if (h.payload_len < (h.type == RecordType::kZoneFooter ? kFooterFixedSize : 1)) {
        return HeaderCorruption("payload length " + std::to_string(h.payload_len) +
                                " too short for a " + type_name + " record");
      }
      break;
    case RecordType::kJournal:
    case RecordType::kCheckpoint:
      if (h.flags != 0) {
        return HeaderCorruption("flags " + Hex(h.flags) + " in a " + type_name + " record");
      }
      if (key_len != 0 || (h.type == RecordType::kJournal &&
                           (h.nid != 0 || h.logical_offset != 0))) {
        return HeaderCorruption("object fields set in a " + type_name + " record");
      }
      if (h.payload_len == 0) {
        return HeaderCorruption("payload length 0 in a " + type_name + " record");
      }
      break;
    case RecordType::kPack:
      return DecodePackDirectory(block, key_len, hp);
  }
  return Status::OK();
}

// DecodeRecordHeader, the rest of the block: reserved fields and the bytes after the key
// (or pack directory) up to the header crc zero; a key (copied into h->object_key) that
// decodes.
Status DecodeKeyAndReserved(const char* block, uint16_t key_len, RecordHeader* h) {
  if (DecodeFixed16(block + kReserved16Offset) != 0 ||
      DecodeFixed32(block + kReserved32Offset) != 0 ||
      DecodeFixed64(block + kReserved64Offset) != 0) {
    return HeaderCorruption("nonzero reserved field");
  }
  const uint32_t key_end =
      kObjectKeyOffset + (h->type == RecordType::kPack
                              ? static_cast<uint32_t>(h->pack.size()) * kPackEntrySize
                              : key_len);
  if (!AllZero(block + key_end, kHeaderCrcOffset - key_end)) {
    return HeaderCorruption(h->type == RecordType::kPack
                                ? "nonzero reserved bytes after the pack directory"
                                : "nonzero reserved bytes after the object key");
  }
  if (key_len != 0) {
    h->object_key.assign(block + kObjectKeyOffset, key_len);
    if (!DecodeObjectKey(h->object_key).ok()) {
      return HeaderCorruption("object key of " + std::to_string(key_len) +
                              " bytes does not decode");
    }
  }
  return Status::OK();
}

}  // namespace

Result<RecordHeader> DecodeRecordHeader(const char* block) {
  if (AllZero(block, kHeaderSize)) return Status::NotFound("no record here (zero block)");
  const uint32_t magic = DecodeFixed32(block + kMagicOffset);
  if (magic != kMagic) return HeaderCorruption("bad magic " + Hex(magic));
  const uint16_t version = DecodeFixed16(block + kVersionOffset);
  if (version != kVersion) {
    return HeaderCorruption("unsupported version " + std::to_string(version) +
                            " (this build reads version " + std::to_string(kVersion) + ")");
  }
  const uint32_t stored_crc = DecodeFixed32(block + kHeaderCrcOffset);
  const uint32_t crc = crc32c::Value(block, kHeaderCrcOffset);
  if (stored_crc != crc) {
    return HeaderCorruption("header crc mismatch (stored " + Hex(stored_crc) + ", computed " +
                            Hex(crc) + ")");
  }
  const uint8_t tag = static_cast<uint8_t>(block[kTypeOffset]);
  if (!IsKnownRecordType(tag)) {
    return HeaderCorruption("unknown record type " + std::to_string(tag));
  }
  RecordHeader h;
  h.type = static_cast<RecordType>(tag);
  h.flags = static_cast<uint8_t>(block[kFlagsOffset]);
  h.payload_len = DecodeFixed32(block + kPayloadLenOffset);
  h.payload_crc = DecodeFixed32(block + kPayloadCrcOffset);
  h.seq = DecodeFixed64(block + kSeqOffset);
  h.collection_id = DecodeFixed64(block + kCollectionIdOffset);
  h.nid = DecodeFixed64(block + kNidOffset);
  h.logical_offset = DecodeFixed64(block + kLogicalOffsetOffset);
  const uint16_t key_len = DecodeFixed16(block + kObjectKeyLenOffset);
  const std::string type_name = RecordTypeName(h.type);

  SMR_RETURN_IF_ERROR(CheckCommonFields(h, key_len, type_name));
  SMR_RETURN_IF_ERROR(CheckTypeFields(block, key_len, type_name, &h));
  SMR_RETURN_IF_ERROR(DecodeKeyAndReserved(block, key_len, &h));
  return h;
}

Status VerifyPayload(const RecordHeader& h, const void* payload) {
  const uint32_t crc = PayloadCrc(payload, h.payload_len);
  if (crc != h.payload_crc) {
    return Status::Corruption(std::string(RecordTypeName(h.type)) + " record seq " +
                              std::to_string(h.seq) + ": payload crc mismatch (stored " +
                              Hex(h.payload_crc) + ", computed " + Hex(crc) + ")");
  }
  return Status::OK();
}

void AppendRecord(RecordHeader h, std::string_view payload, std::string* out) {
  if (payload.size() > kMaxPayloadLen) std::abort();
  h.payload_len = static_cast<uint32_t>(payload.size());
  h.payload_crc = PayloadCrc(payload.data(), payload.size());
  const size_t start = out->size();
  out->resize(start + h.record_bytes(), '\0');
  EncodeRecordHeader(h, &(*out)[start]);
  if (!payload.empty()) std::memcpy(&(*out)[start + kHeaderSize], payload.data(), payload.size());
}

// ---- Zone footer ----

bool ZoneFooterEntry::operator==(const ZoneFooterEntry& o) const {
  return block == o.block && type == o.type && flags == o.flags &&
         payload_len == o.payload_len && seq == o.seq && collection_id == o.collection_id &&
         nid == o.nid && logical_offset == o.logical_offset;
}

ZoneFooterEntry FooterEntryFor(uint64_t offset, const RecordHeader& h) {
  ZoneFooterEntry e;
  e.block = static_cast<uint32_t>(offset / kBlockSize);
  e.type = h.type;
  e.flags = h.flags;
  e.payload_len = h.payload_len;
  e.seq = h.seq;
  e.collection_id = h.collection_id;
  e.nid = h.nid;
  e.logical_offset = h.logical_offset;
  return e;
}

std::string EncodeZoneFooter(const std::vector<ZoneFooterEntry>& entries) {
  std::string out(kFooterFixedSize + entries.size() * kFooterEntrySize, '\0');
  char* p = out.data();
  EncodeFixed32(p, static_cast<uint32_t>(entries.size()));
  p += 4;
  for (const ZoneFooterEntry& e : entries) {
    EncodeFixed32(p + 0, e.block);
    EncodeFixed32(p + 4, e.payload_len);
    p[8] = static_cast<char>(e.type);
    p[9] = static_cast<char>(e.flags);
    EncodeFixed64(p + 16, e.seq);
    EncodeFixed64(p + 24, e.collection_id);
    EncodeFixed64(p + 32, e.nid);
    EncodeFixed64(p + 40, e.logical_offset);
    p += kFooterEntrySize;
  }
  EncodeFixed32(p, crc32c::Value(out.data(), out.size() - 4));
  return out;
}

Result<std::vector<ZoneFooterEntry>> DecodeZoneFooter(std::string_view payload) {
  auto bad = [](const std::string& what) { return Status::Corruption("zone footer: " + what); };
  if (payload.size() < kFooterFixedSize) {
    return bad("payload of " + std::to_string(payload.size()) + " bytes is too short");
  }
  const uint64_t count = DecodeFixed32(payload.data());
  const uint64_t want = kFooterFixedSize + count * kFooterEntrySize;
  if (payload.size() != want) {
    return bad("payload of " + std::to_string(payload.size()) + " bytes, but " +
               std::to_string(count) + " entries need " + std::to_string(want));
  }
  const uint32_t stored_crc = DecodeFixed32(payload.data() + payload.size() - 4);
  if (stored_crc != crc32c::Value(payload.data(), payload.size() - 4)) {
    return bad("crc mismatch");
  }
  std::vector<ZoneFooterEntry> entries;
  entries.reserve(count);
  const char* p = payload.data() + 4;
  for (uint64_t i = 0; i < count; ++i, p += kFooterEntrySize) {
    ZoneFooterEntry e;
    e.block = DecodeFixed32(p + 0);
    e.payload_len = DecodeFixed32(p + 4);
    const uint8_t tag = static_cast<uint8_t>(p[8]);
    e.flags = static_cast<uint8_t>(p[9]);
    e.seq = DecodeFixed64(p + 16);
    e.collection_id = DecodeFixed64(p + 24);
    e.nid = DecodeFixed64(p + 32);
    e.logical_offset = DecodeFixed64(p + 40);
    const std::string where = "entry " + std::to_string(i) + ": ";
    if (!IsKnownRecordType(tag)) return bad(where + "unknown record type " + std::to_string(tag));
    e.type = static_cast<RecordType>(tag);
    if ((e.flags & ~kKnownFlags) != 0) return bad(where + "unknown flags " + Hex(e.flags));
    if (DecodeFixed16(p + 10) != 0 || DecodeFixed32(p + 12) != 0) {
      return bad(where + "nonzero reserved field");
    }
    if (!entries.empty() && e.block <= entries.back().block) {
      return bad(where + "block " + std::to_string(e.block) + " not after block " +
                 std::to_string(entries.back().block));
    }
    entries.push_back(e);
  }
  return entries;
}

size_t ZoneFooterRecordBytes(size_t n_entries) {
  return RecordBytes(kFooterFixedSize + uint64_t{n_entries} * kFooterEntrySize);
}

// ---- Store superblock ----

bool StoreSuperblock::operator==(const StoreSuperblock& o) const {
  return store_uuid == o.store_uuid && format_version == o.format_version &&
         drive_index == o.drive_index && nr_drives == o.nr_drives &&
         drive_uuids == o.drive_uuids && sequence == o.sequence &&
         created_unix_sec == o.created_unix_sec && mount_count == o.mount_count &&
         clean_umount == o.clean_umount && meta_path_hint == o.meta_path_hint &&
         max_record_payload == o.max_record_payload && inline_max == o.inline_max;
}

std::string EncodeStoreSuperblock(const StoreSuperblock& sb) {
  const size_t body_len =
      kSuperblockFixedBody + sb.drive_uuids.size() * 16 + sb.meta_path_hint.size();
  std::string out(kSuperblockPrefixSize + body_len + 4, '\0');
  char* p = out.data();
  EncodeFixed16(p + 0, kSuperblockMajor);
  EncodeFixed16(p + 2, kSuperblockMinor);
  EncodeFixed32(p + 4, static_cast<uint32_t>(body_len));
  char* b = p + kSuperblockPrefixSize;
  std::memcpy(b + 0, sb.store_uuid.data(), 16);
  EncodeFixed32(b + 16, sb.format_version);
  EncodeFixed32(b + 20, sb.drive_index);
  EncodeFixed32(b + 24, sb.nr_drives);
  b[28] = sb.clean_umount ? 1 : 0;
  EncodeFixed64(b + 32, sb.sequence);
  EncodeFixed64(b + 40, sb.created_unix_sec);
  EncodeFixed64(b + 48, sb.mount_count);
  EncodeFixed32(b + 56, sb.max_record_payload);
  EncodeFixed32(b + 60, sb.inline_max);
  EncodeFixed32(b + 64, static_cast<uint32_t>(sb.drive_uuids.size()));
  EncodeFixed32(b + 68, static_cast<uint32_t>(sb.meta_path_hint.size()));
  char* v = b + kSuperblockFixedBody;
  for (const Uuid& u : sb.drive_uuids) {
    std::memcpy(v, u.data(), 16);
    v += 16;
  }
  if (!sb.meta_path_hint.empty()) {
    std::memcpy(v, sb.meta_path_hint.data(), sb.meta_path_hint.size());
  }
  const size_t crc_at = kSuperblockPrefixSize + body_len;
  EncodeFixed32(p + crc_at, crc32c::Value(p, crc_at));
  return out;
}

Result<StoreSuperblock> DecodeStoreSuperblock(std::string_view payload) {
  auto bad = [](const std::string& what) {
    return Status::Corruption("store superblock: " + what);
  };
  if (payload.size() < kSuperblockPrefixSize + 4) {
    return bad("truncated (" + std::to_string(payload.size()) + " bytes)");
  }
  const char* p = payload.data();
  const uint16_t major = DecodeFixed16(p + 0);
  const uint16_t minor = DecodeFixed16(p + 2);
  const uint64_t body_len = DecodeFixed32(p + 4);
  const uint64_t want = kSuperblockPrefixSize + body_len + 4;
  if (payload.size() < want) {
    return bad("truncated (" + std::to_string(payload.size()) + " bytes, length field says " +
               std::to_string(want) + ")");
  }
  if (payload.size() > want) {
    return bad(std::to_string(payload.size() - want) + " trailing bytes after the crc");
  }
  const uint32_t stored_crc = DecodeFixed32(p + want - 4);
  if (stored_crc != crc32c::Value(p, want - 4)) return bad("crc mismatch");
  if (major != kSuperblockMajor) {
    return bad("unsupported version " + std::to_string(major) + "." + std::to_string(minor) +
               " (this build reads " + std::to_string(kSuperblockMajor) + ".x)");
  }
  if (body_len < kSuperblockFixedBody) {
    return bad("body of " + std::to_string(body_len) + " bytes is shorter than version " +
               std::to_string(major) + ".0 requires");
  }
  const char* b = p + kSuperblockPrefixSize;
  StoreSuperblock sb;
  std::memcpy(sb.store_uuid.data(), b + 0, 16);
  sb.format_version = DecodeFixed32(b + 16);
  sb.drive_index = DecodeFixed32(b + 20);
  sb.nr_drives = DecodeFixed32(b + 24);
  const uint8_t clean = static_cast<uint8_t>(b[28]);
  if (clean > 1) return bad("clean_umount byte " + std::to_string(clean) + " is not 0 or 1");
  sb.clean_umount = clean == 1;
  if (!AllZero(b + 29, 3)) return bad("nonzero reserved bytes");
  sb.sequence = DecodeFixed64(b + 32);
  sb.created_unix_sec = DecodeFixed64(b + 40);
  sb.mount_count = DecodeFixed64(b + 48);
  sb.max_record_payload = DecodeFixed32(b + 56);
  sb.inline_max = DecodeFixed32(b + 60);
  const uint64_t uuid_count = DecodeFixed32(b + 64);
  const uint64_t hint_len = DecodeFixed32(b + 68);
  if (sb.nr_drives == 0 || sb.nr_drives > kMaxDrives) {
    return bad("nr_drives " + std::to_string(sb.nr_drives) + " out of range [1, " +
               std::to_string(kMaxDrives) + "]");
  }
  if (uuid_count != sb.nr_drives) {
    return bad(std::to_string(uuid_count) + " drive uuids for nr_drives " +
               std::to_string(sb.nr_drives));
  }
  if (sb.drive_index >= sb.nr_drives) {
    return bad("drive_index " + std::to_string(sb.drive_index) + " >= nr_drives " +
               std::to_string(sb.nr_drives));
  }
  if (hint_len > kMaxMetaPathHint) {
    return bad("meta_path_hint of " + std::to_string(hint_len) + " bytes exceeds the limit");
  }
  // Minor 0 ends after the variable parts; a newer minor's fields follow and are ignored.
  if (body_len < kSuperblockFixedBody + uuid_count * 16 + hint_len) {
    return bad("body of " + std::to_string(body_len) + " bytes is too short for " +
               std::to_string(uuid_count) + " drive uuids and a " + std::to_string(hint_len) +
               "-byte meta_path_hint");
  }
  const char* v = b + kSuperblockFixedBody;
  sb.drive_uuids.resize(uuid_count);
  for (Uuid& u : sb.drive_uuids) {
    std::memcpy(u.data(), v, 16);
    v += 16;
  }
  sb.meta_path_hint.assign(v, hint_len);
  return sb;
}

std::string UuidToString(const Uuid& uuid) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(36);
  for (size_t i = 0; i < uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    s.push_back(kHex[uuid[i] >> 4]);
    s.push_back(kHex[uuid[i] & 0xf]);
  }
  return s;
}

Result<Uuid> UuidFromString(std::string_view s) {
  const Status bad = Status::InvalidArgument("not a uuid: '" + std::string(s.substr(0, 64)) +
                                             "' (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)");
  if (s.size() != 36) return bad;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  Uuid u{};
  size_t pos = 0;
  for (size_t i = 0; i < u.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      if (s[pos] != '-') return bad;
      ++pos;
    }
    const int hi = nibble(s[pos]);
    const int lo = nibble(s[pos + 1]);
    if (hi < 0 || lo < 0) return bad;
    u[i] = static_cast<uint8_t>(hi << 4 | lo);
    pos += 2;
  }
  return u;
}

Uuid NewRandomUuid() {
  std::random_device rd;
  Uuid u{};
  for (size_t i = 0; i < u.size(); i += 4) {
    const uint32_t r = rd();
    for (size_t j = 0; j < 4; ++j) u[i + j] = static_cast<uint8_t>(r >> (8 * j));
  }
  u[6] = static_cast<uint8_t>((u[6] & 0x0f) | 0x40);  // version 4
  u[8] = static_cast<uint8_t>((u[8] & 0x3f) | 0x80);  // RFC 4122 variant
  return u;
}

// ---- Scanning ----

RecordScan ScanRecordPrefix(std::string_view zone_bytes) {
  RecordScan scan;
  uint64_t off = 0;
  const uint64_t size = zone_bytes.size();
  while (off < size) {
    const char* block = zone_bytes.data() + off;
    if (size - off < kHeaderSize) {
      if (!AllZero(block, size - off)) {
        scan.status = Status::Corruption("partial non-zero block of " +
                                         std::to_string(size - off) + " bytes at offset " +
                                         std::to_string(off) + " (torn header?)");
      }
      break;
    }
    Result<RecordHeader> h = DecodeRecordHeader(block);
    if (!h.ok()) {
      if (!h.status().IsNotFound()) {
        scan.status = h.status().WithContext("record at offset " + std::to_string(off));
      }
      break;
    }
    const uint64_t bytes = h->record_bytes();
    if (bytes > size - off) {
      scan.status = Status::Corruption(
          "record at offset " + std::to_string(off) + " of " + std::to_string(bytes) +
          " bytes extends past the end of the " + std::to_string(size) + " bytes written");
      break;
    }
    scan.records.emplace_back(off, std::move(h).value());
    off += bytes;
  }
  scan.end_offset = off;
  return scan;
}

Result<std::vector<std::pair<uint64_t, RecordHeader>>> ScanRecords(std::string_view zone_bytes) {
  RecordScan scan = ScanRecordPrefix(zone_bytes);
  if (!scan.status.ok()) return scan.status;
  return std::move(scan.records);
}

}  // namespace smr
