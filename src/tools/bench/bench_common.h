// Small helpers the benchmark commands share: object names and a window of transactions in
// flight; the clock and number formatting (Clock, Seconds, Nanos, Num, JsonNum, JsonText)
// are in cli/measure.h, included here.
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

#include "cli/measure.h"
#include "common/json.h"
#include "common/status.h"
#include "format/object_id.h"

namespace smr::tool {

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
