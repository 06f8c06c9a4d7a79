// QuantumSizer (gc/quantum_sizer.h): the fit of a quantum's fixed cost and per-byte cost,
// the size it gives for a bound, probes, the halving after a quantum over the bound, and a
// bound the fixed cost alone exceeds.
#include "gc/quantum_sizer.h"

#include <gtest/gtest.h>

#include <random>

namespace smr {
namespace {

constexpr double kMiB = 1 << 20;

// A drive where every quantum costs `fixed` ms plus `per_mib` ms per MiB (plus noise).
struct Drive {
  double fixed, per_mib, noise = 0;
  std::mt19937 rng{7};
  double Run(uint64_t bytes) {
    std::uniform_real_distribution<double> u(-noise, noise);
    return fixed + per_mib * static_cast<double>(bytes) / kMiB + u(rng);
  }
};

TEST(QuantumSizerTest, ProbesThenFitsTheFixedCostAndTheRate) {
  QuantumSizer q;
  EXPECT_EQ(q.Next(60), QuantumSizer::kFirstProbe);
  q.Note(QuantumSizer::kFirstProbe, 41, 60);
  EXPECT_EQ(q.Next(60), 2 * QuantumSizer::kFirstProbe);
  Drive d{38, 12.2};
  q.Note(2 * QuantumSizer::kFirstProbe, d.Run(2 * QuantumSizer::kFirstProbe), 60);
  for (int i = 0; i < 20; ++i) {
    const uint64_t b = q.Next(60);
    q.Note(b, d.Run(b), 60);
  }
  ASSERT_TRUE(q.fitted());
  EXPECT_NEAR(q.fixed_ms(), 38, 0.5);
  EXPECT_NEAR(q.ms_per_mib(), 12.2, 0.1);
  // (60 - 38) / 3 / 12.2 = 0.60 MiB, dithered by +-25 %: every quantum well within the
  // bound, none at the floor of one 64 KiB piece.
  for (int i = 0; i < 9; ++i) {
    const uint64_t b = q.Next(60);
    EXPECT_GE(b, 0.60 * 0.75 * kMiB * 0.99);
    EXPECT_LE(b, 0.60 * 1.25 * kMiB * 1.01);
    EXPECT_LT(d.Run(b), 60 - 10);
    q.Note(b, d.Run(b), 60);
  }
}

// The rule this replaced sized a quantum from the mean rate alone (half the bound times
// bytes per ms): with a fixed cost above half the bound it shrank to the minimum and stayed
// there (a quantum of 64 KiB per ~40 ms). The fit does not.
TEST(QuantumSizerTest, AFixedCostAboveHalfTheBoundDoesNotCollapseTheQuanta) {
  QuantumSizer q;
  Drive d{38, 12.2, 3};
  uint64_t b = 0;
  for (int i = 0; i < 40; ++i) {
    b = q.Next(60);
    q.Note(b, d.Run(b), 60);
  }
  EXPECT_GT(b, 300 * 1024u);
  // A wider bound, bigger quanta.
  uint64_t wide = 0;
  for (int i = 0; i < 3; ++i) wide = std::max(wide, q.Next(100));
  EXPECT_GT(wide, 2 * b);
}

TEST(QuantumSizerTest, NoisyQuantaStillFitClose) {
  QuantumSizer q;
  Drive d{20, 4, 4};
  for (int i = 0; i < 60; ++i) {
    const uint64_t b = q.Next(100);
    q.Note(b, d.Run(b), 100);
  }
  ASSERT_TRUE(q.fitted());
  EXPECT_NEAR(q.fixed_ms(), 20, 4);
  EXPECT_NEAR(q.ms_per_mib(), 4, 0.6);
}

TEST(QuantumSizerTest, AQuantumOverTheBoundHalvesTheNext) {
  QuantumSizer q;
  Drive d{10, 5};
  for (int i = 0; i < 10; ++i) {
    const uint64_t b = q.Next(100);
    q.Note(b, d.Run(b), 100);
  }
  const uint64_t before = q.Next(100);
  q.Note(before, 250, 100);  // a stall
  EXPECT_LE(q.Next(100), before / 2);
}

TEST(QuantumSizerTest, ABoundTheFixedCostAloneExceedsGetsTheMinimumAndSaysSo) {
  QuantumSizer q;
  Drive d{70, 10};
  for (int i = 0; i < 10; ++i) {
    const uint64_t b = q.Next(60);
    q.Note(b, d.Run(b), 60);
  }
  EXPECT_FALSE(q.Feasible(60));
  EXPECT_EQ(q.Next(60), QuantumSizer::kMinBytes);
  EXPECT_TRUE(q.Feasible(100));
}

TEST(QuantumSizerTest, WalksThatMovedNothingStayOutOfTheFit) {
  QuantumSizer q;
  q.Note(0, 30, 60);
  q.Note(4096, 30, 60);
  EXPECT_EQ(q.Next(60), QuantumSizer::kFirstProbe);  // still the first probe
}

}  // namespace
}  // namespace smr

namespace smr {
namespace {

// Outliers (a quantum in ten pays 60 ms more: a zone's reset and fence, a host stall) do
// not pull the fit: the fixed cost stays the typical quantum's.
TEST(QuantumSizerTest, OccasionalSlowQuantaDoNotMoveTheFit) {
  QuantumSizer q;
  Drive d{40, 12};
  for (int i = 0; i < 64; ++i) {
    const uint64_t b = q.Next(100);
    q.Note(b, d.Run(b) + (i % 10 == 9 ? 60 : 0), 100);
  }
  ASSERT_TRUE(q.fitted());
  EXPECT_NEAR(q.fixed_ms(), 40, 3);
  EXPECT_NEAR(q.ms_per_mib(), 12, 1.5);
}

}  // namespace
}  // namespace smr
