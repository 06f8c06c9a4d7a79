#include "gc/lifetime_history.h"

namespace smr {

LifetimeHistory::LifetimeHistory(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

void LifetimeHistory::Note(uint64_t name_hash, uint64_t lifetime) {
  MutexLock lock(&mu_);
  const uint64_t stamp = ++stamp_;
  Entry& e = names_[name_hash];
  if (e.count < kWindow) ++e.count;
  e.lifetime += (static_cast<double>(lifetime) - e.lifetime) / e.count;
  e.stamp = stamp;
  fifo_.emplace_back(name_hash, stamp);
  while (names_.size() > capacity_ || fifo_.size() > 2 * capacity_) {
    const auto [hash, s] = fifo_.front();
    fifo_.pop_front();
    auto it = names_.find(hash);
    if (it != names_.end() && it->second.stamp == s) names_.erase(it);
  }
}

std::optional<uint64_t> LifetimeHistory::Lookup(uint64_t name_hash) const {
  MutexLock lock(&mu_);
  auto it = names_.find(name_hash);
  if (it == names_.end()) return std::nullopt;
  return static_cast<uint64_t>(it->second.lifetime);
}

size_t LifetimeHistory::size() const {
  MutexLock lock(&mu_);
  return names_.size();
}

double NextMeanLifetime(double mean, double age) {
  return mean == 0 ? age : 0.99 * mean + 0.01 * age;
}

bool PredictShortLived(std::optional<uint64_t> prev_lifetime, double mean_lifetime) {
  return prev_lifetime.has_value() && mean_lifetime > 0 &&
         static_cast<double>(*prev_lifetime) < mean_lifetime;
}

}  // namespace smr
