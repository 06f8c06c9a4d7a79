#include "gc/quantum_sizer.h"

#include <algorithm>
#include <cmath>

namespace smr {

uint64_t QuantumSizer::Next(double bound_ms) {
  ++calls_;
  double target;
  if (fitted_) {
    target = fixed_ms_ >= bound_ms ? 0 : (bound_ms - fixed_ms_) * kShare / ms_per_byte_;
  } else if (samples_.size() < 2) {
    target = static_cast<double>(samples_.empty() ? kFirstProbe : 2 * kFirstProbe);
  } else {
    // No fit yet: all of a quantum's time taken as proportional to its bytes.
    double bytes = 0, ms = 0;
    for (const Sample& s : samples_) {
      bytes += s.bytes;
      ms += s.ms;
    }
    target = ms > 0 ? bound_ms / 2 * bytes / ms : static_cast<double>(kFirstProbe);
  }
  if (fitted_ || samples_.size() >= 2) {
    static constexpr double kDither[] = {1.0, 1.25, 0.75};
    target *= kDither[calls_ % 3];
  }
  uint64_t bytes = static_cast<uint64_t>(std::min(target, static_cast<double>(kMaxBytes)));
  if (halve_next_ && last_ > 0) {
    bytes = std::min(bytes, last_ / 2);
    halve_next_ = false;
  }
  last_ = std::clamp(bytes, kMinBytes, kMaxBytes);
  return last_;
}

void QuantumSizer::Note(uint64_t bytes, double ms, double bound_ms) {
  if (ms > bound_ms) halve_next_ = true;
  if (bytes < kMinSample || !(ms > 0)) return;
  samples_.push_back(Sample{static_cast<double>(bytes), ms});
  if (samples_.size() > kWindow) samples_.pop_front();
  Fit();
}

void QuantumSizer::Fit() {
  if (samples_.size() < 3) return;
  double mb = 0, mm = 0, lo = samples_.front().bytes, hi = lo;
  for (const Sample& s : samples_) {
    mb += s.bytes;
    mm += s.ms;
    lo = std::min(lo, s.bytes);
    hi = std::max(hi, s.bytes);
  }
  const double n = static_cast<double>(samples_.size());
  mb /= n;
  mm /= n;
  if (hi < lo * 1.2) return;  // sizes too alike to tell fixed cost from rate
  double cov = 0, var = 0;
  for (const Sample& s : samples_) {
    cov += (s.bytes - mb) * (s.ms - mm);
    var += (s.bytes - mb) * (s.bytes - mb);
  }
  const double slope = cov / var;
  if (!(slope > 0)) return;  // noise drowned the size's effect: keep the previous fit
  ms_per_byte_ = slope;
  fixed_ms_ = std::max(0.0, mm - slope * mb);
  fitted_ = true;
}

}  // namespace smr
