#include "gc/pacer.h"

#include <gtest/gtest.h>

namespace smr {
namespace {

// Watermarks of these tests: urgent 0.10, start 0.30, stop 0.50 (debt = (0.30 - free) / 0.20).
GcPacer MakePacer() { return GcPacer(GcPaceOptions{0.30, 0.10, 0.50}); }

// Commit groups (queued rounds) at a fixed free fraction, nothing half cleaned: which of
// them start a round.
std::vector<int> RunningGroups(GcPacer& p, double free, int groups) {
  std::vector<int> ran;
  for (int g = 1; g <= groups; ++g) {
    if (p.StartRound(free, /*cleaning=*/false, /*queued=*/true)) {
      ran.push_back(g);
      EXPECT_FALSE(p.NextSlice(free, /*cleaning=*/false, /*foreground_arrived=*/false))
          << "a paced round above the urgent watermark is one slice";
    }
  }
  return ran;
}

TEST(GcPacerTest, DebtIsTheDistanceBelowTheStartWatermarkClamped) {
  const GcPacer p = MakePacer();
  EXPECT_DOUBLE_EQ(p.Debt(0.20), 0.5);
  EXPECT_DOUBLE_EQ(p.Debt(0.25), 0.25);
  EXPECT_DOUBLE_EQ(p.Debt(0.10), 1.0);
  EXPECT_DOUBLE_EQ(p.Debt(0.0), 1.0);     // below urgent: clamped to 1
  EXPECT_DOUBLE_EQ(p.Debt(0.299), 0.05);  // just below start: at least 1/20
  EXPECT_DOUBLE_EQ(p.Debt(0.40), 0.05);
}

TEST(GcPacerTest, NothingRunsAtOrAboveTheStartWatermark) {
  GcPacer p = MakePacer();
  for (double free : {0.30, 0.31, 0.9}) {
    for (bool queued : {false, true}) {
      EXPECT_FALSE(p.StartRound(free, /*cleaning=*/false, queued)) << free << " " << queued;
    }
  }
  EXPECT_EQ(p.groups_since_gc(), 0u);
}

TEST(GcPacerTest, UnderLoadARoundRunsEveryOneOverDebtGroups) {
  GcPacer half = MakePacer();  // debt 0.5: every second group
  EXPECT_EQ(RunningGroups(half, 0.20, 8), (std::vector<int>{2, 4, 6, 8}));
  GcPacer quarter = MakePacer();  // debt 0.25: every fourth
  EXPECT_EQ(RunningGroups(quarter, 0.25, 8), (std::vector<int>{4, 8}));
  GcPacer least = MakePacer();  // just below start: every twentieth
  EXPECT_EQ(RunningGroups(least, 0.299, 40), (std::vector<int>{20, 40}));
}

TEST(GcPacerTest, RisingAboveTheStartWatermarkRestartsTheSpacing) {
  GcPacer p = MakePacer();
  EXPECT_FALSE(p.StartRound(0.20, false, true));  // 1 of 2 groups at debt 0.5
  EXPECT_EQ(p.groups_since_gc(), 1u);
  EXPECT_FALSE(p.StartRound(0.35, false, true));  // a removal freed space
  EXPECT_EQ(p.groups_since_gc(), 0u);
  EXPECT_FALSE(p.StartRound(0.20, false, true));  // counted from zero again
  EXPECT_TRUE(p.StartRound(0.20, false, true));
}

TEST(GcPacerTest, AHalfCleanedVictimIsFinishedEvenAboveTheStartWatermark) {
  GcPacer p = MakePacer();
  // Idle: runs, and goes on while the victim is in hand although free >= stop.
  EXPECT_TRUE(p.StartRound(0.60, /*cleaning=*/true, /*queued=*/false));
  EXPECT_TRUE(p.NextSlice(0.60, /*cleaning=*/true, false));
  EXPECT_FALSE(p.NextSlice(0.60, /*cleaning=*/false, false));
  // Under load the victim in hand is paced at the smallest debt.
  GcPacer q = MakePacer();
  int ran = 0;
  for (int g = 0; g < 40; ++g) {
    if (!q.StartRound(0.60, /*cleaning=*/true, /*queued=*/true)) continue;
    ++ran;
    EXPECT_FALSE(q.NextSlice(0.60, /*cleaning=*/true, false));
  }
  EXPECT_EQ(ran, 2);
}

TEST(GcPacerTest, BelowTheUrgentWatermarkEveryGroupRunsTwoSlices) {
  GcPacer p = MakePacer();
  for (int g = 0; g < 3; ++g) {
    ASSERT_TRUE(p.StartRound(0.09, false, /*queued=*/true)) << "group " << g;
    EXPECT_TRUE(p.NextSlice(0.09, false, false)) << "second slice of an urgent round";
    EXPECT_FALSE(p.NextSlice(0.09, false, false)) << "no third";
  }
  // At the urgent watermark itself it is not urgent: debt 1, one slice per group.
  ASSERT_TRUE(p.StartRound(0.10, false, true));
  EXPECT_FALSE(p.NextSlice(0.10, false, false));
  EXPECT_TRUE(p.Urgent(0.0999));
  EXPECT_FALSE(p.Urgent(0.10));
  EXPECT_FALSE(p.Urgent(0.20));
}

TEST(GcPacerTest, IdleCleaningGoesOnToTheStopWatermark) {
  GcPacer p = MakePacer();
  ASSERT_TRUE(p.StartRound(0.20, false, /*queued=*/false));  // idle: no spacing
  EXPECT_TRUE(p.NextSlice(0.35, false, false));               // above start, below stop
  EXPECT_TRUE(p.NextSlice(0.4999, false, false));
  EXPECT_FALSE(p.NextSlice(0.50, false, false));              // at stop: done
  EXPECT_FALSE(p.NextSlice(0.70, false, false));
}

TEST(GcPacerTest, IdleCleaningYieldsToForegroundWork) {
  GcPacer p = MakePacer();
  ASSERT_TRUE(p.StartRound(0.05, false, /*queued=*/false));
  EXPECT_FALSE(p.NextSlice(0.05, /*cleaning=*/true, /*foreground_arrived=*/true));
  // A queued round's length does not depend on arrivals: it is already bounded.
  ASSERT_TRUE(p.StartRound(0.05, false, /*queued=*/true));
  EXPECT_TRUE(p.NextSlice(0.05, false, /*foreground_arrived=*/true));
}

TEST(GcPacerTest, ASliceRestartsTheSpacing) {
  GcPacer p = MakePacer();
  EXPECT_FALSE(p.StartRound(0.25, false, true));
  EXPECT_FALSE(p.StartRound(0.25, false, true));
  // An idle round in between cleans: the next paced slice is 1/debt groups after it.
  ASSERT_TRUE(p.StartRound(0.25, false, false));
  EXPECT_FALSE(p.NextSlice(0.55, false, false));
  EXPECT_EQ(p.groups_since_gc(), 0u);
  EXPECT_EQ(RunningGroups(p, 0.25, 4), (std::vector<int>{4}));
}

// Idle slices: short while cleaning is ahead (free at or above the midpoint of start 0.30
// and stop 0.50, 0.40), full below it.
TEST(GcPacerTest, IdleSlicesAreShortOnlyWhileCleaningIsAhead) {
  const GcPacer p = MakePacer();
  EXPECT_EQ(p.IdleSlice(0.45), GcPacer::kIdleShort);
  EXPECT_EQ(p.IdleSlice(0.40), GcPacer::kIdleShort);
  EXPECT_EQ(p.IdleSlice(0.39), GcPacer::kIdleFull);
  EXPECT_EQ(p.IdleSlice(0.20), GcPacer::kIdleFull);
  EXPECT_LT(GcPacer::kIdleShort, GcPacer::kIdleFull);
}

// Byte pacing (gc_slice_ms > 0). Watermarks as above: at free 0.20 the debt is 0.5, and a
// victim half live (u = 0.5) costs one live byte moved per byte freed, so the credit is
// one byte per byte written: a slice of budget B rides once the groups since the last one
// wrote B.
constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;

std::vector<int> BytePacedGroups(GcPacer& p, double free, uint64_t written, double live,
                                 uint64_t budget, int groups) {
  std::vector<int> ran;
  for (int g = 1; g <= groups; ++g) {
    const uint64_t b = p.PacedBytes(free, /*cleaning=*/false, written, live, budget);
    if (b != 0) {
      EXPECT_EQ(b, budget) << "group " << g;
      ran.push_back(g);
    }
  }
  return ran;
}

TEST(GcPacerTest, BytePacingRunsASliceOfTheBudgetOnceTheGroupsWroteItsWorth) {
  GcPacer p = MakePacer();
  // 256 KiB per group, 1 MiB budget: every fourth group.
  EXPECT_EQ(BytePacedGroups(p, 0.20, 256 * kKiB, 0.5, kMiB, 12), (std::vector<int>{4, 8, 12}));
  EXPECT_NEAR(p.credit(), 0.0, 1.0);
  // Debt 0.25 (free 0.25): half the credit per byte, every eighth group.
  GcPacer q = MakePacer();
  EXPECT_EQ(BytePacedGroups(q, 0.25, 256 * kKiB, 0.5, kMiB, 16), (std::vector<int>{8, 16}));
}

TEST(GcPacerTest, BytePacingFollowsTheVictimsLiveFraction) {
  // u = 0.8: four live bytes moved per byte freed, so four times the credit of u = 0.5.
  GcPacer full = MakePacer();
  EXPECT_EQ(BytePacedGroups(full, 0.20, 256 * kKiB, 0.8, kMiB, 4), (std::vector<int>{1, 2, 3, 4}));
  // u = 0.2: a quarter; every sixteenth group.
  GcPacer empty = MakePacer();
  EXPECT_EQ(BytePacedGroups(empty, 0.20, 256 * kKiB, 0.2, kMiB, 32), (std::vector<int>{16, 32}));
  // Clamped to [0.05, 0.9]: a victim all live is figured as 0.9 (nine bytes per byte), not
  // as an infinite debt; an all-dead one as 0.05.
  GcPacer all = MakePacer();
  EXPECT_EQ(all.PacedBytes(0.20, false, kMiB, 1.0, 64 * kMiB), 0u);
  EXPECT_NEAR(all.credit(), 9.0 * kMiB, 1.0);
  GcPacer none = MakePacer();
  EXPECT_EQ(none.PacedBytes(0.20, false, kMiB, 0.0, 64 * kMiB), 0u);
  EXPECT_NEAR(none.credit(), kMiB * 0.05 / 0.95, 1.0);
}

TEST(GcPacerTest, BytePacingGroupsThatWriteNothingEarnNothing) {
  GcPacer p = MakePacer();
  EXPECT_TRUE(BytePacedGroups(p, 0.15, 0, 0.5, 64 * kKiB, 1000).empty());
  EXPECT_EQ(p.credit(), 0.0);
}

TEST(GcPacerTest, BytePacingBelowUrgentCarriesItsBudgetEveryGroup) {
  GcPacer p = MakePacer();
  for (uint64_t written : {uint64_t{0}, 4 * kKiB, 64 * kMiB}) {
    EXPECT_EQ(p.PacedBytes(0.05, false, written, 0.5, 256 * kKiB), 256 * kKiB) << written;
  }
  EXPECT_EQ(p.PacedBytes(0.05, false, 0, 0.5, 0), GcPacer::kUrgentBytes) << "no budget";
}

// Cleaning outside the pacing (idle slices, cleaning for space) pays what the credit owes:
// a group's credit of 3 MiB less 2 MiB cleaned idle leaves 1 MiB, and a 1 MiB budget then
// rides once; paying more than is owed leaves nothing, not a debt of GC's.
TEST(GcPacerTest, BytePacingCleaningOutsideThePacingPaysTheCredit) {
  GcPacer p = MakePacer();
  // debt 0.5 at free 0.2 (start 0.3, urgent 0.1), u 0.5: credit = written.
  EXPECT_EQ(p.PacedBytes(0.20, false, 3 * kMiB, 0.5, 4 * kMiB), 0u);
  EXPECT_NEAR(p.credit(), 3.0 * kMiB, 1.0);
  p.Paid(2 * kMiB);
  EXPECT_NEAR(p.credit(), 1.0 * kMiB, 1.0);
  EXPECT_EQ(p.PacedBytes(0.20, false, 0, 0.5, kMiB), kMiB);
  EXPECT_EQ(p.PacedBytes(0.20, false, 0, 0.5, kMiB), 0u) << "paid off";
  p.Paid(8 * kMiB);
  EXPECT_EQ(p.credit(), 0.0);
}

TEST(GcPacerTest, BytePacingCreditIsCappedAndDroppedAboveStart) {
  GcPacer p = MakePacer();
  // A 1 GiB group at debt 1 with a 4 MiB budget: one slice now, and what the credit holds
  // beyond it is at most kCreditMax: groups writing nothing then run at most 16 more.
  EXPECT_EQ(p.PacedBytes(0.10, false, 1024 * kMiB, 0.5, 4 * kMiB), 4 * kMiB);
  EXPECT_LE(p.credit(), static_cast<double>(GcPacer::kCreditMax));
  const std::vector<int> more = BytePacedGroups(p, 0.10, 0, 0.5, 4 * kMiB, 100);
  EXPECT_EQ(more.size(), GcPacer::kCreditMax / (4 * kMiB) - 1);
  // Back above start with nothing half cleaned: the credit is gone.
  GcPacer q = MakePacer();
  EXPECT_EQ(q.PacedBytes(0.20, false, 3 * kMiB, 0.5, 4 * kMiB), 0u);
  EXPECT_GT(q.credit(), 0.0);
  EXPECT_EQ(q.PacedBytes(0.35, false, 3 * kMiB, 0.5, 4 * kMiB), 0u);
  EXPECT_EQ(q.credit(), 0.0);
  EXPECT_EQ(q.PacedBytes(0.20, false, 3 * kMiB, 0.5, 4 * kMiB), 0u) << "counted from zero";
  // Above start with a victim half cleaned: credit at the least debt (0.05) goes on.
  GcPacer r = MakePacer();
  EXPECT_EQ(r.PacedBytes(0.40, true, 20 * kMiB, 0.5, kMiB), kMiB);
  EXPECT_EQ(r.PacedBytes(0.40, true, 0, 0.5, 0), 0u) << "no budget, no slice";
}

// The cap on free zones: below it the fraction is free / total; above it the fraction is
// scaled so that the stop watermark is met with exactly the cap free, and start and urgent
// keep their ratio to stop.
TEST(GcPacedFreeTest, TheFractionIsScaledOnlyWhenStopWouldKeepMoreThanTheCap) {
  // 1,000 zones, stop 5 % = 50 zones: a cap of 64 or 0 (none) leaves the fraction alone.
  EXPECT_DOUBLE_EQ(GcPacedFree(30, 1000, 0.05, 64), 0.03);
  EXPECT_DOUBLE_EQ(GcPacedFree(30, 1000, 0.05, 50), 0.03);
  EXPECT_DOUBLE_EQ(GcPacedFree(30, 1000, 0.05, 0), 0.03);
  // 76,000 zones (a 20 TB drive of 256 MiB zones), stop 5 % = 3,800 zones, cap 64: stop is
  // met with 64 zones free, start (3 %) with 38.4, urgent (1 %) with 12.8.
  const GcPaceOptions w{0.03, 0.01, 0.05};
  GcPacer p(w);
  EXPECT_DOUBLE_EQ(GcPacedFree(64, 76000, 0.05, 64), 0.05);
  EXPECT_GE(GcPacedFree(64, 76000, 0.05, 64), w.stop_free);
  EXPECT_LT(GcPacedFree(63, 76000, 0.05, 64), w.stop_free);
  EXPECT_GE(GcPacedFree(39, 76000, 0.05, 64), w.start_free);
  EXPECT_LT(GcPacedFree(38, 76000, 0.05, 64), w.start_free);
  EXPECT_FALSE(p.Urgent(GcPacedFree(13, 76000, 0.05, 64)));
  EXPECT_TRUE(p.Urgent(GcPacedFree(12, 76000, 0.05, 64)));
  // Without the cap the same drive is urgent below 760 free zones.
  EXPECT_TRUE(p.Urgent(GcPacedFree(759, 76000, 0.05, 0)));
  EXPECT_DOUBLE_EQ(GcPacedFree(0, 0, 0.05, 64), 0.0);
}

}  // namespace
}  // namespace smr
