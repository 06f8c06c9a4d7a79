// Small helpers the benchmark commands share: the clock they time with, durations as
// seconds or nanoseconds, numbers as their text and their JSON give them, the JSON
// documents' printed form, and object names.
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/json.h"
#include "format/object_id.h"

namespace smr::tool {

using Clock = std::chrono::steady_clock;

inline double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

inline uint64_t Nanos(Clock::duration d) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

// `v` with 6 significant digits (%.6g), as the bench's messages and device specs print
// it; "null" for NaN and infinities.
inline std::string Num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

// A measured figure as the bench's JSON gives it: the double Num(v) prints (6 significant
// digits), or null for NaN and infinities (a rate over zero seconds).
inline Json JsonNum(double v) {
  if (!std::isfinite(v)) return nullptr;
  return std::strtod(Num(v).c_str(), nullptr);
}

// A benchmark's JSON document as it prints it: members one a line, indented one space a
// level, bytes that are not UTF-8 as U+FFFD; with the final newline.
inline std::string JsonText(const Json& doc) {
  return doc.dump(1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace) + "\n";
}

// Object number `i` of a benchmark: named `prefix` + i in pool 1, its placement hash
// Knuth's multiplicative hash of i.
inline ObjectId BenchObject(const std::string& prefix, uint64_t i) {
  ObjectId o;
  o.pool = 1;
  o.name = prefix + std::to_string(i);
  o.hash = static_cast<uint32_t>(i * 2654435761u);
  return o;
}

}  // namespace smr::tool
