// The clock and the number formatting of every smrstore-tool command that measures (the
// benchmarks in bench/, and convert / plan-conversion in commands/): the clock they time
// with, durations as seconds or nanoseconds, numbers as their text and their JSON give
// them, the JSON documents' printed form. Moved here from bench/bench_common.h unchanged.
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/json.h"

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

}  // namespace smr::tool
