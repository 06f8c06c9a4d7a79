// Victim policies: hand-built zones for each policy, ties, names.
#include "gc/victim_policy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace smr {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

ZoneCandidate Zone(uint32_t zone, uint64_t live_mib, uint64_t age, uint8_t stream = 1,
                   uint16_t drive = 0) {
  ZoneCandidate z;
  z.drive = drive;
  z.zone = zone;
  z.stream = stream;
  z.capacity = 256 * kMiB;
  z.written = 256 * kMiB;
  z.live = live_mib * kMiB;
  z.age = age;
  return z;
}

TEST(VictimPolicyTest, NamesRoundTrip) {
  for (VictimPolicy p :
       {VictimPolicy::kGreedy, VictimPolicy::kCostBenefit, VictimPolicy::kLifetime}) {
    auto parsed = ParseVictimPolicy(VictimPolicyName(p));
    ASSERT_TRUE(parsed.ok()) << VictimPolicyName(p) << ": " << parsed.status().ToString();
    EXPECT_EQ(*parsed, p);
  }
  EXPECT_STREQ(VictimPolicyName(VictimPolicy::kGreedy), "greedy");
  EXPECT_STREQ(VictimPolicyName(VictimPolicy::kCostBenefit), "cost-benefit");
  EXPECT_STREQ(VictimPolicyName(VictimPolicy::kLifetime), "lifetime");
  for (const char* bad : {"Greedy", "", "lfs"}) {
    auto r = ParseVictimPolicy(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(r.status().IsInvalidArgument());
    EXPECT_NE(r.status().ToString().find("greedy, cost-benefit or lifetime"), std::string::npos)
        << r.status().ToString();
  }
}

TEST(VictimPolicyTest, GreedyPicksMostDead) {
  const std::vector<ZoneCandidate> zones = {Zone(0, 200, 1), Zone(1, 10, 1), Zone(2, 100, 900)};
  const std::vector<size_t> order = RankVictims(VictimPolicy::kGreedy, zones);
  EXPECT_EQ(order, (std::vector<size_t>{1, 2, 0}));
  EXPECT_DOUBLE_EQ(VictimScore(VictimPolicy::kGreedy, zones[1], {}), 246.0 * kMiB);
}

TEST(VictimPolicyTest, CostBenefitPrefersOldColdZonesAtEqualUtilization) {
  const std::vector<ZoneCandidate> zones = {Zone(0, 128, 10), Zone(1, 128, 1000),
                                            Zone(2, 128, 100)};
  EXPECT_EQ(RankVictims(VictimPolicy::kCostBenefit, zones), (std::vector<size_t>{1, 2, 0}));
  // An old zone at higher utilization can beat a young nearly empty one.
  const std::vector<ZoneCandidate> mixed = {Zone(0, 16, 10), Zone(1, 160, 1000)};
  EXPECT_EQ(RankVictims(VictimPolicy::kCostBenefit, mixed), (std::vector<size_t>{1, 0}));
  // The formula: (1 - u) * age / (1 + u).
  EXPECT_DOUBLE_EQ(VictimScore(VictimPolicy::kCostBenefit, Zone(0, 64, 30), {}),
                   0.75 * 30 / 1.25);
}

TEST(VictimPolicyTest, ZonesWithoutDeadBytesAreNeverRanked) {
  ZoneCandidate empty = Zone(0, 0, 5);
  empty.written = 0;  // never written
  ZoneCandidate full = Zone(1, 256, 5000);  // live == written
  ZoneCandidate over = Zone(2, 256, 5000);
  over.live = over.written + 1;  // inconsistent accounting: still not a victim
  const ZoneCandidate dead = Zone(3, 255, 1);
  PolicyParams params;
  params.death_rate_per_age = {0, 0.5, 0, 0};
  params.horizon = 10;
  for (VictimPolicy p :
       {VictimPolicy::kGreedy, VictimPolicy::kCostBenefit, VictimPolicy::kLifetime}) {
    EXPECT_EQ(RankVictims(p, {empty, full, over, dead}, params), (std::vector<size_t>{3}))
        << VictimPolicyName(p);
    EXPECT_TRUE(RankVictims(p, {empty, full, over}, params).empty());
    EXPECT_TRUE(RankVictims(p, {}, params).empty());
  }
}

TEST(VictimPolicyTest, TiesBreakByDriveThenZone) {
  // Same accounting everywhere: the order is (drive, zone), whatever the input order.
  const std::vector<ZoneCandidate> zones = {Zone(7, 100, 50, 1, 1), Zone(3, 100, 50, 1, 1),
                                            Zone(9, 100, 50, 1, 0), Zone(2, 100, 50, 1, 2)};
  for (VictimPolicy p :
       {VictimPolicy::kGreedy, VictimPolicy::kCostBenefit, VictimPolicy::kLifetime}) {
    EXPECT_EQ(RankVictims(p, zones), (std::vector<size_t>{2, 1, 0, 3})) << VictimPolicyName(p);
  }
  std::vector<ZoneCandidate> reversed(zones.rbegin(), zones.rend());
  EXPECT_EQ(RankVictims(VictimPolicy::kGreedy, reversed), (std::vector<size_t>{1, 2, 3, 0}));
  // Cost-benefit at age 0: every score is 0, still a total, deterministic order.
  const std::vector<ZoneCandidate> fresh = {Zone(5, 10, 0), Zone(4, 200, 0)};
  EXPECT_EQ(RankVictims(VictimPolicy::kCostBenefit, fresh), (std::vector<size_t>{1, 0}));
}

TEST(VictimPolicyTest, LifetimeWithoutRatesIsCostBenefitWithAgePlusOne) {
  const std::vector<ZoneCandidate> zones = {Zone(0, 128, 10), Zone(1, 200, 1000),
                                            Zone(2, 20, 3), Zone(3, 64, 100)};
  PolicyParams params;
  params.horizon = 500;  // no rates: the horizon changes nothing
  EXPECT_EQ(RankVictims(VictimPolicy::kLifetime, zones, params),
            RankVictims(VictimPolicy::kCostBenefit, zones));
  EXPECT_DOUBLE_EQ(VictimScore(VictimPolicy::kLifetime, Zone(0, 64, 30), params),
                   0.75 * 31 / 1.25);
  // Unknown streams (beyond the vector) and non-finite rates count as 0.
  params.death_rate_per_age = {0, NAN};
  EXPECT_DOUBLE_EQ(VictimScore(VictimPolicy::kLifetime, Zone(0, 64, 30, 1), params),
                   0.75 * 31 / 1.25);
  EXPECT_DOUBLE_EQ(VictimScore(VictimPolicy::kLifetime, Zone(0, 64, 30, 9), params),
                   0.75 * 31 / 1.25);
}

TEST(VictimPolicyTest, LifetimeWaitsOnFastDyingStreams) {
  // Stream 1 loses 1 % of its live bytes per age unit; stream 3 (GC) keeps its data.
  PolicyParams params;
  params.death_rate_per_age = {0, 0.01, 0, 0.0};
  params.horizon = 100;
  const ZoneCandidate hot = Zone(0, 128, 50, /*stream=*/1);
  const ZoneCandidate cold = Zone(1, 128, 50, /*stream=*/3);
  // 1 % per age unit over two horizons of 100.
  EXPECT_NEAR(ExpectedUtilization(hot, params), 0.5 * std::exp(-2.0), 1e-12);
  EXPECT_DOUBLE_EQ(ExpectedUtilization(cold, params), 0.5);
  // Equal utilization and age: clean the cold zone, wait for the hot one.
  EXPECT_EQ(RankVictims(VictimPolicy::kLifetime, {hot, cold}, params),
            (std::vector<size_t>{1, 0}));
  // Greedy and cost-benefit cannot tell them apart (tie -> zone order).
  EXPECT_EQ(RankVictims(VictimPolicy::kGreedy, {hot, cold}), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(RankVictims(VictimPolicy::kCostBenefit, {hot, cold}), (std::vector<size_t>{0, 1}));
  // Even a somewhat emptier hot zone waits, while a much emptier one is worth cleaning.
  const ZoneCandidate hot_emptier = Zone(2, 100, 50, 1);
  EXPECT_EQ(RankVictims(VictimPolicy::kLifetime, {hot_emptier, cold}, params),
            (std::vector<size_t>{1, 0}));
  const ZoneCandidate hot_nearly_empty = Zone(3, 8, 50, 1);
  EXPECT_EQ(RankVictims(VictimPolicy::kLifetime, {hot_nearly_empty, cold}, params),
            (std::vector<size_t>{0, 1}));
  // The floor: a hot zone whose benefit is all "about to die" keeps a positive score, and
  // such zones still rank among themselves (emptier first).
  PolicyParams fast = params;
  fast.death_rate_per_age[1] = 1.0;
  const ZoneCandidate a = Zone(4, 200, 10, 1), b = Zone(5, 180, 10, 1);
  EXPECT_GT(VictimScore(VictimPolicy::kLifetime, a, fast), 0.0);
  EXPECT_EQ(RankVictims(VictimPolicy::kLifetime, {a, b}, fast), (std::vector<size_t>{1, 0}));
  // A longer horizon only lowers a hot zone's score.
  PolicyParams longer = params;
  longer.horizon = 1000;
  EXPECT_LT(VictimScore(VictimPolicy::kLifetime, hot, longer),
            VictimScore(VictimPolicy::kLifetime, hot, params));
}

}  // namespace
}  // namespace smr
