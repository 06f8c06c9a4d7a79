// HeadModel's charging rule with an injected clock: exact device times for sequential,
// skipped-gap, seeking and read-ahead I/Os, and queueing on the one head.
#include "device/head_model.h"

#include <gtest/gtest.h>

namespace smr {
namespace {

using Clock = HeadModel::Clock;

// Seconds from `t0` to `t`.
double Since(Clock::time_point t0, Clock::time_point t) {
  return std::chrono::duration<double>(t - t0).count();
}

Clock::time_point After(Clock::time_point t0, double seconds) {
  return t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// 100 MB/s, 10 ms seek: 1 MB takes 10 ms.
constexpr double kMbps = 100;
constexpr double kSeekMs = 10;
constexpr uint64_t kMB = 1000000;

TEST(HeadModelTest, SequentialIosCostTheirBytesAndAnythingElseASeek) {
  HeadModel h(kMbps, kSeekMs);
  const Clock::time_point t0 = Clock::now() + std::chrono::seconds(1);  // head idle by then
  // Starts at 0 where the head is: sequential, 10 ms.
  Clock::time_point done = h.Charge(0, kMB, /*read=*/false, t0);
  EXPECT_NEAR(Since(t0, done), 0.010, 1e-6);
  // Right after it, queued behind it: sequential again, done at 20 ms.
  done = h.Charge(kMB, kMB, false, t0);
  EXPECT_NEAR(Since(t0, done), 0.020, 1e-6);
  // Far away: a seek (10 ms) + transfer (10 ms).
  done = h.Charge(1000 * kMB, kMB, false, t0);
  EXPECT_NEAR(Since(t0, done), 0.040, 1e-6);
  // Backwards by one byte is a seek too.
  done = h.Charge(1001 * kMB - 1, kMB, false, t0);
  EXPECT_NEAR(Since(t0, done), 0.060, 1e-6);
  const HeadModel::Stats s = h.stats();
  EXPECT_EQ(s.ios, 4u);
  EXPECT_EQ(s.sequential, 2u);
  EXPECT_EQ(s.seeks, 2u);
  EXPECT_EQ(s.skips, 0u);
  EXPECT_EQ(s.bytes, 4 * kMB);
  EXPECT_NEAR(s.busy_seconds, 0.060, 1e-6);
  EXPECT_EQ(s.read_ios, 0u);  // all four were writes
  EXPECT_EQ(s.read_bytes, 0u);
}

TEST(HeadModelTest, ReadsAreCountedApartFromWrites) {
  HeadModel h(kMbps, kSeekMs);
  const Clock::time_point t0 = Clock::now() + std::chrono::seconds(1);
  h.Charge(0, kMB, /*read=*/false, t0);
  h.Charge(500 * kMB, 3 * kMB, /*read=*/true, t0);
  h.Charge(503 * kMB, kMB, /*read=*/true, t0);
  const HeadModel::Stats s = h.stats();
  EXPECT_EQ(s.ios, 3u);
  EXPECT_EQ(s.bytes, 5 * kMB);
  EXPECT_EQ(s.read_ios, 2u);
  EXPECT_EQ(s.read_bytes, 4 * kMB);
}

TEST(HeadModelTest, AShortForwardGapCostsItsBytesNotASeek) {
  HeadModel h(kMbps, kSeekMs);
  const Clock::time_point t0 = Clock::now() + std::chrono::seconds(1);
  h.Charge(0, kMB, false, t0);  // done at 10 ms
  // A 1 MB gap (within kSkipWindow): 10 ms to pass it + 10 ms transfer.
  Clock::time_point done = h.Charge(2 * kMB, kMB, false, t0);
  EXPECT_NEAR(Since(t0, done), 0.030, 1e-6);
  // A gap just past the window is a seek.
  done = h.Charge(3 * kMB + HeadModel::kSkipWindow + 1, kMB, false, t0);
  EXPECT_NEAR(Since(t0, done), 0.050, 1e-6);
  EXPECT_EQ(h.stats().skips, 1u);
  EXPECT_EQ(h.stats().seeks, 1u);
}

TEST(HeadModelTest, AnIdleHeadStartsAtArrivalAndQueuedIosWait) {
  HeadModel h(kMbps, kSeekMs);
  const Clock::time_point t0 = Clock::now() + std::chrono::seconds(1);
  h.Charge(0, kMB, false, t0);  // busy until 10 ms
  // Arrives at 50 ms, the head idle: done 10 ms later, not at 20 ms.
  Clock::time_point done = h.Charge(kMB, kMB, false, After(t0, 0.050));
  EXPECT_NEAR(Since(t0, done), 0.060, 1e-6);
  // Two arrivals at 60 ms, far apart: each a seek, the second after the first.
  done = h.Charge(500 * kMB, kMB, false, After(t0, 0.060));
  EXPECT_NEAR(Since(t0, done), 0.080, 1e-6);
  done = h.Charge(900 * kMB, kMB, false, After(t0, 0.060));
  EXPECT_NEAR(Since(t0, done), 0.100, 1e-6);
}

TEST(HeadModelTest, ASequentialReadAfterIdleTimeFindsReadAheadButAWriteOrSeekDoesNot) {
  HeadModel h(kMbps, kSeekMs);
  const Clock::time_point t0 = Clock::now() + std::chrono::seconds(1);
  // A write first (a read at t0 would itself find read-ahead: the head idled since its
  // construction). Busy until 10 ms.
  h.Charge(0, kMB, /*read=*/false, t0);
  // 5 ms idle: 0.5 MB read ahead, so the next 1 MB read takes 5 ms.
  Clock::time_point done = h.Charge(kMB, kMB, true, After(t0, 0.015));
  EXPECT_NEAR(Since(t0, done), 0.020, 1e-6);
  // Long idle: the credit is capped at kReadAhead (2 MiB), so a 1 MB read is free.
  done = h.Charge(2 * kMB, kMB, true, After(t0, 1.0));
  EXPECT_NEAR(Since(t0, done), 1.0, 1e-6);
  // A write after idle time gets no credit.
  done = h.Charge(3 * kMB, kMB, false, After(t0, 2.0));
  EXPECT_NEAR(Since(t0, done), 2.010, 1e-6);
  // Nor does a read that seeks.
  done = h.Charge(900 * kMB, kMB, true, After(t0, 3.0));
  EXPECT_NEAR(Since(t0, done), 3.020, 1e-6);
}

TEST(HeadModelTest, ChargeAndWaitSleepsForTheDeviceTime) {
  HeadModel h(kMbps, kSeekMs);
  const Clock::time_point t0 = Clock::now();
  h.ChargeAndWait(0, 2 * kMB, false);  // at least 20 ms (sequential from 0)
  EXPECT_GE(Since(t0, Clock::now()), 0.020);
}

}  // namespace
}  // namespace smr
