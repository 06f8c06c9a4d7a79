#include "gc/death_rate.h"

#include <gtest/gtest.h>

namespace smr {
namespace {

TEST(DeathRateTest, EveryStreamStartsUnknown) {
  DeathRateEstimator e(7);
  EXPECT_EQ(e.streams(), 7u);
  EXPECT_EQ(e.Rates(), std::vector<double>(7, 0.0));
}

TEST(DeathRateTest, RateIsDiedBytesOverLiveBytesTimesTime) {
  DeathRateEstimator e(3);
  e.Advance(10, {0, 1000, 4000});       // clock 0 -> 10: 10,000 and 40,000 byte-seqs
  e.NoteDied(1, 100);
  e.NoteDied(1, 50);                    // deaths add up
  e.NoteDied(2, 200);
  e.Advance(20, {0, 1000, 0});          // 10 more seqs: stream 1 10,000 more, stream 2 none
  const std::vector<double> r = e.Rates();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_DOUBLE_EQ(r[0], 0.0);          // never live: unknown
  EXPECT_DOUBLE_EQ(r[1], 150.0 / 20000.0);
  EXPECT_DOUBLE_EQ(r[2], 200.0 / 40000.0);
}

TEST(DeathRateTest, EveryStreamIndexCountsTheFirstAndTheLast) {
  DeathRateEstimator e(3);
  e.Advance(4, {100, 0, 100});
  e.NoteDied(0, 40);
  e.NoteDied(2, 20);
  const std::vector<double> r = e.Rates();
  EXPECT_DOUBLE_EQ(r[0], 40.0 / 400.0);
  EXPECT_DOUBLE_EQ(r[1], 0.0);
  EXPECT_DOUBLE_EQ(r[2], 20.0 / 400.0);
}

TEST(DeathRateTest, AnEmptyAdvanceStartsTheClockWithoutIntegrating) {
  DeathRateEstimator e(2);
  e.Advance(5000, {});                  // e.g. mount at seq 5000
  e.Advance(5010, {0, 100});
  e.NoteDied(1, 10);
  EXPECT_DOUBLE_EQ(e.Rates()[1], 10.0 / 1000.0);  // 100 bytes x 10 seqs, not x 5010
}

TEST(DeathRateTest, AClockThatDoesNotMoveForwardChangesNothing) {
  DeathRateEstimator e(2);
  e.Advance(10, {0, 100});              // 1,000
  e.Advance(10, {0, 1'000'000});        // same time: nothing
  e.Advance(4, {0, 1'000'000});         // back in time: nothing, and the clock stays at 10
  e.Advance(12, {0, 100});              // 200 more
  e.NoteDied(1, 12);
  EXPECT_DOUBLE_EQ(e.Rates()[1], 12.0 / 1200.0);
}

TEST(DeathRateTest, DeathsBeforeAnyLiveTimeStayUnknownAndOutOfRangeIsIgnored) {
  DeathRateEstimator e(2);
  e.NoteDied(1, 500);                   // nothing was live for a positive time yet
  e.NoteDied(2, 500);                   // no such stream
  e.NoteDied(7, 500);                   // nor this one (far past the end)
  e.Advance(3, {0, 0, 999});            // live of a stream past the end: ignored
  EXPECT_EQ(e.Rates(), std::vector<double>(2, 0.0));
  e.Advance(4, {0, 1000});
  EXPECT_DOUBLE_EQ(e.Rates()[1], 0.5);
}

// A zone's live bytes dropping by user action are deaths; growing (a write) is not. Only
// drops count, at their size, for the zone's stream; the most negative delta too.
TEST(DeathRateTest, OnlyADropOfLiveBytesIsADeath) {
  DeathRateEstimator e(2);
  e.Advance(10, {1000, 1000});  // 10,000 byte-seqs each
  e.NoteLiveDelta(0, 4096);     // data written: no death
  e.NoteLiveDelta(0, 0);
  e.NoteLiveDelta(1, -250);
  e.NoteLiveDelta(1, -50);
  const std::vector<double> r = e.Rates();
  EXPECT_DOUBLE_EQ(r[0], 0.0);
  EXPECT_DOUBLE_EQ(r[1], 300.0 / 10000.0);
  DeathRateEstimator big(1);
  big.Advance(1, {1});
  big.NoteLiveDelta(0, INT64_MIN);
  EXPECT_DOUBLE_EQ(big.Rates()[0], 9223372036854775808.0);
}

}  // namespace
}  // namespace smr
