// Sizing the quanta of a hybrid conversion's migration (store/hybrid_manager.cc), so that each one
// stays within the operator's latency bound, and background GC's slices (store/gc_worker.cc,
// StoreOptions::gc_slice_ms), so that each takes about the time it is given.
//
// Contract
//   The store calls Next(bound_ms) for the live bytes the next quantum may move, runs the
//   quantum, then Note(bytes_moved, ms). A quantum's duration is modelled as
//       ms = fixed_ms + ms_per_byte * bytes
//   (fixed: the seeks, the journal write and the sync every quantum pays whatever it moves),
//   fitted robustly (Theil-Sen: median pairwise slope, median intercept) over the last
//   kWindow quanta that moved at least kMinSample bytes, so that a few quanta that also
//   paid for a zone reset or a host stall do not move it. The next quantum targets a share
//   (the constructor's; kShare, a third, for hybrid quanta) of what the fixed cost leaves
//   of the bound:
//       bytes = (bound - fixed) * share / ms_per_byte
//   the rest is the margin for a slow tail (on an HDD a quantum's extra seek is a step of
//   one positioning time). Sizes are dithered by +-25 % around that
//   target so the fit always sees different sizes. Before a fit exists (fewer than 3
//   samples, or sizes too alike) the probes are kFirstProbe, then twice it, then sizes from
//   the mean rate with no fixed cost (the conservative side). A quantum over the bound
//   halves the next one at once. When the fitted fixed cost alone reaches the bound, the
//   bound cannot hold on this drive: the minimum size is used and Feasible() says so.
//   Sizes are clamped to [kMinBytes, kMaxBytes].
// Thread safety: none; the store calls it under its hybrid mutex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>

namespace smr {

class QuantumSizer {
 public:
  static constexpr uint64_t kMinBytes = 64ull << 10;
  static constexpr uint64_t kMaxBytes = 64ull << 20;
  static constexpr uint64_t kFirstProbe = 256ull << 10;
  static constexpr uint64_t kMinSample = 16ull << 10;
  static constexpr size_t kWindow = 32;
  static constexpr double kShare = 1.0 / 3;  // of (bound - fixed) spent on bytes
  // `share` in (0, 1]: of (bound - fixed), the part the next quantum's bytes may take.
  explicit QuantumSizer(double share = kShare) : share_(share) {}

  // Live bytes the next quantum may move under a bound of `bound_ms`.
  uint64_t Next(double bound_ms);
  // A quantum that moved `bytes` took `ms` (quanta that moved less than kMinSample, e.g. a
  // walk over dead records only, do not enter the fit).
  void Note(uint64_t bytes, double ms, double bound_ms);

  // The current fit (0 until one exists).
  double fixed_ms() const { return fixed_ms_; }
  double ms_per_mib() const { return ms_per_byte_ * (1 << 20); }
  bool fitted() const { return fitted_; }
  // False when the fitted fixed cost per quantum alone reaches the bound.
  bool Feasible(double bound_ms) const { return !fitted_ || fixed_ms_ < bound_ms; }

 private:
  struct Sample {
    double bytes, ms;
  };
  void Fit();

  double share_;
  std::deque<Sample> samples_;
  bool fitted_ = false;
  double fixed_ms_ = 0;
  double ms_per_byte_ = 0;
  uint64_t last_ = 0;        // the size Next returned last
  bool halve_next_ = false;  // the last quantum went over the bound
  uint64_t calls_ = 0;
};

}  // namespace smr
