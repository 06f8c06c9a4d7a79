// Fuzz target: the record header decoder (DecodeRecordHeader) and the zone scanner built on
// it (ScanRecordPrefix), format/record.h. The input is a zone's written bytes.
//
// Two passes over the same bytes:
//   1. as given: the decoder must reject (or accept) without a bad read;
//   2. "crc-fixed": each header the walk reaches gets a correct header crc, so the
//      fuzzer gets past the crc check and exercises every rule after it.
// Properties, for every header the decoder accepts:
//   * canonical: EncodeRecordHeader(decoded) reproduces the 4096 input bytes exactly (the
//     decoder accepts only what a version-1 writer produces); for a key-omitted header the
//     writer's input is the decoded header with a key too long for the header (the
//     encoder sets kFlagKeyOmitted itself; an empty key would clear it);
//   * DecodeRecordHeader(EncodeRecordHeader(h)) == h.
// Scanner: offsets are block-aligned and strictly increasing, every record lies inside the
// buffer, end_offset is the end of the last record, ok status only at the buffer's end or
// at a zero block, and the records are exactly those a header-by-header walk finds.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "common/coding.h"
#include "common/crc32c.h"
#include "format/record.h"
#include "fuzz_check.h"

namespace {

using namespace smr;

// The first byte is zero and every byte equals the next: one memcmp instead of a byte
// loop (a header's check covers up to 4 KiB; the byte loop was most of a decode's time).
bool AllZero(const char* p, size_t n) {
  return n == 0 || (p[0] == 0 && std::memcmp(p, p + 1, n - 1) == 0);
}

// `h` is DecodeRecordHeader(block).
void CheckHeader(const char* block, const Result<RecordHeader>& h) {
  if (!h.ok()) {
    FUZZ_CHECK(h.status().IsNotFound() == AllZero(block, recfmt::kHeaderSize));
    return;
  }
  // A key-omitted header decodes with an empty key; the writer sets kFlagKeyOmitted only
  // for a key too long for the header, so re-encode it with such a key.
  RecordHeader writer_input = *h;
  if (h->key_omitted()) writer_input.object_key.assign(recfmt::kMaxObjectKeyLen + 1, 'k');
  std::string again(recfmt::kHeaderSize, '\0');
  EncodeRecordHeader(writer_input, again.data());
  FUZZ_CHECK(std::memcmp(again.data(), block, recfmt::kHeaderSize) == 0);
  Result<RecordHeader> h2 = DecodeRecordHeader(again.data());
  FUZZ_CHECK(h2.ok() && *h2 == *h);
  FUZZ_CHECK(h->record_bytes() >= recfmt::kHeaderSize + h->payload_len);
}

void CheckScan(std::string_view zone) {
  // The walk the scanner must agree with.
  std::vector<std::pair<uint64_t, RecordHeader>> walk;
  uint64_t off = 0;
  while (zone.size() - off >= recfmt::kHeaderSize) {
    Result<RecordHeader> h = DecodeRecordHeader(zone.data() + off);
    CheckHeader(zone.data() + off, h);
    if (!h.ok() || h->record_bytes() > zone.size() - off) break;
    walk.emplace_back(off, *h);
    off += h->record_bytes();
  }
  RecordScan scan = ScanRecordPrefix(zone);
  FUZZ_CHECK(scan.records == walk);
  FUZZ_CHECK(scan.end_offset == off);
  FUZZ_CHECK(scan.end_offset <= zone.size());
  if (scan.status.ok()) {
    const size_t rest = zone.size() - scan.end_offset;
    FUZZ_CHECK(rest == 0 ||
               AllZero(zone.data() + scan.end_offset, std::min<size_t>(rest, recfmt::kHeaderSize)));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string zone(reinterpret_cast<const char*>(data), size);
  CheckScan(zone);
  // Pass 2: fix the header crc of each block the walk reaches.
  uint64_t off = 0;
  while (zone.size() - off >= recfmt::kHeaderSize) {
    char* block = zone.data() + off;
    if (AllZero(block, recfmt::kHeaderSize)) break;
    EncodeFixed32(block + recfmt::kHeaderCrcOffset,
                  crc32c::Value(block, recfmt::kHeaderCrcOffset));
    Result<RecordHeader> h = DecodeRecordHeader(block);
    if (!h.ok() || h->record_bytes() > zone.size() - off) break;
    off += h->record_bytes();
  }
  CheckScan(zone);
  return 0;
}
