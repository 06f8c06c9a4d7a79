// Lifetime inference for placement (SepBIT-like): an object written under a name whose
// previous incarnation lived a short time is predicted to live a short time again, so its
// data goes to the "hot" user stream and dies together with other hot data.
//
// Contract
//   LifetimeHistory remembers, per name (a 64-bit hash of collection + object key chosen by
//   the caller), the mean lifetime of the name's incarnations that died (removed, or
//   overwritten whole): a running mean over the last ~kWindow deaths (weight
//   max(1/count, 1/kWindow) for the newest), because one exponential lifetime alone is a
//   noisy estimate of how hot a name is (simulated: doc/design.md). It holds at most `capacity` names; past that the oldest noted name is
//   forgotten first (FIFO), so memory is bounded (about 40 bytes a name). A hash collision
//   only costs placement quality, never correctness: this is a hint, kept in memory only,
//   empty after a mount.
//   NextMeanLifetime(mean, age): the store's mean lifetime of objects that died, an
//   exponential moving average in which each new age weighs 1/100 (mean 0 = none yet: the
//   first age sets it). Ages are >= 0, so the mean is too.
//   PredictShortLived(prev, mean): true iff a previous lifetime is known and is below the
//   mean lifetime of the objects that died recently (mean > 0). Unknown history -> false
//   (the default user stream).
// Thread safety: LifetimeHistory is internally synchronized; PredictShortLived is pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "common/thread_annotations.h"

namespace smr {

class LifetimeHistory {
 public:
  explicit LifetimeHistory(size_t capacity = 1 << 16);

  static constexpr uint32_t kWindow = 8;

  void Note(uint64_t name_hash, uint64_t lifetime);
  // The name's mean lifetime, if any incarnation of it died.
  std::optional<uint64_t> Lookup(uint64_t name_hash) const;
  size_t size() const;

 private:
  struct Entry {
    double lifetime = 0;  // running mean
    uint32_t count = 0;   // deaths seen, capped at kWindow
    uint64_t stamp = 0;  // which Note() wrote it; stale FIFO entries are skipped on evict
  };
  const size_t capacity_;
  mutable Mutex mu_;
  std::unordered_map<uint64_t, Entry> names_ SMR_GUARDED_BY(mu_);
  std::deque<std::pair<uint64_t, uint64_t>> fifo_ SMR_GUARDED_BY(mu_);  // (hash, stamp)
  uint64_t stamp_ SMR_GUARDED_BY(mu_) = 0;
};

double NextMeanLifetime(double mean, double age);
bool PredictShortLived(std::optional<uint64_t> prev_lifetime, double mean_lifetime);

}  // namespace smr
