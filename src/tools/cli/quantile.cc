// Quantile and LatencyHistogram (quantile.h has the contract).
#include "quantile.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace smr::tool {

double Quantile(std::vector<double> samples, double q) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  q = std::clamp(q, 0.0, 1.0);
  return samples[static_cast<size_t>(q * static_cast<double>(samples.size() - 1) + 0.5)];
}

double Median(std::vector<double> samples) { return Quantile(std::move(samples), 0.5); }

LatencyHistogram::LatencyHistogram()
    : counts_(static_cast<size_t>((64 - kSubBits + 1) * kSub), 0) {}

void LatencyHistogram::Add(uint64_t ns) {
  ++counts_[Index(ns)];
  ++count_;
  sum_ += ns;
  max_ = std::max(max_, ns);
}

void LatencyHistogram::Merge(const LatencyHistogram& o) {
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += o.counts_[i];
  count_ += o.count_;
  sum_ += o.sum_;
  max_ = std::max(max_, o.max_);
}

double LatencyHistogram::QuantileMs(double q) const {
  if (count_ == 0) return 0;
  uint64_t rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  return RankMs(std::max<uint64_t>(1, std::min(rank, count_)));
}

double LatencyHistogram::RankMs(uint64_t rank) const {
  uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::min(Mid(i), static_cast<double>(max_)) / 1e6;
  }
  return max_ms();
}

LatencyHistogram::Interval LatencyHistogram::QuantileCiMs(double q, double z) const {
  const double inf = std::numeric_limits<double>::infinity();
  if (count_ == 0) return {0, inf};
  q = std::clamp(q, 0.0, 1.0);
  const double n = static_cast<double>(count_);
  const double d = z * std::sqrt(n * q * (1 - q));
  const double lo_rank = std::floor(n * q - d);
  const double hi_rank = std::ceil(n * q + d);
  return {lo_rank < 1 ? 0 : RankMs(static_cast<uint64_t>(lo_rank)),
          hi_rank > n ? inf : RankMs(static_cast<uint64_t>(std::max(1.0, hi_rank)))};
}

size_t LatencyHistogram::Index(uint64_t v) {
  if (v < kSub) return static_cast<size_t>(v);
  const int e = 63 - __builtin_clzll(v);
  const int shift = e - kSubBits;
  return static_cast<size_t>((shift + 1) * kSub + ((v >> shift) - kSub));
}

double LatencyHistogram::Mid(size_t i) {
  if (i < kSub) return static_cast<double>(i);
  const int shift = static_cast<int>(i / kSub) - 1;
  const double lower = static_cast<double>((kSub + i % kSub) << shift);
  return lower + static_cast<double>((1ull << shift) - 1) / 2.0;
}

}  // namespace smr::tool
