#include "gc/death_rate.h"

#include <algorithm>

namespace smr {

DeathRateEstimator::DeathRateEstimator(size_t streams)
    : died_(streams, 0.0), live_integral_(streams, 0.0) {}

void DeathRateEstimator::NoteDied(size_t stream, uint64_t bytes) {
  if (stream < died_.size()) died_[stream] += static_cast<double>(bytes);
}

void DeathRateEstimator::NoteLiveDelta(size_t stream, int64_t delta) {
  if (delta >= 0) return;
  NoteDied(stream, static_cast<uint64_t>(-(delta + 1)) + 1);  // -INT64_MIN without overflow
}

void DeathRateEstimator::Advance(uint64_t now, const std::vector<uint64_t>& live) {
  if (now <= last_) return;
  const double dt = static_cast<double>(now - last_);
  last_ = now;
  const size_t n = std::min(live.size(), live_integral_.size());
  for (size_t s = 0; s < n; ++s) live_integral_[s] += static_cast<double>(live[s]) * dt;
}

std::vector<double> DeathRateEstimator::Rates() const {
  std::vector<double> rates(died_.size(), 0.0);
  for (size_t s = 0; s < rates.size(); ++s) {
    if (live_integral_[s] > 0) rates[s] = died_[s] / live_integral_[s];
  }
  return rates;
}

}  // namespace smr
