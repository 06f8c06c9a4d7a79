#include "gc/quantum_sizer.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace smr {

uint64_t QuantumSizer::Next(double bound_ms) {
  ++calls_;
  double target;
  if (fitted_) {
    target = fixed_ms_ >= bound_ms ? 0 : (bound_ms - fixed_ms_) * share_ / ms_per_byte_;
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
  // Theil-Sen: the slope is the median of the slopes between pairs of quanta of different
  // sizes, the fixed cost the median of what each quantum took beyond slope * bytes. A few
  // quanta that also paid for a zone's reset, a checkpoint or a stall of the host do not
  // move it (a least-squares fit followed them).
  if (samples_.size() < 3) return;
  double lo = samples_.front().bytes, hi = lo;
  for (const Sample& s : samples_) {
    lo = std::min(lo, s.bytes);
    hi = std::max(hi, s.bytes);
  }
  if (hi < lo * 1.2) return;  // sizes too alike to tell fixed cost from rate
  std::vector<double> slopes;
  for (size_t i = 0; i < samples_.size(); ++i) {
    for (size_t j = i + 1; j < samples_.size(); ++j) {
      const double db = samples_[j].bytes - samples_[i].bytes;
      if (std::fabs(db) < 0.1 * std::max(samples_[i].bytes, samples_[j].bytes)) continue;
      slopes.push_back((samples_[j].ms - samples_[i].ms) / db);
    }
  }
  if (slopes.size() < 3) return;
  std::nth_element(slopes.begin(), slopes.begin() + slopes.size() / 2, slopes.end());
  const double slope = slopes[slopes.size() / 2];
  if (!(slope > 0)) return;  // noise drowned the size's effect: keep the previous fit
  std::vector<double> rest;
  for (const Sample& s : samples_) rest.push_back(s.ms - slope * s.bytes);
  std::nth_element(rest.begin(), rest.begin() + rest.size() / 2, rest.end());
  ms_per_byte_ = slope;
  fixed_ms_ = std::max(0.0, rest[rest.size() / 2]);
  fitted_ = true;
}

}  // namespace smr
