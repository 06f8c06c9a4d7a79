#include "gc/read_ahead.h"

#include <string>

#include <gtest/gtest.h>

namespace smr {
namespace {

const GcReadAhead::Key kVictim{0, 7, 7ull << 20, 41};

std::string Bytes(char c, size_t n) { return std::string(n, c); }

TEST(GcReadAheadTest, ServesOnlyWhatOneHeldRangeCovers) {
  GcReadAhead ra;
  ra.Begin(kVictim);
  ASSERT_TRUE(ra.Add(1000, Bytes('a', 100)));
  ASSERT_TRUE(ra.Add(1100, Bytes('b', 100)));  // adjacent: extends the first range
  ASSERT_TRUE(ra.Add(5000, Bytes('c', 10)));
  EXPECT_EQ(ra.bytes(), 210u);
  EXPECT_EQ(ra.end(), 5010u);

  std::string out(4, 'z');
  ASSERT_TRUE(ra.Copy(kVictim, 1096, out.data(), 4));
  EXPECT_EQ(out, "aaaa");
  ASSERT_TRUE(ra.Copy(kVictim, 1100, out.data(), 4));
  EXPECT_EQ(out, "bbbb");
  ASSERT_TRUE(ra.Copy(kVictim, 5006, out.data(), 4));
  EXPECT_EQ(out, "cccc");

  ASSERT_TRUE(ra.Copy(kVictim, 1098, out.data(), 4));  // across the pieces of one range
  EXPECT_EQ(out, "aabb");

  out = "zzzz";
  EXPECT_FALSE(ra.Holds(1198, 3000));  // spans a gap
  EXPECT_FALSE(ra.Copy(kVictim, 999, out.data(), 4));   // starts before the first
  EXPECT_FALSE(ra.Copy(kVictim, 1198, out.data(), 4));  // runs past the range
  EXPECT_FALSE(ra.Copy(kVictim, 3000, out.data(), 4));  // in a gap
  EXPECT_FALSE(ra.Copy(kVictim, 5008, out.data(), 4));  // past the end
  EXPECT_EQ(out, "zzzz") << "a miss leaves the caller's buffer alone";
}

TEST(GcReadAheadTest, NeverServesAnotherZoneOrAnEarlierUseOfTheSameZone) {
  GcReadAhead ra;
  ra.Begin(kVictim);
  ASSERT_TRUE(ra.Add(kVictim.start, Bytes('a', 4096)));
  std::string out(8, 'z');
  GcReadAhead::Key reused = kVictim;
  reused.opened_seq++;  // the same zone, reset and written again
  EXPECT_FALSE(ra.Copy(reused, kVictim.start, out.data(), 8));
  GcReadAhead::Key other = kVictim;
  other.zone++;
  EXPECT_FALSE(ra.Copy(other, kVictim.start, out.data(), 8));
  EXPECT_EQ(out, "zzzzzzzz");

  ra.Begin(kVictim);  // the same owner: what is held stays
  EXPECT_TRUE(ra.Copy(kVictim, kVictim.start, out.data(), 8));
  ra.Begin(reused);  // a new owner: nothing of the old one is kept
  EXPECT_EQ(ra.bytes(), 0u);
  EXPECT_FALSE(ra.Copy(kVictim, kVictim.start, out.data(), 8));
  EXPECT_FALSE(ra.Copy(reused, kVictim.start, out.data(), 8));
}

TEST(GcReadAheadTest, RangesAreAddedInAscendingOrderOnlyAndDroppedBehindTheCursor) {
  GcReadAhead ra;
  EXPECT_FALSE(ra.Add(0, Bytes('a', 10))) << "no owner yet";
  ra.Begin(kVictim);
  ASSERT_TRUE(ra.Add(100, Bytes('a', 100)));
  EXPECT_FALSE(ra.Add(150, Bytes('b', 10))) << "overlaps a held range";
  EXPECT_FALSE(ra.Add(50, Bytes('b', 10))) << "before a held range";
  EXPECT_FALSE(ra.Add(300, std::string())) << "empty";
  ASSERT_TRUE(ra.Add(201, Bytes('c', 99)));
  ASSERT_TRUE(ra.Add(400, Bytes('d', 100)));
  EXPECT_EQ(ra.bytes(), 299u);

  ra.DropBefore(250);  // only the range ending at 200 is wholly behind
  EXPECT_EQ(ra.bytes(), 199u);
  EXPECT_FALSE(ra.Holds(150, 10));
  EXPECT_TRUE(ra.Holds(201, 99));
  ra.DropBefore(500);
  EXPECT_EQ(ra.bytes(), 0u);
  EXPECT_EQ(ra.end(), 0u);
  EXPECT_TRUE(ra.owned_by(kVictim));
  ra.Clear();
  EXPECT_FALSE(ra.owned_by(kVictim));
}

}  // namespace
}  // namespace smr
