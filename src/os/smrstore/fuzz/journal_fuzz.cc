// Fuzz target: the metadata journal's payload decoders (format/journal.h), journal ops
// and checkpoint chunks: what rebuild-meta reads back from the zones. The first input byte
// picks the decoder, the rest is the payload.
// Properties, when the decoder accepts:
//   * canonical: re-encoding reproduces the payload byte for byte;
//   * decode(encode(x)) == x;
// and a refusal is always kCorruption.
#include <cstdint>
#include <string>

#include "format/journal.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace smr;
  if (size == 0) return 0;
  const std::string payload(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    auto kvs = DecodeCheckpointChunk(payload);
    if (!kvs.ok()) {
      FUZZ_CHECK(kvs.status().IsCorruption());
      return 0;
    }
    const std::string again = EncodeCheckpointChunk(*kvs);
    FUZZ_CHECK(again == payload);
    auto k2 = DecodeCheckpointChunk(again);
    FUZZ_CHECK(k2.ok() && *k2 == *kvs);
    return 0;
  }
  auto ops = DecodeJournalOps(payload);
  if (!ops.ok()) {
    FUZZ_CHECK(ops.status().IsCorruption());
    return 0;
  }
  const std::string again = EncodeJournalOps(*ops);
  FUZZ_CHECK(again == payload);
  auto o2 = DecodeJournalOps(again);
  FUZZ_CHECK(o2.ok() && *o2 == *ops);
  return 0;
}
