// Small helpers the benchmark commands share: the clock they time with, durations as
// seconds or nanoseconds, numbers as the bench's JSON prints them, and object names.
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "format/object_id.h"

namespace smr::tool {

using Clock = std::chrono::steady_clock;

inline double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

inline uint64_t Nanos(Clock::duration d) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

// `v` with 6 significant digits (%.6g); "null" for NaN and infinities.
inline std::string Num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
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
