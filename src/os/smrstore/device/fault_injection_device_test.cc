// Tests of device/fault_injection_device.h over an emulated drive, once with buffered and
// once with direct (O_DIRECT) writes (the parameter; emulated_zoned_device.h "Direct
// writes"): what was flushed before a power cut stays in both modes. The wrapper's
// transparency (no fault armed) is checked by device_conformance_test.cc ("fault" backend).

#include "device/fault_injection_device.h"

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/status.h"
#include "device/emulated_zoned_device.h"
#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "device/zoned_device.h"

namespace smr {
namespace {

using smr::testing::CheckPattern;
using smr::testing::DescribeZone;
using smr::testing::FillPattern;
using smr::testing::ScratchDir;
using Mode = FaultInjectionDevice::PowerCutMode;

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint32_t kConv = 2;
constexpr uint64_t kB = 4096;  // logical block size of the test drive

bool SameZone(const ZoneInfo& a, const ZoneInfo& b) {
  return a.start == b.start && a.length == b.length && a.capacity == b.capacity &&
         a.wp == b.wp && a.type == b.type && a.cond == b.cond;
}

EmulatedGeometry TestGeometry() {
  EmulatedGeometry g;
  g.nr_zones = 12;
  g.zone_size = 1 * kMiB;
  g.nr_conventional = kConv;
  g.logical_block_size = kB;
  g.max_open_zones = 0;
  g.max_active_zones = 0;
  return g;
}

// The parameter: the emulated drive writes with O_DIRECT.
class FaultInjectionDeviceTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    dev_ = MakeDevice("drive.img");
    ASSERT_NE(dev_, nullptr);
  }

  std::unique_ptr<FaultInjectionDevice> MakeDevice(const std::string& name) {
    TimingModel t;
    t.direct_writes = GetParam();
    auto r = EmulatedZonedDevice::Create(dir_.path() + "/" + name, TestGeometry(), t);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return nullptr;
    std::unique_ptr<ZonedDevice> base = std::move(r).value();
    return std::make_unique<FaultInjectionDevice>(std::move(base));
  }

  // Start of sequential zone `i` and its zone index.
  uint64_t S(uint32_t i) const { return uint64_t{kConv + i} * kMiB; }
  static uint32_t Z(uint32_t i) { return kConv + i; }

  ZoneInfo Zone(ZonedDevice* d, uint32_t z) {
    auto r = d->ReportZones(z, 1);
    if (!r.ok() || r->size() != 1) {
      ADD_FAILURE() << "ReportZones(" << z << "): "
                    << (r.ok() ? "wrong size" : r.status().ToString());
      return {};
    }
    return (*r)[0];
  }
  ZoneInfo Zone(uint32_t z) { return Zone(dev_.get(), z); }

  std::vector<ZoneInfo> Zones(ZonedDevice* d) {
    auto r = d->ReportZones(0, 0);
    if (!r.ok()) {
      ADD_FAILURE() << r.status().ToString();
      return {};
    }
    return std::move(r).value();
  }

  static Status Write(ZonedDevice* d, uint64_t seed, uint64_t off, size_t len) {
    std::vector<char> buf(len);
    FillPattern(seed, off, buf.data(), len);
    return d->Write(off, buf.data(), len);
  }
  Status Write(uint64_t seed, uint64_t off, size_t len) {
    return Write(dev_.get(), seed, off, len);
  }

  ::testing::AssertionResult Matches(ZonedDevice* d, uint64_t seed, uint64_t off, size_t len) {
    std::vector<char> buf(len, '\x5a');
    Status s = d->Read(off, buf.data(), len);
    if (!s.ok()) return ::testing::AssertionFailure() << "Read: " << s.ToString();
    if (!CheckPattern(seed, off, buf.data(), len)) {
      return ::testing::AssertionFailure()
             << "data at " << off << " (+" << len << ") is not seed " << seed;
    }
    return ::testing::AssertionSuccess();
  }
  ::testing::AssertionResult Matches(uint64_t seed, uint64_t off, size_t len) {
    return Matches(dev_.get(), seed, off, len);
  }

  ::testing::AssertionResult Zeros(ZonedDevice* d, uint64_t off, size_t len) {
    std::vector<char> buf(len, '\x5a');
    Status s = d->Read(off, buf.data(), len);
    if (!s.ok()) return ::testing::AssertionFailure() << "Read: " << s.ToString();
    for (size_t i = 0; i < len; ++i) {
      if (buf[i] != 0) return ::testing::AssertionFailure() << "non-zero at " << off + i;
    }
    return ::testing::AssertionSuccess();
  }
  ::testing::AssertionResult Zeros(uint64_t off, size_t len) {
    return Zeros(dev_.get(), off, len);
  }

  ScratchDir dir_;
  std::unique_ptr<FaultInjectionDevice> dev_;
};

// ---------------------------------------------------------------------------------------
// Read / write failures

TEST_P(FaultInjectionDeviceTest, FailNthWriteFailsOnlyTheNthWrite) {
  dev_->FailNthWrite(3);
  ASSERT_OK(Write(1, S(0), kB));
  ASSERT_OK(Write(1, S(0) + kB, kB));
  std::vector<ZoneInfo> before = Zones(dev_.get());
  EXPECT_CODE(Write(1, S(0) + 2 * kB, kB), kIOError);
  std::vector<ZoneInfo> after = Zones(dev_.get());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_TRUE(SameZone(before[i], after[i])) << i << " " << DescribeZone(after[i]);
  }
  EXPECT_EQ(Zone(Z(0)).wp, S(0) + 2 * kB);
  EXPECT_EQ(Zone(dev_->base(), Z(0)).wp, S(0) + 2 * kB) << "the failed write reached the base";
  EXPECT_TRUE(Zeros(dev_->base(), S(0) + 2 * kB, kB));
  // The 4th (a retry) and later writes succeed: the trigger fired once.
  ASSERT_OK(Write(1, S(0) + 2 * kB, kB));
  for (int i = 3; i < 10; ++i) ASSERT_OK(Write(1, S(0) + i * kB, kB));
  EXPECT_TRUE(Matches(1, S(0), 10 * kB));
}

TEST_P(FaultInjectionDeviceTest, FailNthWriteCountsEveryWriteAndConventionalFailureKeepsData) {
  ASSERT_OK(Write(7, 0, 2 * kB));
  dev_->FailNthWrite(2);
  ASSERT_OK(Write(8, S(1), kB));            // 1st: sequential
  EXPECT_CODE(Write(9, 0, 2 * kB), kIOError);  // 2nd: conventional overwrite, no effect
  EXPECT_TRUE(Matches(7, 0, 2 * kB));
  EXPECT_TRUE(Matches(dev_->base(), 7, 0, 2 * kB));
  ASSERT_OK(Write(9, 0, 2 * kB));
  EXPECT_TRUE(Matches(9, 0, 2 * kB));
}

TEST_P(FaultInjectionDeviceTest, StickyWriteFailureLastsUntilClearFaults) {
  dev_->FailNthWrite(2, /*sticky=*/true);
  ASSERT_OK(Write(1, S(0), kB));
  for (int i = 0; i < 5; ++i) {
    SCOPED_TRACE("attempt " + std::to_string(i));
    EXPECT_CODE(Write(1, S(0) + kB, kB), kIOError);
    EXPECT_CODE(Write(2, 0, kB), kIOError);
  }
  EXPECT_EQ(Zone(Z(0)).wp, S(0) + kB);
  // Reads are unaffected.
  EXPECT_TRUE(Matches(1, S(0), kB));
  dev_->ClearFaults();
  ASSERT_OK(Write(1, S(0) + kB, kB));
  ASSERT_OK(Write(2, 0, kB));
  EXPECT_TRUE(Matches(1, S(0), 2 * kB));
}

TEST_P(FaultInjectionDeviceTest, ClearFaultsDisarmsPendingWriteFailure) {
  dev_->FailNthWrite(1);
  dev_->ClearFaults();
  ASSERT_OK(Write(1, S(0), kB));
  ASSERT_OK(Write(1, S(0) + kB, kB));
}

// PowerOff: the drive refuses every write, flush and zone operation (nothing reaches it:
// the write pointer stays) until ClearFaults; reads still work.
TEST_P(FaultInjectionDeviceTest, APoweredOffDriveRefusesWritesFlushesAndZoneOpsUntilCleared) {
  ASSERT_OK(Write(4, S(0), kB));
  ASSERT_OK(dev_->Flush());
  dev_->PowerOff();
  EXPECT_CODE(Write(4, S(0) + kB, kB), kIOError);
  EXPECT_CODE(dev_->Flush(), kIOError);
  EXPECT_CODE(dev_->ResetZones(dev_->ZoneIndexOf(S(0)), 1), kIOError);
  EXPECT_CODE(dev_->FinishZones(dev_->ZoneIndexOf(S(0)), 1), kIOError);
  EXPECT_TRUE(Matches(4, S(0), kB));
  auto zi = dev_->ReportZones(dev_->ZoneIndexOf(S(0)), 1);
  ASSERT_TRUE(zi.ok());
  EXPECT_EQ((*zi)[0].wp, S(0) + kB);
  dev_->ClearFaults();
  ASSERT_OK(Write(4, S(0) + kB, kB));
  ASSERT_OK(dev_->Flush());
  EXPECT_TRUE(Matches(4, S(0), 2 * kB));
}

TEST_P(FaultInjectionDeviceTest, FailNthReadFailsOnlyTheNthRead) {
  ASSERT_OK(Write(3, S(0), 4 * kB));
  dev_->FailNthRead(2);
  std::vector<char> buf(4 * kB);
  ASSERT_OK(dev_->Read(S(0), buf.data(), buf.size()));
  EXPECT_TRUE(CheckPattern(3, S(0), buf.data(), buf.size()));
  EXPECT_CODE(dev_->Read(S(0), buf.data(), buf.size()), kIOError);
  std::fill(buf.begin(), buf.end(), 0);
  ASSERT_OK(dev_->Read(S(0), buf.data(), buf.size()));
  EXPECT_TRUE(CheckPattern(3, S(0), buf.data(), buf.size()));
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(Matches(3, S(0), 4 * kB));
  // Writes do not advance the read countdown, and are not failed by it.
  dev_->FailNthRead(1);
  ASSERT_OK(Write(3, S(0) + 4 * kB, kB));
  EXPECT_CODE(dev_->Read(S(0), buf.data(), kB), kIOError);
  EXPECT_TRUE(Matches(3, S(0), 5 * kB));
}

// A paused read is held before it reaches the drive, only the first overlapping one, and a
// reset of its zone meanwhile is counted (the reset happens; the held read then sees it).
TEST_P(FaultInjectionDeviceTest, PausedReadIsHeldUntilResumedAndCountsResetsOfItsZone) {
  ASSERT_OK(Write(3, S(0), 4 * kB));
  ASSERT_OK(Write(4, S(1), 4 * kB));
  dev_->PauseNextRead(S(1), kMiB);
  // Reads outside the range pass while the pause is armed.
  EXPECT_TRUE(Matches(3, S(0), 4 * kB));
  std::vector<char> held(4 * kB, '\x5a');
  Status held_status = Status::NotFound("not read yet");
  std::thread reader([&] { held_status = dev_->Read(S(1) + kB, held.data(), 2 * kB); });
  EXPECT_EQ(dev_->WaitForPausedRead(), S(1) + kB);
  // One-shot: a second read of the same range is not held.
  EXPECT_TRUE(Matches(4, S(1), 4 * kB));
  ASSERT_OK(dev_->ResetZones(Z(0), 1));  // another zone: not counted
  EXPECT_EQ(dev_->resets_under_paused_read(), 0u);
  ASSERT_OK(dev_->ResetZones(Z(1), 1));
  EXPECT_EQ(dev_->resets_under_paused_read(), 1u);
  dev_->ResumePausedRead();
  reader.join();
  // The held read went to the drive after the reset: it read what the zone holds now.
  ASSERT_OK(held_status);
  EXPECT_TRUE(std::all_of(held.begin(), held.begin() + 2 * kB, [](char c) { return c == 0; }));
  // Not armed any more: reads are not held, resets not counted.
  ASSERT_OK(dev_->ResetZones(Z(1), 1));
  EXPECT_EQ(dev_->resets_under_paused_read(), 1u);
}

TEST_P(FaultInjectionDeviceTest, StickyReadFailureLastsUntilClearFaults) {
  ASSERT_OK(Write(4, S(0), 2 * kB));
  dev_->FailNthRead(1, /*sticky=*/true);
  std::vector<char> buf(kB);
  for (int i = 0; i < 4; ++i) EXPECT_CODE(dev_->Read(S(0), buf.data(), kB), kIOError);
  // Writes still work meanwhile.
  ASSERT_OK(Write(4, S(0) + 2 * kB, kB));
  dev_->ClearFaults();
  EXPECT_TRUE(Matches(4, S(0), 3 * kB));
}

// ---------------------------------------------------------------------------------------
// Corruption

int BitsDiffering(const char* a, const char* b, size_t len) {
  int bits = 0;
  for (size_t i = 0; i < len; ++i) {
    bits += static_cast<int>(std::bitset<8>(static_cast<unsigned char>(a[i] ^ b[i])).count());
  }
  return bits;
}

TEST_P(FaultInjectionDeviceTest, CorruptReadsFlipsOneBitPerOverlappingBlock) {
  const uint64_t s = S(0);
  ASSERT_OK(Write(5, s, 8 * kB));
  std::vector<char> want(8 * kB);
  FillPattern(5, s, want.data(), want.size());
  // Overlaps blocks 2 and 3 only.
  dev_->CorruptReads(s + 2 * kB + 100, kB);

  std::vector<char> got(8 * kB);
  ASSERT_OK(dev_->Read(s, got.data(), got.size()));
  for (int b = 0; b < 8; ++b) {
    const int bits = BitsDiffering(got.data() + b * kB, want.data() + b * kB, kB);
    EXPECT_EQ(bits, (b == 2 || b == 3) ? 1 : 0) << "block " << b;
  }
  // A read covering only block 3.
  std::vector<char> one(kB);
  ASSERT_OK(dev_->Read(s + 3 * kB, one.data(), kB));
  EXPECT_EQ(BitsDiffering(one.data(), want.data() + 3 * kB, kB), 1);
  // A read not overlapping the range is clean.
  ASSERT_OK(dev_->Read(s + 5 * kB, one.data(), kB));
  EXPECT_EQ(BitsDiffering(one.data(), want.data() + 5 * kB, kB), 0);
  // The device itself is unchanged.
  EXPECT_TRUE(Matches(dev_->base(), 5, s, 8 * kB));
  // ClearFaults restores clean reads.
  dev_->ClearFaults();
  EXPECT_TRUE(Matches(5, s, 8 * kB));
}

TEST_P(FaultInjectionDeviceTest, CorruptReadsAppliesToConventionalZones) {
  ASSERT_OK(Write(6, 0, 4 * kB));
  dev_->CorruptReads(0, 4 * kB);
  std::vector<char> want(4 * kB);
  FillPattern(6, 0, want.data(), want.size());
  std::vector<char> got(4 * kB);
  ASSERT_OK(dev_->Read(0, got.data(), got.size()));
  for (int b = 0; b < 4; ++b) {
    EXPECT_EQ(BitsDiffering(got.data() + b * kB, want.data() + b * kB, kB), 1) << b;
  }
  EXPECT_TRUE(Matches(dev_->base(), 6, 0, 4 * kB));
}

// ---------------------------------------------------------------------------------------
// Zone faults

TEST_P(FaultInjectionDeviceTest, ReadOnlyZoneAcceptsReadsOnly) {
  const uint32_t z = Z(1);
  ASSERT_OK(Write(10, S(1), 2 * kB));
  const ZoneInfo healthy = Zone(z);
  dev_->SetZoneFault(z, ZoneCondition::kReadOnly);
  ZoneInfo zi = Zone(z);
  EXPECT_EQ(zi.cond, ZoneCondition::kReadOnly) << DescribeZone(zi);
  auto all = dev_->ReportZones(0, 0);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ((*all)[z].cond, ZoneCondition::kReadOnly);

  EXPECT_CODE(Write(10, S(1) + 2 * kB, kB), kIOError);
  EXPECT_CODE(dev_->OpenZones(z, 1), kIOError);
  EXPECT_CODE(dev_->CloseZones(z, 1), kIOError);
  EXPECT_CODE(dev_->FinishZones(z, 1), kIOError);
  EXPECT_CODE(dev_->ResetZones(z, 1), kIOError);
  EXPECT_TRUE(Matches(10, S(1), 2 * kB));
  // The base device is unchanged.
  EXPECT_TRUE(SameZone(Zone(dev_->base(), z), healthy)) << DescribeZone(Zone(dev_->base(), z));
  // Other zones are unaffected.
  ASSERT_OK(Write(11, S(2), kB));
  ASSERT_OK(dev_->FinishZones(Z(3), 1));

  dev_->ClearZoneFault(z);
  zi = Zone(z);
  EXPECT_TRUE(SameZone(zi, healthy)) << DescribeZone(zi);
  ASSERT_OK(Write(10, S(1) + 2 * kB, kB));
  EXPECT_TRUE(Matches(10, S(1), 3 * kB));
}

TEST_P(FaultInjectionDeviceTest, OfflineZoneAcceptsNothing) {
  const uint32_t z = Z(1);
  ASSERT_OK(Write(12, S(0), kB));
  ASSERT_OK(Write(13, S(1), 2 * kB));
  ASSERT_OK(Write(14, S(2), kB));
  const ZoneInfo healthy = Zone(z);
  dev_->SetZoneFault(z, ZoneCondition::kOffline);
  EXPECT_EQ(Zone(z).cond, ZoneCondition::kOffline);
  std::vector<char> buf(kMiB + 2 * kB);
  EXPECT_CODE(dev_->Read(S(1), buf.data(), kB), kIOError);
  // A read spanning a healthy zone and the offline one fails too.
  EXPECT_CODE(dev_->Read(S(1) - kB, buf.data(), 2 * kB), kIOError);
  EXPECT_CODE(dev_->Read(S(0), buf.data(), kMiB + 2 * kB), kIOError);
  EXPECT_CODE(Write(13, S(1) + 2 * kB, kB), kIOError);
  EXPECT_CODE(dev_->ResetZones(z, 1), kIOError);
  EXPECT_CODE(dev_->FinishZones(z, 1), kIOError);
  EXPECT_CODE(dev_->OpenZones(z, 1), kIOError);
  EXPECT_CODE(dev_->CloseZones(z, 1), kIOError);
  // Neighbours are fine.
  EXPECT_TRUE(Matches(12, S(0), kB));
  EXPECT_TRUE(Matches(14, S(2), kB));

  dev_->ClearZoneFault(z);
  EXPECT_TRUE(SameZone(Zone(z), healthy)) << DescribeZone(Zone(z));
  EXPECT_TRUE(Matches(13, S(1), 2 * kB));
}

TEST_P(FaultInjectionDeviceTest, ClearFaultsClearsZoneFaults) {
  ASSERT_OK(Write(15, S(0), kB));
  dev_->SetZoneFault(Z(0), ZoneCondition::kOffline);
  dev_->SetZoneFault(Z(1), ZoneCondition::kReadOnly);
  dev_->ClearFaults();
  EXPECT_EQ(Zone(Z(0)).cond, ZoneCondition::kImplicitOpen);
  EXPECT_EQ(Zone(Z(1)).cond, ZoneCondition::kEmpty);
  EXPECT_TRUE(Matches(15, S(0), kB));
  ASSERT_OK(Write(16, S(1), kB));
}

// ---------------------------------------------------------------------------------------
// Power cuts

TEST_P(FaultInjectionDeviceTest, UnflushedBytesAccounting) {
  EXPECT_EQ(dev_->unflushed_bytes(), 0u);
  ASSERT_OK(Write(20, S(0), 3 * kB));
  EXPECT_EQ(dev_->unflushed_bytes(), 3 * kB);
  ASSERT_OK(Write(21, 0, 2 * kB));
  EXPECT_EQ(dev_->unflushed_bytes(), 5 * kB);
  // Failed writes write nothing.
  dev_->FailNthWrite(1);
  EXPECT_CODE(Write(20, S(0) + 3 * kB, kB), kIOError);
  EXPECT_EQ(dev_->unflushed_bytes(), 5 * kB);
  std::vector<char> buf(kB);
  EXPECT_CODE(dev_->Write(S(0), buf.data(), kB), kIOError);  // not at the write pointer
  EXPECT_EQ(dev_->unflushed_bytes(), 5 * kB);
  ASSERT_OK(dev_->Flush());
  EXPECT_EQ(dev_->unflushed_bytes(), 0u);
  ASSERT_OK(Write(20, S(0) + 3 * kB, kB));
  EXPECT_EQ(dev_->unflushed_bytes(), kB);
}

TEST_P(FaultInjectionDeviceTest, PowerCutLosesUnflushedWrites) {
  // Before the flush.
  ASSERT_OK(Write(30, S(0), 4 * kB));        // A: flushed part
  ASSERT_OK(Write(32, S(2), kMiB));          // C: full
  ASSERT_OK(Write(33, S(3), 2 * kB));        // D: reset after the flush
  ASSERT_OK(Write(34, S(4), 2 * kB));        // E: finished after the flush
  ASSERT_OK(dev_->OpenZones(Z(5), 1));       // F: explicitly open, no data
  ASSERT_OK(dev_->OpenZones(Z(6), 1));       // G: explicitly open with flushed data
  ASSERT_OK(Write(36, S(6), 2 * kB));
  ASSERT_OK(Write(37, S(7), 3 * kB));        // H: flushed, untouched afterwards
  ASSERT_OK(Write(40, 0, 2 * kB));           // conventional X, overwritten later
  ASSERT_OK(Write(42, 16 * kB, kB));         // conventional Z, overwritten twice later
  std::vector<char> y_old(kB);
  ASSERT_OK(dev_->Read(8 * kB, y_old.data(), kB));
  ASSERT_OK(dev_->Flush());
  EXPECT_EQ(dev_->unflushed_bytes(), 0u);

  // After the flush.
  uint64_t unflushed = 0;
  ASSERT_OK(Write(30, S(0) + 4 * kB, 3 * kB));  // A
  unflushed += 3 * kB;
  ASSERT_OK(Write(31, S(1), 2 * kB));           // B: nothing flushed
  unflushed += 2 * kB;
  ASSERT_OK(dev_->ResetZones(Z(3), 1));         // D
  ASSERT_OK(Write(35, S(3), 3 * kB));
  unflushed += 3 * kB;
  ASSERT_OK(dev_->FinishZones(Z(4), 1));        // E
  ASSERT_OK(Write(41, 0, 2 * kB));              // X
  unflushed += 2 * kB;
  ASSERT_OK(Write(43, 8 * kB, kB));             // Y: never flushed
  unflushed += kB;
  ASSERT_OK(Write(44, 16 * kB, kB));            // Z twice
  ASSERT_OK(Write(45, 16 * kB, kB));
  unflushed += 2 * kB;
  EXPECT_EQ(dev_->unflushed_bytes(), unflushed);

  ASSERT_OK(dev_->PowerCut(Mode::kLoseUnflushed));
  EXPECT_EQ(dev_->unflushed_bytes(), 0u);

  // A: rolled back to the flushed write pointer, closed.
  ZoneInfo a = Zone(Z(0));
  EXPECT_EQ(a.wp, S(0) + 4 * kB) << DescribeZone(a);
  EXPECT_EQ(a.cond, ZoneCondition::kClosed) << DescribeZone(a);
  EXPECT_TRUE(Matches(30, S(0), 4 * kB));
  EXPECT_TRUE(Zeros(S(0) + 4 * kB, 4 * kB));
  // B: empty again.
  ZoneInfo b = Zone(Z(1));
  EXPECT_EQ(b.wp, S(1)) << DescribeZone(b);
  EXPECT_EQ(b.cond, ZoneCondition::kEmpty) << DescribeZone(b);
  EXPECT_TRUE(Zeros(S(1), 2 * kB));
  // C: full, data intact.
  EXPECT_EQ(Zone(Z(2)).cond, ZoneCondition::kFull);
  EXPECT_TRUE(Matches(32, S(2), kMiB));
  // D: the reset is durable, the writes after it are lost.
  ZoneInfo d = Zone(Z(3));
  EXPECT_EQ(d.cond, ZoneCondition::kEmpty) << DescribeZone(d);
  EXPECT_EQ(d.wp, S(3));
  EXPECT_TRUE(Zeros(S(3), 3 * kB));
  // E: the finish is durable.
  ZoneInfo e = Zone(Z(4));
  EXPECT_EQ(e.cond, ZoneCondition::kFull) << DescribeZone(e);
  EXPECT_TRUE(Matches(34, S(4), 2 * kB));
  // F: was open without data -> empty.
  ZoneInfo f = Zone(Z(5));
  EXPECT_EQ(f.cond, ZoneCondition::kEmpty) << DescribeZone(f);
  // G: was open with data -> closed.
  ZoneInfo g = Zone(Z(6));
  EXPECT_EQ(g.cond, ZoneCondition::kClosed) << DescribeZone(g);
  EXPECT_EQ(g.wp, S(6) + 2 * kB);
  EXPECT_TRUE(Matches(36, S(6), 2 * kB));
  // H: implicitly open, fully flushed -> closed, data intact.
  ZoneInfo h = Zone(Z(7));
  EXPECT_EQ(h.cond, ZoneCondition::kClosed) << DescribeZone(h);
  EXPECT_EQ(h.wp, S(7) + 3 * kB);
  EXPECT_TRUE(Matches(37, S(7), 3 * kB));
  // Conventional overwrites since the flush are reverted.
  EXPECT_TRUE(Matches(40, 0, 2 * kB));
  std::vector<char> y(kB);
  ASSERT_OK(dev_->Read(8 * kB, y.data(), kB));
  EXPECT_TRUE(y == y_old) << "unflushed conventional write survived";
  EXPECT_TRUE(Matches(42, 16 * kB, kB));
  // No zone is open after a power cycle.
  std::vector<ZoneInfo> zones = Zones(dev_.get());
  for (const ZoneInfo& z : zones) EXPECT_FALSE(z.is_open()) << DescribeZone(z);
  // The base device agrees with the wrapper.
  std::vector<ZoneInfo> base_zones = Zones(dev_->base());
  ASSERT_EQ(base_zones.size(), zones.size());
  for (size_t i = 0; i < zones.size(); ++i) {
    EXPECT_TRUE(SameZone(zones[i], base_zones[i]))
        << i << ": " << DescribeZone(zones[i]) << " vs base " << DescribeZone(base_zones[i]);
  }

  // The wrapper stays usable.
  ASSERT_OK(Write(30, S(0) + 4 * kB, kB));
  EXPECT_EQ(dev_->unflushed_bytes(), kB);
  EXPECT_TRUE(Matches(30, S(0), 5 * kB));
  ASSERT_OK(dev_->Flush());
  EXPECT_EQ(dev_->unflushed_bytes(), 0u);
}

TEST_P(FaultInjectionDeviceTest, ZoneResetAfterFlushIsDurable) {
  ASSERT_OK(Write(50, S(0), 5 * kB));
  ASSERT_OK(dev_->Flush());
  ASSERT_OK(dev_->ResetZones(Z(0), 1));
  ASSERT_OK(dev_->PowerCut(Mode::kLoseUnflushed));
  ZoneInfo z = Zone(Z(0));
  EXPECT_EQ(z.cond, ZoneCondition::kEmpty) << DescribeZone(z);
  EXPECT_EQ(z.wp, S(0));
  EXPECT_TRUE(Zeros(S(0), 5 * kB));
}

TEST_P(FaultInjectionDeviceTest, PowerCutWithNothingUnflushedKeepsEverything) {
  ASSERT_OK(Write(51, S(0), 3 * kB));
  ASSERT_OK(Write(52, S(1), kMiB));
  ASSERT_OK(Write(53, 0, 4 * kB));
  ASSERT_OK(dev_->Flush());
  ASSERT_OK(dev_->PowerCut(Mode::kLoseUnflushed));
  EXPECT_EQ(Zone(Z(0)).wp, S(0) + 3 * kB);
  EXPECT_EQ(Zone(Z(0)).cond, ZoneCondition::kClosed);
  EXPECT_EQ(Zone(Z(1)).cond, ZoneCondition::kFull);
  EXPECT_TRUE(Matches(51, S(0), 3 * kB));
  EXPECT_TRUE(Matches(52, S(1), kMiB));
  EXPECT_TRUE(Matches(53, 0, 4 * kB));
}

TEST_P(FaultInjectionDeviceTest, TornPowerCutKeepsABlockAlignedPrefix) {
  constexpr uint32_t kZones = 8;
  constexpr uint64_t kFlushed = 2 * kB;
  constexpr uint64_t kUnflushed = 30 * kB;
  for (uint32_t i = 0; i < kZones; ++i) ASSERT_OK(Write(60 + i, S(i), kFlushed));
  ASSERT_OK(Write(70, 0, 4 * kB));
  ASSERT_OK(dev_->Flush());
  for (uint64_t off = kFlushed; off < kFlushed + kUnflushed; off += 3 * kB) {
    for (uint32_t i = 0; i < kZones; ++i) ASSERT_OK(Write(60 + i, S(i) + off, 3 * kB));
  }
  ASSERT_OK(Write(71, 0, 4 * kB));
  ASSERT_OK(dev_->PowerCut(Mode::kTornUnflushed, /*seed=*/12345));

  int at_flushed = 0;
  for (uint32_t i = 0; i < kZones; ++i) {
    ZoneInfo z = Zone(Z(i));
    SCOPED_TRACE("zone " + std::to_string(Z(i)) + " " + DescribeZone(z));
    EXPECT_EQ(z.wp % kB, 0u);
    EXPECT_GE(z.wp, S(i) + kFlushed);
    EXPECT_LE(z.wp, S(i) + kFlushed + kUnflushed);
    EXPECT_EQ(z.cond, ZoneCondition::kClosed);
    EXPECT_TRUE(Matches(60 + i, S(i), z.wp - S(i)));
    EXPECT_TRUE(Zeros(z.wp, S(i) + kFlushed + kUnflushed - z.wp + kB));
    if (z.wp == S(i) + kFlushed) ++at_flushed;
  }
  // With 8 zones of 30 unflushed blocks each, a random prefix cannot be empty everywhere
  // unless torn mode degenerated into kLoseUnflushed.
  EXPECT_LT(at_flushed, static_cast<int>(kZones));
  // Conventional blocks are each either the flushed or the later version.
  std::vector<char> got(4 * kB);
  ASSERT_OK(dev_->Read(0, got.data(), got.size()));
  for (int b = 0; b < 4; ++b) {
    const char* blk = got.data() + b * kB;
    EXPECT_TRUE(CheckPattern(70, b * kB, blk, kB) || CheckPattern(71, b * kB, blk, kB))
        << "conventional block " << b;
  }
  EXPECT_EQ(dev_->unflushed_bytes(), 0u);
}

TEST_P(FaultInjectionDeviceTest, TornPowerCutIsDeterministicForASeed) {
  std::unique_ptr<FaultInjectionDevice> other = MakeDevice("other.img");
  ASSERT_NE(other, nullptr);
  std::vector<uint64_t> wps[2];
  FaultInjectionDevice* devs[2] = {dev_.get(), other.get()};
  for (int d = 0; d < 2; ++d) {
    for (uint32_t i = 0; i < 4; ++i) ASSERT_OK(Write(devs[d], 80 + i, S(i), kB));
    ASSERT_OK(devs[d]->Flush());
    for (int k = 1; k < 20; ++k) {
      for (uint32_t i = 0; i < 4; ++i) ASSERT_OK(Write(devs[d], 80 + i, S(i) + k * kB, kB));
    }
    ASSERT_OK(devs[d]->PowerCut(Mode::kTornUnflushed, /*seed=*/777));
    for (uint32_t i = 0; i < 4; ++i) wps[d].push_back(Zone(devs[d], Z(i)).wp);
  }
  EXPECT_EQ(wps[0], wps[1]);
}

INSTANTIATE_TEST_SUITE_P(WriteModes, FaultInjectionDeviceTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return std::string(p.param ? "direct" : "buffered");
                         });

}  // namespace
}  // namespace smr
