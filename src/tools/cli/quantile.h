// Quantiles for the benchmark commands (devbench, storebench, bench): the one place that
// decides which sample a reported median, IQR bound or p99 is.
//
// Contract
//   Quantile(samples, q): the q-quantile of a set of samples kept in full (per-round MB/s
//     and ratios). Nearest rank on the linear scale, no interpolation: with the n samples
//     sorted ascending, the one at 0-based index floor(q * (n - 1) + 0.5). So q = 0 is the
//     minimum, q = 1 the maximum, and the median of an even count is the upper of the two
//     middle samples ({1, 2, 3, 4} -> 3). q is clamped to [0, 1]; no samples -> 0.
//     Median(samples) = Quantile(samples, 0.5).
//   LatencyHistogram: operation latencies recorded as they happen, in a fixed-size
//     log-linear histogram (values in ns; below 64 exact, above 64 buckets per power of
//     two, so a bucket is within 1/64 = 1.6 % of its values): recording millions of
//     operations costs no memory. QuantileMs(q) is the q-quantile in ms by a different rank
//     rule than Quantile, the usual one for latency percentiles: the ceil(q * n)-th smallest
//     sample (rank clamped to 1..n), reported as the midpoint of its bucket but never more
//     than the largest sample recorded; 0 when empty. mean_ms and max_ms are exact.
//     QuantileCiMs(q, z): how far that quantile can be trusted, as the usual distribution-
//     free interval: the number of samples at or below the true q-quantile is Binomial(n,
//     q), so with d = z * sqrt(n q (1 - q)) the samples of ranks floor(n q - d) and
//     ceil(n q + d) bracket it with about the normal approximation's coverage (z 1.96:
//     95 %; z 2.24: 97.5 % each, so two such intervals hold together at >= 95 %). Each
//     bound is the sample of its rank as QuantileMs reports one; a rank below 1 gives 0
//     and a rank above n gives +infinity (the samples do not bound it: a p99 from 100
//     operations has no upper bound). Empty: {0, +infinity}.
//   The two rules are kept as they were when each was written, so that reported figures do
//   not move; quantile_test.cc pins both.
// Thread safety: Quantile and Median are pure functions (they sort a copy). A
//   LatencyHistogram is not synchronized: give each thread its own and Merge them once the
//   threads are done; const members may run concurrently with each other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace smr::tool {

double Quantile(std::vector<double> samples, double q);
double Median(std::vector<double> samples);

class LatencyHistogram {
 public:
  static constexpr int kSubBits = 6;
  static constexpr uint64_t kSub = 1u << kSubBits;
  LatencyHistogram();

  void Add(uint64_t ns);
  void Merge(const LatencyHistogram& o);
  uint64_t count() const { return count_; }
  double mean_ms() const { return count_ ? static_cast<double>(sum_) / count_ / 1e6 : 0; }
  double max_ms() const { return static_cast<double>(max_) / 1e6; }
  double QuantileMs(double q) const;
  struct Interval {
    double lo_ms, hi_ms;
  };
  Interval QuantileCiMs(double q, double z) const;

 private:
  static size_t Index(uint64_t v);
  static double Mid(size_t i);
  double RankMs(uint64_t rank) const;  // the rank-th smallest sample, 1 <= rank <= count_
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0, sum_ = 0, max_ = 0;
};

}  // namespace smr::tool
