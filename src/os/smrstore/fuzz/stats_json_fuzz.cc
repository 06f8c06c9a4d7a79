// Fuzz target: ParseJson + FlattenJson of common/json.h (nlohmann::json underneath), which
// read every JSON document smrstore takes from outside: `smrstore-tool replay`'s captures,
// and print the stats documents as `path value` lines (`smrstore-tool stats`).
// Properties:
//   * never a crash, bad read, uncaught exception or unbounded use of memory;
//   * deterministic, and blind to whitespace around the document (after a leading BOM);
//   * an accepted document followed by a stray non-space byte is refused;
//   * an accepted document nests at most kMaxJsonDepth objects/arrays and names no member
//     twice in one object (the rules ParseJson adds to the library's);
//   * at most one path/value pair per byte of the document; a string value comes back
//     through JsonEscape as the same string.
#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/json.h"
#include "fuzz_check.h"

namespace {

using smr::Json;

// `doc` with whitespace around it. The library skips a UTF-8 byte order mark at the very
// start of the input only (found by the long run: BOM + "33333333" was accepted, " \n" +
// it refused), so the padding goes after a leading BOM.
std::string Padded(const std::string& doc, const char* before, const char* after) {
  const std::string bom = "\xEF\xBB\xBF";
  if (doc.compare(0, bom.size(), bom) == 0) return bom + before + doc.substr(bom.size()) + after;
  return before + doc + after;
}

int Depth(const Json& j) {
  int d = 0;
  if (j.is_structured()) {
    for (const Json& v : j) d = std::max(d, Depth(v));
    return d + 1;
  }
  return 0;
}

bool NamesUnique(const Json& j) {
  if (j.is_object()) {
    std::set<std::string> names;
    for (const auto& [k, v] : j.items()) {
      if (!names.insert(k).second || !NamesUnique(v)) return false;
    }
  } else if (j.is_array()) {
    for (const Json& v : j) {
      if (!NamesUnique(v)) return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string doc(reinterpret_cast<const char*>(data), size);
  auto a = smr::ParseJson(doc);
  auto padded = smr::ParseJson(Padded(doc, " \n", "\n "));
  FUZZ_CHECK(padded.ok() == a.ok());
  if (!a.ok()) return 0;
  FUZZ_CHECK(*padded == *a);
  FUZZ_CHECK(!smr::ParseJson(doc + "x").ok());
  FUZZ_CHECK(Depth(*a) <= smr::kMaxJsonDepth);
  FUZZ_CHECK(NamesUnique(*a));
  const auto pairs = smr::FlattenJson(*a);
  FUZZ_CHECK(pairs.size() <= doc.size());
  for (const auto& [path, value] : pairs) {
    auto back = smr::ParseJson("\"" + smr::JsonEscape(value) + "\"");
    // Parsed strings are valid UTF-8 (the library checks) and numbers ASCII: nothing is
    // replaced, the value comes back exactly.
    FUZZ_CHECK(back.ok() && back->get<std::string>() == value);
  }
  return 0;
}
