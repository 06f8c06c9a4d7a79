// GC simulator: exact cases (no deletes, FIFO), orderings of policies and placements on
// synthetic traces (with margins), determinism, kNoSpace. Small geometry so it runs fast:
// 64 zones of 16 MiB and objects scaled down 16x (4 MiB -> 256 KiB, ~63 per zone).
#include "gc/gc_sim.h"

#include <algorithm>
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <vector>

#include "common/testing/test_util.h"

namespace smr {
namespace {

constexpr uint64_t kZoneBytes = 16ull << 20;
constexpr uint32_t kZones = 64;

TraceSpec Spec(DeletePattern deletes, double utilization, uint64_t seed = 1) {
  TraceSpec t;
  t.capacity_bytes = kZoneBytes * kZones;
  t.utilization = utilization;
  t.deletes = deletes;
  t.size_divisor = 16;
  t.steady_ops = deletes == DeletePattern::kNone ? 0 : 5ull * kZones * 63;  // ~5 drive fills
  t.seed = seed;
  return t;
}

SimConfig Config(VictimPolicy policy, Placement placement) {
  SimConfig c;
  c.zone_bytes = kZoneBytes;
  c.zones = kZones;
  c.reserve_zones = 2;
  c.policy = policy;
  c.placement = placement;
  // Open zones cost capacity at this small scale: 4 classes.
  if (placement == Placement::kRateOracle) c.oracle_classes = 4;
  if (placement == Placement::kOracle) {
    c.oracle_classes = 4;
    c.reserve_zones = 4;   // a victim's relocations may open a zone per class
  }
  return c;
}

double Wa(const std::vector<TraceOp>& trace, VictimPolicy policy, Placement placement) {
  Result<SimResult> r = Simulate(trace, Config(policy, placement));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return 0;
  return r->gc_wa;
}

TEST(GcSimTest, NamesAreStable) {
  EXPECT_STREQ(PlacementName(Placement::kSingleStream), "single-stream");
  EXPECT_STREQ(PlacementName(Placement::kSeparated), "separated");
  EXPECT_STREQ(PlacementName(Placement::kOracle), "oracle");
  EXPECT_STREQ(PlacementName(Placement::kRateOracle), "rate-oracle");
  EXPECT_STREQ(DeletePatternName(DeletePattern::kZipf), "zipf");
  EXPECT_STREQ(SizeDistName(SizeDist::kOss), "oss");
}

TEST(GcSimTest, MakeTraceFillsThenKeepsTheLiveSet) {
  for (SizeDist sizes : {SizeDist::kFixed, SizeDist::kMixed, SizeDist::kOss}) {
    for (DeletePattern d : {DeletePattern::kUniform, DeletePattern::kZipf, DeletePattern::kFifo}) {
      TraceSpec spec = Spec(d, 0.7);
      spec.sizes = sizes;
      spec.steady_ops = 1000;
      const std::vector<TraceOp> trace = MakeTrace(spec);
      std::set<uint64_t> live, ever;
      uint64_t bytes = 0, fill_bytes = 0, deletes = 0;
      bool filling = true;
      for (const TraceOp& op : trace) {
        if (op.kind == TraceOp::kWrite) {
          ASSERT_TRUE(ever.insert(op.object).second) << "id reused: " << op.object;
          live.insert(op.object);
          bytes += op.bytes;
          ASSERT_GT(op.bytes, 0u);
        } else {
          if (filling) fill_bytes = bytes;
          filling = false;
          ASSERT_EQ(live.erase(op.object), 1u) << "delete of a dead object";
          ++deletes;
        }
      }
      EXPECT_EQ(deletes, 1000u);
      EXPECT_LE(fill_bytes, static_cast<uint64_t>(0.7 * spec.capacity_bytes));
      EXPECT_GT(fill_bytes, static_cast<uint64_t>(0.65 * spec.capacity_bytes))
          << SizeDistName(sizes);
    }
  }
}

TEST(GcSimTest, WaIsExactlyOneWithoutDeletes) {
  const std::vector<TraceOp> trace = MakeTrace(Spec(DeletePattern::kNone, 0.9));
  for (Placement p : {Placement::kSingleStream, Placement::kSeparated, Placement::kOracle}) {
    SimConfig cfg = Config(VictimPolicy::kGreedy, p);
    Result<SimResult> r = Simulate(trace, cfg);
    ASSERT_OK(r.status());
    EXPECT_EQ(r->gc_bytes, 0u);
    EXPECT_EQ(r->zones_reset, 0u);
    EXPECT_EQ(r->gc_wa, 1.0) << PlacementName(p);
    EXPECT_EQ(r->device_bytes, r->user_record_bytes);
    // 256 KiB payloads + one 4 KiB header each.
    EXPECT_DOUBLE_EQ(r->wa, 1.0 + 4096.0 / (256 << 10));
    ASSERT_EQ(r->wa_over_time.size(), 10u);
    // Without headers the two definitions agree: exactly 1.
    cfg.record_header_bytes = 0;
    r = Simulate(trace, cfg);
    ASSERT_OK(r.status());
    EXPECT_EQ(r->wa, 1.0);
    for (double w : r->wa_over_time) EXPECT_EQ(w, 1.0);
  }
}

TEST(GcSimTest, FifoDeletesLetZonesDieWhole) {
  const std::vector<TraceOp> trace = MakeTrace(Spec(DeletePattern::kFifo, 0.8));
  Result<SimResult> r = Simulate(trace, Config(VictimPolicy::kGreedy, Placement::kSingleStream));
  ASSERT_OK(r.status());
  EXPECT_GT(r->zones_reset, 100u);
  EXPECT_LT(r->gc_wa, 1.01);
  EXPECT_LT(r->wa_over_time.back(), 1.03);
}

TEST(GcSimTest, UniformDeletesAtEightyPercentAmplify) {
  const std::vector<TraceOp> trace = MakeTrace(Spec(DeletePattern::kUniform, 0.8));
  Result<SimResult> r = Simulate(trace, Config(VictimPolicy::kGreedy, Placement::kSingleStream));
  ASSERT_OK(r.status());
  EXPECT_GT(r->gc_wa, 2.0);
  EXPECT_GT(r->wa_over_time.back(), 2.5);  // steady state (the fill has WA 1)
  EXPECT_EQ(r->device_bytes, r->user_record_bytes + r->gc_bytes);
  // Lower utilization, less GC.
  const std::vector<TraceOp> light = MakeTrace(Spec(DeletePattern::kUniform, 0.5));
  EXPECT_LT(Wa(light, VictimPolicy::kGreedy, Placement::kSingleStream), 0.7 * r->gc_wa);
}

// Zipf deletes at 80 %: what we measured (seeds 1 and 2; gc_wa over the whole trace):
//   greedy single 2.99-3.00, separated 2.93-2.96, oracle (4 classes) 1.69-1.70;
//   cost-benefit separated 2.80-2.82; lifetime single 2.72-2.74, separated 2.72.
TEST(GcSimTest, SkewedTraceOrdersOracleSeparatedSingle) {
  for (uint64_t seed : {1, 2}) {
    const std::vector<TraceOp> trace = MakeTrace(Spec(DeletePattern::kZipf, 0.8, seed));
    const double single = Wa(trace, VictimPolicy::kGreedy, Placement::kSingleStream);
    const double separated = Wa(trace, VictimPolicy::kGreedy, Placement::kSeparated);
    const double oracle = Wa(trace, VictimPolicy::kGreedy, Placement::kOracle);
    std::printf("zipf 80%% seed %llu greedy: single %.3f separated %.3f oracle %.3f\n",
                static_cast<unsigned long long>(seed), single, separated, oracle);
    EXPECT_LT(oracle, 0.7 * separated);
    // Names carry their history: hot names go to the user-hot stream.
    EXPECT_LT(separated, 0.95 * single);
    EXPECT_GT(oracle, 1.0);
  }
}

TEST(GcSimTest, LifetimeSeparatedBeatsGreedySingleOnZipf) {
  for (uint64_t seed : {1, 2}) {
    const std::vector<TraceOp> trace = MakeTrace(Spec(DeletePattern::kZipf, 0.8, seed));
    const double greedy = Wa(trace, VictimPolicy::kGreedy, Placement::kSingleStream);
    const double cb = Wa(trace, VictimPolicy::kCostBenefit, Placement::kSeparated);
    const double lifetime = Wa(trace, VictimPolicy::kLifetime, Placement::kSeparated);
    std::printf("zipf 80%% seed %llu: greedy/single %.3f cost-benefit/separated %.3f "
                "lifetime/separated %.3f\n",
                static_cast<unsigned long long>(seed), greedy, cb, lifetime);
    EXPECT_LT(lifetime, 0.9 * greedy);
    EXPECT_LT(lifetime, 1.01 * cb);
  }
}

// The rate oracle knows each name's write count (not its death times). On zipf deletes it
// places no worse than separated placement's online estimate of the same thing, and far
// above the death-time oracle: with memoryless lifetimes, knowing how hot a name is does
// not say when this incarnation dies — most of the gap to the oracle is out of reach of
// any placement by name. On uniform deletes (every name equally hot) it knows nothing.
TEST(GcSimTest, RateOracleLiesBetweenSeparatedAndTheOracleOnZipf) {
  for (uint64_t seed : {1, 2}) {
    const std::vector<TraceOp> trace = MakeTrace(Spec(DeletePattern::kZipf, 0.8, seed));
    const double separated = Wa(trace, VictimPolicy::kLifetime, Placement::kSeparated);
    const double rate = Wa(trace, VictimPolicy::kLifetime, Placement::kRateOracle);
    const double oracle = Wa(trace, VictimPolicy::kGreedy, Placement::kOracle);
    std::printf("zipf 80%% seed %llu: separated %.3f rate-oracle %.3f oracle %.3f\n",
                static_cast<unsigned long long>(seed), separated, rate, oracle);
    EXPECT_LT(rate, 1.01 * separated);
    EXPECT_LT(oracle, 0.8 * rate);
  }
  const std::vector<TraceOp> uniform = MakeTrace(Spec(DeletePattern::kUniform, 0.8));
  const double separated = Wa(uniform, VictimPolicy::kLifetime, Placement::kSeparated);
  const double rate = Wa(uniform, VictimPolicy::kLifetime, Placement::kRateOracle);
  EXPECT_GT(rate, 0.9 * separated) << "uniform deletes: names say nothing";
}

// Few large zones cannot keep 8 death-time classes open: the oracle falls back to fewer
// classes instead of failing, and still beats every online policy.
TEST(GcSimTest, OracleFallsBackToFewerClassesWhenZonesAreScarce) {
  TraceSpec t;
  t.capacity_bytes = 48ull * (16 << 20);
  t.utilization = 0.8;
  t.deletes = DeletePattern::kZipf;
  t.size_divisor = 16;  // 256 KiB objects in 16 MiB zones: 4 MiB in 256 MiB, scaled
  t.steady_ops = 3 * 2 * 2400;
  const std::vector<TraceOp> trace = MakeTrace(t);
  SimConfig c;
  c.zones = 48;
  c.zone_bytes = 16 << 20;
  c.reserve_zones = 2;
  c.placement = Placement::kOracle;
  auto oracle = Simulate(trace, c);
  ASSERT_TRUE(oracle.ok()) << oracle.status().ToString();
  EXPECT_LT(oracle->oracle_classes, 8u);
  EXPECT_GE(oracle->oracle_classes, 1u);
  c.placement = Placement::kSeparated;
  c.policy = VictimPolicy::kLifetime;
  auto ours = Simulate(trace, c);
  ASSERT_TRUE(ours.ok()) << ours.status().ToString();
  EXPECT_LT(oracle->wa, ours->wa);
}

TEST(GcSimTest, DeterministicForASeed) {
  TraceSpec spec = Spec(DeletePattern::kZipf, 0.8, 42);
  spec.sizes = SizeDist::kMixed;
  spec.steady_ops = 3000;
  const std::vector<TraceOp> a = MakeTrace(spec), b = MakeTrace(spec);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].kind, b[i].kind);
    ASSERT_EQ(a[i].object, b[i].object);
    ASSERT_EQ(a[i].bytes, b[i].bytes);
    ASSERT_EQ(a[i].name, b[i].name);
  }
  spec.seed = 43;
  const std::vector<TraceOp> c = MakeTrace(spec);
  bool differs = c.size() != a.size();
  for (size_t i = 0; !differs && i < a.size(); ++i) differs = a[i].bytes != c[i].bytes;
  EXPECT_TRUE(differs);
  for (Placement p : {Placement::kSingleStream, Placement::kSeparated, Placement::kOracle}) {
    Result<SimResult> r1 = Simulate(a, Config(VictimPolicy::kLifetime, p));
    Result<SimResult> r2 = Simulate(a, Config(VictimPolicy::kLifetime, p));
    ASSERT_OK(r1.status());
    ASSERT_OK(r2.status());
    EXPECT_EQ(r1->device_bytes, r2->device_bytes);
    EXPECT_EQ(r1->gc_bytes, r2->gc_bytes);
    EXPECT_EQ(r1->zones_reset, r2->zones_reset);
    EXPECT_EQ(r1->wa_over_time, r2->wa_over_time);
  }
}

TEST(GcSimTest, NoSpaceWhenTheTraceCannotFit) {
  // More live data than the zones hold (outside the reserve).
  TraceSpec spec = Spec(DeletePattern::kNone, 0.99);
  Result<SimResult> r = Simulate(MakeTrace(spec), Config(VictimPolicy::kGreedy,
                                                         Placement::kSingleStream));
  EXPECT_CODE(r.status(), kNoSpace);
  // Fits without deletes at 90 %, but not when live data only grows: a steady state at
  // 97 % leaves GC nothing to gain beyond the reserve.
  spec = Spec(DeletePattern::kUniform, 0.97);
  r = Simulate(MakeTrace(spec), Config(VictimPolicy::kGreedy, Placement::kSingleStream));
  EXPECT_CODE(r.status(), kNoSpace);
}

TEST(GcSimTest, RejectsMalformedInput) {
  SimConfig cfg = Config(VictimPolicy::kGreedy, Placement::kSingleStream);
  std::vector<TraceOp> trace = {{TraceOp::kWrite, 1, 4096}, {TraceOp::kWrite, 1, 4096}};
  EXPECT_CODE(Simulate(trace, cfg).status(), kInvalidArgument);  // live id written again
  trace = {{TraceOp::kDelete, 7, 0}};
  EXPECT_CODE(Simulate(trace, cfg).status(), kInvalidArgument);  // delete of a dead id
  trace = {{TraceOp::kWrite, 1, kZoneBytes}};
  EXPECT_CODE(Simulate(trace, cfg).status(), kInvalidArgument);  // record > zone
  cfg.reserve_zones = cfg.zones;
  EXPECT_CODE(Simulate({}, cfg).status(), kInvalidArgument);
  cfg = Config(VictimPolicy::kGreedy, Placement::kOracle);
  cfg.oracle_classes = 0;
  EXPECT_CODE(Simulate({}, cfg).status(), kInvalidArgument);
}

// The oracle floor is the lowest over the victim policies — by the caller's score when it
// gives one — and keeps every policy's run, so a tool reporting it can show them all.
TEST(GcSimTest, TheOracleFloorIsTheLowestOverVictimPolicies) {
  const std::vector<TraceOp> trace = MakeTrace(Spec(DeletePattern::kZipf, 0.8));
  const SimConfig c = Config(VictimPolicy::kLifetime, Placement::kOracle);
  auto floor = SimulateOracleFloor(trace, c);
  ASSERT_TRUE(floor.ok()) << floor.status().ToString();
  ASSERT_EQ(floor->runs.size(), 3u);
  std::vector<double> was;
  for (const auto& [policy, run] : floor->runs) {
    ASSERT_TRUE(run.ok()) << VictimPolicyName(policy) << ": " << run.status().ToString();
    SimConfig one = c;
    one.policy = policy;
    auto alone = Simulate(trace, one);
    ASSERT_TRUE(alone.ok());
    EXPECT_DOUBLE_EQ(run->wa, alone->wa) << VictimPolicyName(policy);
    EXPECT_LE(floor->best.wa, run->wa) << VictimPolicyName(policy);
    was.push_back(run->wa);
  }
  const auto lowest = std::min_element(was.begin(), was.end()) - was.begin();
  EXPECT_EQ(floor->policy, floor->runs[static_cast<size_t>(lowest)].first);
  EXPECT_DOUBLE_EQ(floor->best.wa, was[static_cast<size_t>(lowest)]);
  // The policies' floors differ on this trace (else the test could not tell them apart).
  EXPECT_GT(*std::max_element(was.begin(), was.end()), 1.02 * was[static_cast<size_t>(lowest)]);
  // A score the caller gives decides: the highest WA when asked for it.
  auto worst = SimulateOracleFloor(trace, c, [](const SimResult& r) { return -r.wa; });
  ASSERT_TRUE(worst.ok());
  EXPECT_DOUBLE_EQ(worst->best.wa, *std::max_element(was.begin(), was.end()));
}

// Whether 8 death-time classes fit in a 2-zone reserve is a coin flip of the trace: before
// the oracle retried with a larger reserve, statistically identical traces (seeds) got 8
// classes or fell back to 4, and floors 25-30 % apart (gcsim below: seed 4 gave 1.427 with
// 4 classes against 1.10 for seeds 1-3; at 12 fills 1.42 / 1.75 / 1.75). Now every seed
// keeps 8 classes and the floors agree within 10 %. The gcsim geometry of
// doc/performance.md (256 x 16 MiB zones, 252 KiB objects, zipf, 80 %), 4 fills.
TEST(GcSimTest, TheOracleFloorDoesNotJumpBetweenSeedsOfOneWorkload) {
  std::vector<double> floors;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    TraceSpec t;
    t.capacity_bytes = 256 * kZoneBytes;
    t.utilization = 0.8;
    t.deletes = DeletePattern::kZipf;
    t.fixed_bytes = 258048;
    t.seed = seed;
    const size_t live = MakeTrace(t).size();
    t.steady_ops = 4 * live;
    const std::vector<TraceOp> trace = MakeTrace(t);
    SimConfig c;
    c.zone_bytes = kZoneBytes;
    c.zones = 256;
    c.reserve_zones = 2;
    c.placement = Placement::kOracle;
    auto r = Simulate(trace, c);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::printf("seed %llu: oracle %.3f with %u classes\n", static_cast<unsigned long long>(seed),
                r->wa, r->oracle_classes);
    EXPECT_EQ(r->oracle_classes, 8u) << "seed " << seed;
    floors.push_back(r->wa);
  }
  const auto [lo, hi] = std::minmax_element(floors.begin(), floors.end());
  EXPECT_LT(*hi, 1.10 * *lo);
}

}  // namespace
}  // namespace smr
