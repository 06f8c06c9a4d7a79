#include "gc/lifetime_history.h"

#include <gtest/gtest.h>

namespace smr {
namespace {

TEST(LifetimeHistoryTest, KeepsMeanLifetimePerName) {
  LifetimeHistory h(8);
  EXPECT_FALSE(h.Lookup(1).has_value());
  h.Note(1, 100);
  h.Note(2, 5);
  h.Note(1, 20);  // a later incarnation of name 1: mean of 100 and 20
  ASSERT_TRUE(h.Lookup(1).has_value());
  EXPECT_EQ(*h.Lookup(1), 60u);
  EXPECT_EQ(*h.Lookup(2), 5u);
  EXPECT_EQ(h.size(), 2u);
}

TEST(LifetimeHistoryTest, MeanFollowsChangeWithinWindow) {
  LifetimeHistory h(8);
  for (int i = 0; i < 100; ++i) h.Note(1, 1000);  // long-lived for a long time
  EXPECT_EQ(*h.Lookup(1), 1000u);
  // The name turns hot: after a window of short lives the estimate is mostly short.
  for (uint32_t i = 0; i < LifetimeHistory::kWindow; ++i) h.Note(1, 10);
  EXPECT_LT(*h.Lookup(1), 400u);
}

TEST(LifetimeHistoryTest, ForgetsOldestNamesPastCapacity) {
  LifetimeHistory h(3);
  for (uint64_t n = 1; n <= 5; ++n) h.Note(n, n * 10);
  EXPECT_EQ(h.size(), 3u);
  EXPECT_FALSE(h.Lookup(1).has_value());
  EXPECT_FALSE(h.Lookup(2).has_value());
  EXPECT_EQ(*h.Lookup(5), 50u);
  // Re-noting a name refreshes it: name 3 survives the next eviction, 4 goes.
  h.Note(3, 32);
  h.Note(6, 60);
  EXPECT_EQ(h.size(), 3u);
  EXPECT_EQ(*h.Lookup(3), 31u);  // mean of 30 and 32
  EXPECT_FALSE(h.Lookup(4).has_value());
}

TEST(LifetimeHistoryTest, RepeatedNotesOfOneNameStayBounded) {
  LifetimeHistory h(4);
  for (int i = 0; i < 1000; ++i) h.Note(42, 7);
  EXPECT_EQ(h.size(), 1u);
  EXPECT_EQ(*h.Lookup(42), 7u);
}

TEST(LifetimeHistoryTest, PredictShortLived) {
  EXPECT_FALSE(PredictShortLived(std::nullopt, 100));  // no history: default stream
  EXPECT_FALSE(PredictShortLived(50, 0));              // no deaths seen yet
  EXPECT_TRUE(PredictShortLived(50, 100));
  EXPECT_FALSE(PredictShortLived(100, 100));
  EXPECT_FALSE(PredictShortLived(500, 100));
}

// The store's mean lifetime: the first death sets it, then each new age weighs 1/100.
TEST(LifetimeHistoryTest, TheMeanLifetimeIsAnAverageWhereEachNewAgeWeighsOneHundredth) {
  EXPECT_DOUBLE_EQ(NextMeanLifetime(0, 500), 500.0);
  EXPECT_DOUBLE_EQ(NextMeanLifetime(500, 1500), 510.0);
  EXPECT_DOUBLE_EQ(NextMeanLifetime(510, 510), 510.0);
  EXPECT_DOUBLE_EQ(NextMeanLifetime(1000, 0), 990.0);
}

}  // namespace
}  // namespace smr
