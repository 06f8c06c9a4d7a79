// Fuzz target: the zone footer decoder (DecodeZoneFooter, format/record.h). The input is a
// footer record's payload. Decoded twice: as given, and with its trailing crc32c made
// correct (so the checks after the crc are reached).
// Properties, when the decoder accepts:
//   * canonical: EncodeZoneFooter(entries) reproduces the payload byte for byte;
//   * DecodeZoneFooter(EncodeZoneFooter(entries)) == entries;
//   * blocks strictly increasing, every type known, no unknown flag;
//   * size = ZoneFooterRecordBytes(n) - padding, i.e. RecordBytes(payload) matches.
#include <cstdint>
#include <string>

#include "common/coding.h"
#include "common/crc32c.h"
#include "format/record.h"
#include "fuzz_check.h"

namespace {

using namespace smr;

void Check(const std::string& payload) {
  auto entries = DecodeZoneFooter(payload);
  if (!entries.ok()) {
    FUZZ_CHECK(entries.status().IsCorruption());
    return;
  }
  const std::string again = EncodeZoneFooter(*entries);
  FUZZ_CHECK(again == payload);
  auto e2 = DecodeZoneFooter(again);
  FUZZ_CHECK(e2.ok() && *e2 == *entries);
  for (size_t i = 0; i < entries->size(); ++i) {
    const ZoneFooterEntry& e = (*entries)[i];
    FUZZ_CHECK(IsKnownRecordType(static_cast<uint8_t>(e.type)));
    FUZZ_CHECK((e.flags & ~recfmt::kKnownFlags) == 0);
    if (i > 0) FUZZ_CHECK(e.block > (*entries)[i - 1].block);
  }
  FUZZ_CHECK(ZoneFooterRecordBytes(entries->size()) == RecordBytes(payload.size()));
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
