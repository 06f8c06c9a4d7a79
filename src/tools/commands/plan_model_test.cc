// plan_model.h: the conversion model of plan-conversion, on figures worked out by hand.
#include "plan_model.h"

#include <gtest/gtest.h>

#include <cmath>

namespace smr::tool {
namespace {

// 250 MB/s both ways, 20 ms fixed per quantum: a fully live quantum costs 8e-6 ms a byte,
// so at a 100 ms bound the store settles on 3.75 MB quanta of 50 ms (rate 75000 B/ms).
RelocationCost Hdd() {
  RelocationCost c;
  c.fixed_ms = 20;
  c.read_bytes_per_ms = 250000;
  c.write_bytes_per_ms = 250000;
  return c;
}

PlanParams Bound(double bound_ms, double initial_rate = 0) {
  PlanParams p;
  p.bound_ms = bound_ms;
  p.initial_rate = initial_rate;
  return p;
}

RealmLoad Realm(uint32_t realm, uint64_t live, uint64_t written, uint32_t zones) {
  RealmLoad r;
  r.realm = realm;
  r.live_bytes = live;
  r.written_bytes = written;
  r.zones_in_use = zones;
  return r;
}

TEST(PlanModel, QuantumIsRateTimesHalfTheBoundWithinTheStoresClamps) {
  EXPECT_EQ(QuantumFor(0, Bound(100)), 256u << 10);  // no rate measured yet
  EXPECT_EQ(QuantumFor(75000, Bound(100)), 3750000u);
  EXPECT_EQ(QuantumFor(75000, Bound(60)), 2250000u);
  EXPECT_EQ(QuantumFor(1, Bound(100)), 64u << 10);
  EXPECT_EQ(QuantumFor(1e9, Bound(100)), 64u << 20);
  EXPECT_DOUBLE_EQ(QuantumMs(Hdd(), 3750000, 1.0), 50.0);
  // Half the walked bytes dead: the walk reads twice what it moves.
  EXPECT_DOUBLE_EQ(QuantumMs(Hdd(), 2500000, 0.5), 50.0);
}

TEST(PlanModel, AtTheSettledRateQuantaTimeAndConversionAddUp) {
  PlanParams p = Bound(100, 75000);
  p.conversion_ms = 50;
  // 37.5 MB live in one zone: 10 quanta of 50 ms, each followed by the 5 ms idle wait,
  // then the drive's 50 ms. An empty realm costs only its conversion.
  const ConversionPlan plan =
      PlanConversion({Realm(3, 37500000, 37500000, 1), Realm(5, 0, 0, 0)}, Hdd(), p);
  ASSERT_EQ(plan.realms.size(), 2u);
  EXPECT_EQ(plan.realms[0].realm, 3u);
  EXPECT_EQ(plan.realms[0].quanta, 10u);
  EXPECT_DOUBLE_EQ(plan.realms[0].mean_quantum_bytes, 3750000.0);
  EXPECT_DOUBLE_EQ(plan.realms[0].mean_quantum_ms, 50.0);
  EXPECT_DOUBLE_EQ(plan.realms[0].max_quantum_ms, 50.0);
  EXPECT_DOUBLE_EQ(plan.realms[0].drain_ms, 550.0);
  EXPECT_DOUBLE_EQ(plan.realms[0].total_ms, 600.0);
  EXPECT_EQ(plan.realms[1].quanta, 0u);
  EXPECT_DOUBLE_EQ(plan.realms[1].total_ms, 50.0);
  EXPECT_EQ(plan.quanta, 10u);
  EXPECT_EQ(plan.live_bytes, 37500000u);
  EXPECT_DOUBLE_EQ(plan.drain_ms, 550.0);
  EXPECT_DOUBLE_EQ(plan.conversion_ms, 100.0);
  EXPECT_DOUBLE_EQ(plan.total_ms, 650.0);
  EXPECT_DOUBLE_EQ(plan.mean_quantum_ms, 50.0);
  EXPECT_DOUBLE_EQ(plan.added_latency_ms, 50.0);
  EXPECT_TRUE(plan.bound_held);
}

TEST(PlanModel, AFreshMountStartsAt256KiBAndSettlesAtHalfTheBound) {
  DrainState state;
  const std::vector<Slice> s =
      DrainSlices(Realm(0, 1000000000, 1000000000, 1), Hdd(), Bound(100), &state);
  ASSERT_GT(s.size(), 20u);
  EXPECT_EQ(s[0].moved, 262144u);
  EXPECT_DOUBLE_EQ(s[0].ms, 20 + 262144 * 8e-6);
  // The EWMA's first value is the first quantum's own rate.
  const double r1 = 262144 / (20 + 262144 * 8e-6);
  EXPECT_EQ(s[1].moved, static_cast<uint64_t>(r1 * 50));
  const double r2 = 0.7 * r1 + 0.3 * (static_cast<double>(s[1].moved) / s[1].ms);
  EXPECT_EQ(s[2].moved, static_cast<uint64_t>(r2 * 50));
  // Settled (the last quantum is the zone's remainder, smaller).
  EXPECT_NEAR(s[s.size() - 2].ms, 50.0, 0.01);
  EXPECT_NEAR(static_cast<double>(s[s.size() - 2].moved), 3750000.0, 1000.0);
}

TEST(PlanModel, SlicesMoveWholeRecords) {
  // At the settled rate a 3.75 MB quantum takes 4 records of 1 MiB: 20 + 33.55 ms.
  PlanParams p = Bound(100, 75000);
  p.record_bytes = 1 << 20;
  DrainState state{p.initial_rate};
  const std::vector<Slice> s = DrainSlices(Realm(0, 40 << 20, 40 << 20, 1), Hdd(), p, &state);
  ASSERT_GE(s.size(), 2u);
  EXPECT_EQ(s[0].moved, 4u << 20);
  EXPECT_DOUBLE_EQ(s[0].ms, 20 + (4 << 20) * 8e-6);
  EXPECT_EQ(s[1].moved, 4u << 20);
  // A record alone takes more than B/2 (48 + 8.39 ms): every slice moves one record and
  // adds 56.39 ms, within the 100 ms bound.
  RelocationCost slow = Hdd();
  slow.fixed_ms = 48;
  p.initial_rate = 0;
  const ConversionPlan plan = PlanConversion({Realm(0, 10 << 20, 10 << 20, 1)}, slow, p);
  EXPECT_EQ(plan.quanta, 10u);
  EXPECT_DOUBLE_EQ(plan.realms[0].mean_quantum_bytes, 1 << 20);
  EXPECT_DOUBLE_EQ(plan.added_latency_ms, 48 + (1 << 20) * 8e-6);
  EXPECT_TRUE(plan.bound_held);
}

TEST(PlanModel, SlicesNeverCrossZones) {
  // 7.5 MB live of 15 MB written in 2 zones: 3.75 MB live a zone, 1.2e-5 ms a byte moved;
  // settled at 50000 B/ms: 2.5 MB (50 ms), then the zone's rest 1.25 MB (35 ms), which
  // lowers the rate to 0.7 * 50000 + 0.3 * 1.25e6 / 35 for the second zone.
  DrainState state{50000};
  const std::vector<Slice> s =
      DrainSlices(Realm(0, 7500000, 15000000, 2), Hdd(), Bound(100), &state);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].moved, 2500000u);
  EXPECT_DOUBLE_EQ(s[0].ms, 50.0);
  EXPECT_EQ(s[1].moved, 1250000u);
  EXPECT_DOUBLE_EQ(s[1].ms, 35.0);
  const uint64_t q = static_cast<uint64_t>((0.7 * 50000 + 0.3 * 1250000 / 35.0) * 50);
  EXPECT_EQ(s[2].moved, q);
  EXPECT_EQ(s[3].moved, 3750000 - q);
}

TEST(PlanModel, ZonesWithNothingLiveAreWalkedInOneQuantumEach) {
  // Quanta are bounded by the live bytes they move, not by what they read: 25 MB of dead
  // records per zone take 20 + 100 ms, over a 100 ms bound; no rate comes of them.
  DrainState state;
  const std::vector<Slice> s = DrainSlices(Realm(1, 0, 50000000, 2), Hdd(), Bound(100), &state);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].moved, 0u);
  EXPECT_DOUBLE_EQ(s[0].ms, 120.0);
  EXPECT_EQ(state.rate, 0.0);
  const ConversionPlan plan = PlanConversion({Realm(1, 0, 50000000, 2)}, Hdd(), Bound(100));
  EXPECT_EQ(plan.quanta, 2u);
  EXPECT_DOUBLE_EQ(plan.drain_ms, 2 * (120.0 + 5.0));
  EXPECT_DOUBLE_EQ(plan.added_latency_ms, 120.0);
  EXPECT_FALSE(plan.bound_held);
  // Exactly the bound (20 + 80 ms) still holds it.
  const ConversionPlan at = PlanConversion({Realm(1, 0, 20000000, 1)}, Hdd(), Bound(100));
  EXPECT_DOUBLE_EQ(at.added_latency_ms, 100.0);
  EXPECT_TRUE(at.bound_held);
}

TEST(PlanModel, AFixedCostOverTheBoundIsReportedNotHeld) {
  RelocationCost slow = Hdd();
  slow.fixed_ms = 120;
  const ConversionPlan plan = PlanConversion({Realm(0, 1 << 20, 1 << 20, 1)}, slow, Bound(100));
  EXPECT_GT(plan.added_latency_ms, 100.0);
  EXPECT_FALSE(plan.bound_held);
  // A fixed cost over B/2 shrinks the quantum to the store's smallest.
  slow.fixed_ms = 60;
  DrainState state;
  const std::vector<Slice> s =
      DrainSlices(Realm(0, 100 << 20, 100 << 20, 1), slow, Bound(100), &state);
  EXPECT_EQ(s[s.size() - 2].moved, 64u << 10);
}

TEST(PlanModel, AForegroundLoadStretchesTheDrain) {
  PlanParams p = Bound(100, 75000);
  EXPECT_DOUBLE_EQ(GapMs(50, p), 5.0);  // idle: the store's wake-up
  p.load = 0.5;  // busy half the time: half the idle wait, plus a quantum's worth of commits
  EXPECT_DOUBLE_EQ(GapMs(50, p), 2.5 + 50.0);
  const ConversionPlan plan = PlanConversion({Realm(0, 37500000, 37500000, 1)}, Hdd(), p);
  EXPECT_DOUBLE_EQ(plan.drain_ms, 10 * (50.0 + 52.5));
  EXPECT_DOUBLE_EQ(plan.added_latency_ms, 50.0);  // the load stretches time, not a quantum
}

TEST(PlanModel, TheRateCarriesFromRealmToRealm) {
  // One mount: only the first realm starts at 256 KiB.
  const ConversionPlan plan = PlanConversion(
      {Realm(0, 20 << 20, 20 << 20, 1), Realm(1, 20 << 20, 20 << 20, 1)}, Hdd(), Bound(100));
  EXPECT_LT(plan.realms[1].quanta, plan.realms[0].quanta);
  DrainState state;
  DrainSlices(Realm(0, 20 << 20, 20 << 20, 1), Hdd(), Bound(100), &state);
  const std::vector<Slice> second =
      DrainSlices(Realm(1, 20 << 20, 20 << 20, 1), Hdd(), Bound(100), &state);
  EXPECT_GT(second[0].moved, 256u << 10);
}

TEST(PlanModel, JitterNearARecordBoundaryDecidesOneRecordOrTwo) {
  // One record takes 48 + 8.39 ms, over B/2 = 50: without jitter every slice moves one
  // record. With slices alternately 10 ms faster and slower, the first (46.39 ms) makes the
  // rate 1 MiB / 46.39 ms, a quantum of 1 MiB x 50 / 46.39 > 1 MiB: two records next.
  RelocationCost c = Hdd();
  c.fixed_ms = 48;
  PlanParams p = Bound(100);
  p.record_bytes = 1 << 20;
  DrainState plain;
  const std::vector<Slice> a = DrainSlices(Realm(0, 8 << 20, 8 << 20, 1), c, p, &plain);
  ASSERT_EQ(a.size(), 8u);
  EXPECT_EQ(plain.slices, 8u);
  c.jitter_ms = {-10, +10};
  DrainState jittery;
  const std::vector<Slice> b = DrainSlices(Realm(0, 8 << 20, 8 << 20, 1), c, p, &jittery);
  ASSERT_GE(b.size(), 2u);
  EXPECT_EQ(b[0].moved, 1u << 20);
  EXPECT_DOUBLE_EQ(b[0].ms, 48 + (1 << 20) * 8e-6 - 10);  // first jitter value
  EXPECT_EQ(b[1].moved, 2u << 20);                         // 1 MiB / 46.39 ms x 50 > 1 MiB
  EXPECT_DOUBLE_EQ(b[1].ms, 48 + (2 << 20) * 8e-6 + 10);
  EXPECT_LT(b.size(), a.size());
}

TEST(PlanModel, TheRangeTakesEverySliceAsFastAndAsSlowAsTheMeasuredExtremes) {
  // Every slice 10 ms faster (38 + 8.39 ms a record, under B/2): two records a quantum
  // after the first; 10 ms slower: one record each.
  RelocationCost c = Hdd();
  c.fixed_ms = 48;
  c.jitter_ms = {+10, -10};
  PlanParams p = Bound(100);
  p.record_bytes = 1 << 20;
  const PlanRange r = PlanConversionRange({Realm(0, 64 << 20, 64 << 20, 4)}, c, p);
  EXPECT_LT(r.fastest.total_ms, r.slowest.total_ms);
  EXPECT_LE(r.fastest.total_ms, r.expected.total_ms);
  EXPECT_GE(r.slowest.total_ms, r.expected.total_ms);
  EXPECT_LT(r.fastest.quanta, r.slowest.quanta);
  EXPECT_EQ(r.slowest.quanta, 64u);  // one record each
  // No jitter: one plan.
  c.jitter_ms.clear();
  const PlanRange one = PlanConversionRange({Realm(0, 64 << 20, 64 << 20, 4)}, c, p);
  EXPECT_DOUBLE_EQ(one.fastest.total_ms, one.slowest.total_ms);
}

TEST(PlanModel, OverwritesKillLiveDataBeforeItMoves) {
  // Live data halves every 55 ms (a 50 ms quantum and its 5 ms gap): 10 MB in one zone,
  // 3.75 MB moved at once, then the other 6.25 MB written are half live: one quantum walks
  // them all, moving 3.125 MB in 20 + 25 + 12.5 ms.
  PlanParams p = Bound(100, 75000);
  p.live_total_bytes = 10000000;
  p.overwrite_bytes_per_ms = 10000000 * std::log(2.0) / 55;
  DrainState state{p.initial_rate};
  const std::vector<Slice> s = DrainSlices(Realm(0, 10000000, 10000000, 1), Hdd(), p, &state);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].moved, 3750000u);
  EXPECT_DOUBLE_EQ(s[0].ms, 50.0);
  EXPECT_NEAR(static_cast<double>(s[1].moved), 3125000.0, 1.0);
  EXPECT_NEAR(s[1].ms, 57.5, 1e-6);
  EXPECT_NEAR(state.time_ms, 55 + 57.5 + 5, 1e-6);
  const ConversionPlan plan = PlanConversion({Realm(0, 10000000, 10000000, 1)}, Hdd(), p);
  EXPECT_EQ(plan.live_bytes, 10000000u);
  EXPECT_NEAR(static_cast<double>(plan.moved_bytes), 6875000.0, 1.0);
  // Without overwrites everything live moves.
  p.overwrite_bytes_per_ms = 0;
  EXPECT_EQ(PlanConversion({Realm(0, 10000000, 10000000, 1)}, Hdd(), p).moved_bytes, 10000000u);
}

TEST(PlanModel, ABareDevicesRealmIsAssumedWrittenFull) {
  const RealmLoad r = AssumedRealm(3, 256u << 20, 4, 0.25);
  EXPECT_EQ(r.realm, 3u);
  EXPECT_EQ(r.written_bytes, 256u << 20);
  EXPECT_EQ(r.live_bytes, 64u << 20);
  EXPECT_EQ(r.zones_in_use, 4u);
  EXPECT_EQ(AssumedRealm(0, 1000, 1, 2.0).live_bytes, 1000u);  // fraction clamped to 1
}

}  // namespace
}  // namespace smr::tool
