// quantile.h: the rank rules of Quantile and LatencyHistogram::QuantileMs, pinned on
// samples small enough to check by hand, and the histogram's bucket error bound.
#include "quantile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace smr::tool {
namespace {

TEST(QuantileTest, EmptyIsZero) {
  EXPECT_EQ(Quantile({}, 0.5), 0);
  EXPECT_EQ(Median({}), 0);
}

TEST(QuantileTest, OneSampleIsEveryQuantile) {
  for (double q : {0.0, 0.25, 0.5, 0.99, 1.0}) EXPECT_EQ(Quantile({7}, q), 7) << q;
}

TEST(QuantileTest, NearestRankOnTheLinearScaleOfSortedSamples) {
  // index floor(q * (n - 1) + 0.5) of the sorted samples; input order does not matter.
  const std::vector<double> four = {4, 1, 3, 2};
  EXPECT_EQ(Quantile(four, 0.0), 1);
  EXPECT_EQ(Quantile(four, 0.25), 2);  // 0.75 -> 1
  EXPECT_EQ(Quantile(four, 0.5), 3);   // 1.5 -> 2: the upper middle sample
  EXPECT_EQ(Quantile(four, 0.75), 3);  // 2.25 -> 2
  EXPECT_EQ(Quantile(four, 1.0), 4);
  EXPECT_EQ(Median(four), 3);
  EXPECT_EQ(four, (std::vector<double>{4, 1, 3, 2}));  // the caller's samples are not sorted

  const std::vector<double> five = {50, 10, 40, 20, 30};
  EXPECT_EQ(Quantile(five, 0.1), 10);    // 0.4 -> 0
  EXPECT_EQ(Quantile(five, 0.125), 20);  // 0.5 -> 1: halves round up
  EXPECT_EQ(Quantile(five, 0.25), 20);   // 1.0 -> 1
  EXPECT_EQ(Quantile(five, 0.5), 30);
  EXPECT_EQ(Quantile(five, 0.75), 40);
  EXPECT_EQ(Quantile(five, 0.9), 50);  // 3.6 -> 4
}

TEST(QuantileTest, QOutsideZeroOneIsClamped) {
  EXPECT_EQ(Quantile({3, 1, 2}, -1), 1);
  EXPECT_EQ(Quantile({3, 1, 2}, 2), 3);
}

TEST(LatencyHistogramTest, EmptyIsZero) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.QuantileMs(0.5), 0);
  EXPECT_EQ(h.mean_ms(), 0);
  EXPECT_EQ(h.max_ms(), 0);
}

TEST(LatencyHistogramTest, RankIsCeilOfQTimesCount) {
  // Below 64 ns every value has its own bucket, so the sample itself comes back.
  LatencyHistogram h;
  for (uint64_t ns = 10; ns >= 1; --ns) h.Add(ns);
  EXPECT_EQ(h.count(), 10u);
  EXPECT_DOUBLE_EQ(h.QuantileMs(0.0), 1e-6);   // rank 0 -> clamped to 1
  EXPECT_DOUBLE_EQ(h.QuantileMs(0.1), 1e-6);   // rank 1
  EXPECT_DOUBLE_EQ(h.QuantileMs(0.5), 5e-6);   // rank 5
  EXPECT_DOUBLE_EQ(h.QuantileMs(0.55), 6e-6);  // rank ceil(5.5) = 6
  EXPECT_DOUBLE_EQ(h.QuantileMs(0.85), 9e-6);  // rank ceil(8.5) = 9
  EXPECT_DOUBLE_EQ(h.QuantileMs(0.99), 10e-6);
  EXPECT_DOUBLE_EQ(h.QuantileMs(1.0), 10e-6);
  EXPECT_DOUBLE_EQ(h.mean_ms(), 5.5e-6);
  EXPECT_DOUBLE_EQ(h.max_ms(), 10e-6);
}

TEST(LatencyHistogramTest, OneSlowOpOutOfAHundredIsAboveP99NotAtIt) {
  LatencyHistogram h;
  for (int i = 0; i < 99; ++i) h.Add(1);
  h.Add(1000000);
  EXPECT_DOUBLE_EQ(h.QuantileMs(0.99), 1e-6);  // rank 99
  EXPECT_DOUBLE_EQ(h.QuantileMs(0.999), 1.0);  // rank 100 (capped at the max sample)
}

TEST(LatencyHistogramTest, BucketMidpointCappedAtTheLargestSample) {
  // 1000 ns falls in the bucket [1000, 1008): midpoint 1003.5 ns.
  LatencyHistogram alone;
  alone.Add(1000);
  EXPECT_DOUBLE_EQ(alone.QuantileMs(0.5), 0.001);  // capped at the max, 1000 ns
  LatencyHistogram two;
  two.Add(1000);
  two.Add(100000);
  EXPECT_DOUBLE_EQ(two.QuantileMs(0.5), 0.0010035);
}

TEST(LatencyHistogramTest, BucketErrorWithinOneSixtyFourth) {
  for (uint64_t v = 1; v < (1ull << 62); v = v * 3 + 1) {
    LatencyHistogram h;
    h.Add(v);
    h.Add(UINT64_MAX);  // keeps the cap out of the way
    const double got = h.QuantileMs(0.5) * 1e6;
    EXPECT_NEAR(got, static_cast<double>(v), static_cast<double>(v) / 64) << v;
  }
}

TEST(LatencyHistogramTest, MergeAddsCountsAndKeepsTheMax) {
  LatencyHistogram a, b;
  for (uint64_t ns : {1, 2, 3}) a.Add(ns);
  for (uint64_t ns : {4, 5}) b.Add(ns);
  a.Merge(b);
  EXPECT_EQ(a.count(), 5u);
  EXPECT_DOUBLE_EQ(a.QuantileMs(0.5), 3e-6);
  EXPECT_DOUBLE_EQ(a.mean_ms(), 3e-6);
  EXPECT_DOUBLE_EQ(a.max_ms(), 5e-6);
}

TEST(LatencyHistogramTest, QuantileIntervalBracketsTheRanksOfTheBinomialBounds) {
  // 1..100 ns: exact buckets (below 128 ns a bucket holds one value), so ranks are values.
  LatencyHistogram h;
  for (uint64_t ns = 1; ns <= 100; ++ns) h.Add(ns);
  // Median: n q = 50, d = 1.96 * sqrt(100 * 0.25) = 9.8 -> ranks 40 and 60.
  const auto med = h.QuantileCiMs(0.5, 1.96);
  EXPECT_DOUBLE_EQ(med.lo_ms, 40e-6);
  EXPECT_DOUBLE_EQ(med.hi_ms, 60e-6);
  // A wider z widens it: d = 2.24 * 5 = 11.2 -> ranks 38 and 62.
  const auto wide = h.QuantileCiMs(0.5, 2.24);
  EXPECT_DOUBLE_EQ(wide.lo_ms, 38e-6);
  EXPECT_DOUBLE_EQ(wide.hi_ms, 62e-6);
  // p99 of 100 samples: n q = 99, d = 1.95 -> ranks 97 and 101 > n: no upper bound.
  const auto p99 = h.QuantileCiMs(0.99, 1.96);
  EXPECT_DOUBLE_EQ(p99.lo_ms, 97e-6);
  EXPECT_TRUE(std::isinf(p99.hi_ms));
  // p1: n q = 1, d = 1.95 -> rank floor(-0.95) < 1: no lower bound (0).
  const auto p1 = h.QuantileCiMs(0.01, 1.96);
  EXPECT_EQ(p1.lo_ms, 0);
  EXPECT_DOUBLE_EQ(p1.hi_ms, 3e-6);
}

TEST(LatencyHistogramTest, QuantileIntervalNarrowsWithMoreSamples) {
  // 10,000 samples of 1..100 ns, each 100 times: p99's ranks 9900 -/+ 19.5 -> 9880 and
  // 9920, both the value 99 (ranks 9801..9900) or 100 (9901..10000).
  LatencyHistogram h;
  for (int rep = 0; rep < 100; ++rep)
    for (uint64_t ns = 1; ns <= 100; ++ns) h.Add(ns);
  const auto p99 = h.QuantileCiMs(0.99, 1.96);
  EXPECT_DOUBLE_EQ(p99.lo_ms, 99e-6);
  EXPECT_DOUBLE_EQ(p99.hi_ms, 100e-6);
  LatencyHistogram empty;
  EXPECT_EQ(empty.QuantileCiMs(0.99, 1.96).lo_ms, 0);
  EXPECT_TRUE(std::isinf(empty.QuantileCiMs(0.99, 1.96).hi_ms));
}

}  // namespace
}  // namespace smr::tool
