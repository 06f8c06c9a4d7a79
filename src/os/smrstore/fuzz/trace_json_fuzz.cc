// Fuzz target: a document read by ParseJson (common/json.h), as `smrstore-tool replay` reads
// a capture's trace.json and expected.json, written back by the library and read again, and
// every number in it through JsonU64 (replay's reading of sizes and offsets).
// Properties:
//   * never a crash, bad read or exception (ParseJson and JsonU64 report errors as Status);
//   * deterministic, and whitespace around the document changes nothing;
//   * read -> write -> read gives an equal value, and write is then a fixed point;
//   * JsonU64 accepts exactly the non-negative integral numbers, and gives their value.
#include <cmath>
#include <cstdint>
#include <string>

#include "common/json.h"
#include "fuzz_check.h"

namespace {

using smr::Json;

void CheckNumbers(const Json& j) {
  if (j.is_structured()) {
    for (const Json& v : j) CheckNumbers(v);
    return;
  }
  auto u = smr::JsonU64(j, "value");
  if (j.is_number_unsigned()) {
    FUZZ_CHECK(u.ok() && *u == j.get<uint64_t>());
  } else if (j.is_number_integer()) {
    FUZZ_CHECK(u.ok() == (j.get<int64_t>() >= 0));
  } else if (j.is_number_float()) {
    const double d = j.get<double>();
    if (u.ok()) FUZZ_CHECK(d >= 0 && std::floor(d) == d && static_cast<double>(*u) == d);
  } else {
    FUZZ_CHECK(!u.ok());
  }
}

std::string Write(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::strict); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string doc(reinterpret_cast<const char*>(data), size);
  auto a = smr::ParseJson(doc);
  // Whitespace goes after a leading UTF-8 BOM, the only place the library skips one.
  const std::string bom = "\xEF\xBB\xBF";
  const bool has_bom = doc.compare(0, bom.size(), bom) == 0;
  auto b = smr::ParseJson(has_bom ? bom + " " + doc.substr(bom.size()) + "\n" : " " + doc + "\n");
  FUZZ_CHECK(a.ok() == b.ok());
  if (!a.ok()) return 0;
  FUZZ_CHECK(*a == *b);
  CheckNumbers(*a);
  const std::string wa = Write(*a);  // strict: parsed strings are valid UTF-8
  auto c = smr::ParseJson(wa);
  FUZZ_CHECK(c.ok());
  if (!c.ok()) return 0;
  // Floats are written in their shortest round-trip form: equal values, not just text.
  FUZZ_CHECK(*c == *a);
  FUZZ_CHECK(Write(*c) == wa);
  return 0;
}
