// Per-stream death rates for the lifetime victim policy (gc/victim_policy.h, kLifetime).
//
// Contract
//   A stream's death rate is the fraction of its live bytes that die per unit of age:
//     rate(s) = bytes of s that died / integral over time of s's live bytes.
//   The caller reports deaths (NoteDied: bytes removed or overwritten by the user; moves by
//   GC are not deaths) and advances the clock (Advance(now, live): the live bytes per
//   stream held since the previous Advance, weighted by the time since it). Time is any
//   monotonic unit (the store uses transaction seqs). Until a stream held live bytes for a
//   positive time its rate is 0 ("unknown": kLifetime then ranks its zones as
//   cost-benefit does). Estimates cover everything since construction (the store: since
//   mount), not a window.
//   Invariants: rates are >= 0 and finite; Rates().size() == streams(); a stream index out
//   of range or a clock that does not move forward changes nothing.
// Thread safety: none; the store updates and reads it on its commit thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace smr {

class DeathRateEstimator {
 public:
  explicit DeathRateEstimator(size_t streams);

  size_t streams() const { return died_.size(); }
  // `bytes` of stream `stream` died.
  void NoteDied(size_t stream, uint64_t bytes);
  // A zone of stream `stream` changed its live bytes by `delta` by user action: a drop is
  // that many bytes dying, a rise (data written) is no death.
  void NoteLiveDelta(size_t stream, int64_t delta);
  // Time moved to `now`; live[s] bytes of stream s were live since the previous Advance
  // (the clock starts at 0: start it elsewhere with an Advance whose `live` is empty).
  // Entries past streams() are ignored.
  void Advance(uint64_t now, const std::vector<uint64_t>& live);
  // Per stream, best estimate of the death rate per age unit (0 = unknown).
  std::vector<double> Rates() const;

 private:
  std::vector<double> died_;           // bytes that died, per stream
  std::vector<double> live_integral_;  // sum of live bytes x elapsed time, per stream
  uint64_t last_ = 0;                  // clock at the previous Advance
};

}  // namespace smr
