// Fuzz target: the JSON reader of `smrstore-tool replay` (Json / JsonReader of
// src/tools/replay_command.cc), which reads a capture's trace.json and expected.json: files
// from outside the store. Its exact source is copied in at configure time (CMakeLists.txt).
// The reader reports bad input by throwing; replay catches std::exception.
// Properties:
//   * never a crash, bad read, or an exception that is not a std::exception;
//   * deterministic, and whitespace around the document changes nothing;
//   * a parsed document re-serialized (Dump below: canonical JSON) parses again to a
//     document that serializes identically (write -> read -> write is a fixed point).
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "fuzz_check.h"

namespace {
#include "json_reader_types.inc"
#include "json_reader.inc"

void DumpString(const std::string& s, std::string* out) {
  *out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      *out += '\\';
      *out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      *out += buf;
    } else {
      *out += static_cast<char>(c);
    }
  }
  *out += '"';
}

void Dump(const Json& j, std::string* out) {
  if (std::holds_alternative<std::nullptr_t>(j.v)) {
    *out += "null";
  } else if (const bool* b = std::get_if<bool>(&j.v)) {
    *out += *b ? "true" : "false";
  } else if (const double* d = std::get_if<double>(&j.v)) {
    if (std::isnan(*d)) {
      *out += "null";  // not representable; the reader never yields NaN from digits
    } else if (std::isinf(*d)) {
      *out += *d > 0 ? "1e999" : "-1e999";  // what the reader's strtod turns into inf
    } else {
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%.17g", *d);
      *out += buf;
    }
  } else if (const std::string* s = std::get_if<std::string>(&j.v)) {
    DumpString(*s, out);
  } else if (j.is_array()) {
    *out += '[';
    for (size_t i = 0; i < j.arr().size(); ++i) {
      if (i) *out += ',';
      Dump(j.arr()[i], out);
    }
    *out += ']';
  } else {
    *out += '{';
    bool first = true;
    for (const auto& [k, v] : j.obj()) {
      if (!first) *out += ',';
      first = false;
      DumpString(k, out);
      *out += ':';
      Dump(v, out);
    }
    *out += '}';
  }
}

bool Parse(const std::string& s, Json* j) {
  try {
    *j = JsonReader(s).Parse();
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string doc(reinterpret_cast<const char*>(data), size);
  Json a, b;
  const bool ok = Parse(doc, &a);
  FUZZ_CHECK(Parse(" " + doc + "\n", &b) == ok);
  if (!ok) return 0;
  std::string da, db;
  Dump(a, &da);
  Dump(b, &db);
  FUZZ_CHECK(da == db);
  Json c;
  FUZZ_CHECK(Parse(da, &c));
  std::string dc;
  Dump(c, &dc);
  FUZZ_CHECK(dc == da);
  return 0;
}
