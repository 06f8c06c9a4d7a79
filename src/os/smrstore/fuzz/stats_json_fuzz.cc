// Fuzz target: the stats document reader of smrstore-tool — JsonFlattener of
// src/tools/store_commands.cc, which `smrstore-tool stats` (path/value lines) and `fsck
// --json` use on Store::StatsJson() (strings in it come from outside: store dir, drive
// specs, store name). Its exact source is copied in at configure time (CMakeLists.txt).
// Properties:
//   * never a crash, bad read or unbounded use of memory;
//   * deterministic, and blind to whitespace around the document: " \n" + doc + "\n "
//     gives the same result and the same path/value pairs;
//   * an accepted object or array followed by a non-space byte is rejected (a bare scalar
//     is read up to the next ',', '}', ']' or space, so it would absorb the byte);
//   * at most one path/value pair per byte of the document.
#include <cctype>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "fuzz_check.h"

namespace smr {
namespace {
#include "json_flattener.inc"
}  // namespace
}  // namespace smr

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

bool Flatten(const std::string& s, Pairs* out) {
  return smr::JsonFlattener(s).Run(out).ok();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string doc(reinterpret_cast<const char*>(data), size);
  Pairs a, padded;
  const bool ok = Flatten(doc, &a);
  // Deterministic and blind to surrounding whitespace, accepted or not.
  FUZZ_CHECK(Flatten(" \n" + doc + "\n ", &padded) == ok);
  if (!ok) return 0;
  FUZZ_CHECK(padded == a);
  size_t first = 0;
  while (first < doc.size() && std::isspace(static_cast<unsigned char>(doc[first]))) ++first;
  const bool container = first < doc.size() && (doc[first] == '{' || doc[first] == '[');
  // (A bare scalar runs to the next ',', '}', ']' or space, so "1" + "x" is one value.)
  Pairs trailing;
  if (container) FUZZ_CHECK(!Flatten(doc + "x", &trailing));
  // Every value is at least one byte of the document.
  FUZZ_CHECK(a.size() <= doc.size());
  return 0;
}
