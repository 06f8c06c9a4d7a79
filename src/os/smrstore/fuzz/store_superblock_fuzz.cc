// Fuzz target: the store superblock decoder (DecodeStoreSuperblock, format/record.h), as the
// superblock log reads it (store/superblock_log.cc: a kSuperblock record whose payload is
// the superblock). The input is the payload. Decoded twice: as given, and with its
// trailing crc32c made correct.
// Properties, when the decoder accepts:
//   * fields consistent: 1 <= nr_drives <= kMaxDrives, drive_uuids.size() == nr_drives,
//     drive_index < nr_drives, meta_path_hint <= kMaxMetaPathHint;
//   * DecodeStoreSuperblock(EncodeStoreSuperblock(sb)) == sb;
//   * canonical: a 1.0 payload with no bytes after the known fields re-encodes to the same
//     bytes; one with a newer minor / appended fields re-encodes to the 1.0 form;
//   * the payload wrapped in a superblock record (AppendRecord) decodes as the superblock
//     log decodes a slot: header ok, payload crc ok, same superblock.
#include <cstdint>
#include <string>
#include <string_view>

#include "common/coding.h"
#include "common/crc32c.h"
#include "format/record.h"
#include "fuzz_check.h"

namespace {

using namespace smr;

void Check(const std::string& payload) {
  auto sb = DecodeStoreSuperblock(payload);
  if (!sb.ok()) {
    FUZZ_CHECK(sb.status().IsCorruption());
    return;
  }
  FUZZ_CHECK(sb->nr_drives >= 1 && sb->nr_drives <= recfmt::kMaxDrives);
  FUZZ_CHECK(sb->drive_uuids.size() == sb->nr_drives);
  FUZZ_CHECK(sb->drive_index < sb->nr_drives);
  FUZZ_CHECK(sb->meta_path_hint.size() <= recfmt::kMaxMetaPathHint);
  const std::string again = EncodeStoreSuperblock(*sb);
  auto sb2 = DecodeStoreSuperblock(again);
  FUZZ_CHECK(sb2.ok() && *sb2 == *sb);
  const uint16_t minor = DecodeFixed16(payload.data() + 2);
  const bool exact_1_0 = minor == recfmt::kSuperblockMinor && payload.size() == again.size();
  if (exact_1_0) FUZZ_CHECK(again == payload);
  FUZZ_CHECK(again.size() <= payload.size());

  RecordHeader h;
  h.type = RecordType::kSuperblock;
  h.seq = sb->sequence;
  std::string record;
  AppendRecord(h, payload, &record);
  auto rh = DecodeRecordHeader(record.data());
  FUZZ_CHECK(rh.ok() && rh->type == RecordType::kSuperblock);
  FUZZ_CHECK(rh->payload_len == payload.size());
  FUZZ_CHECK(VerifyPayload(*rh, record.data() + recfmt::kHeaderSize).ok());
  auto sb3 = DecodeStoreSuperblock(
      std::string_view(record.data() + recfmt::kHeaderSize, rh->payload_len));
  FUZZ_CHECK(sb3.ok() && *sb3 == *sb);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string payload(reinterpret_cast<const char*>(data), size);
  Check(payload);
  if (size >= 4) {
    EncodeFixed32(payload.data() + size - 4, crc32c::Value(payload.data(), size - 4));
    Check(payload);
  }
  return 0;
}
