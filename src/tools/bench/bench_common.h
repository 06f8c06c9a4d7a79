// Small helpers the benchmark commands share: the clock they time with, durations as
// seconds or nanoseconds, numbers as their text and their JSON give them, the JSON
// documents' printed form, object names, and a window of transactions in flight.
// Thread safety: pure functions; InFlightWindow is internally synchronized.
#pragma once

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "common/json.h"
#include "common/status.h"
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

// Keeps up to `depth` transactions in flight: Acquire before a Submit, Release from its
// callback; Drain waits for all and returns the first error a callback reported.
class InFlightWindow {
 public:
  explicit InFlightWindow(size_t depth) : depth_(depth) {}
  void Acquire() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return inflight_ < depth_; });
    ++inflight_;
  }
  void Release(const Status& s) {
    std::lock_guard<std::mutex> lock(mu_);
    --inflight_;
    if (!s.ok() && first_error_.ok()) first_error_ = s;
    cv_.notify_all();
  }
  Status Drain() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return inflight_ == 0; });
    return first_error_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  const size_t depth_;
  size_t inflight_ = 0;
  Status first_error_;
};

}  // namespace smr::tool
