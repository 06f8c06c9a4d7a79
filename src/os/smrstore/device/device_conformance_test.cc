// Device conformance suite: checks the rules of device/zoned_device.h on every backend of
// smr::testing::DeviceTestBackends(). Geometry is always read from info(); tests that need a
// limit or conventional zones the backend lacks are skipped.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/status.h"
#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "device/zoned_device.h"

namespace smr {
namespace testing {
// Keeps gtest from dumping the bytes of the parameter in failure messages.
[[maybe_unused]] static void PrintTo(const TestBackend& b, std::ostream* os) { *os << b.name; }
}  // namespace testing

namespace {

using smr::testing::CheckPattern;
using smr::testing::DescribeZone;
using smr::testing::DeviceTestBackends;
using smr::testing::FillPattern;
using smr::testing::ScratchDir;
using smr::testing::TestBackend;
using Code = Status::Code;

constexpr uint64_t kMiB = 1ull << 20;

// `expr` must fail with `code` and leave every zone as it was.
#define EXPECT_FAILS_UNCHANGED(expr, want)                               \
  do {                                                                   \
    std::vector<::smr::ZoneInfo> before_ = Zones();                      \
    EXPECT_CODE(expr, want);                                             \
    ExpectSameZones(before_, Zones(), #expr);                            \
  } while (0)

bool SameZone(const ZoneInfo& a, const ZoneInfo& b) {
  return a.start == b.start && a.length == b.length && a.capacity == b.capacity &&
         a.wp == b.wp && a.type == b.type && a.cond == b.cond;
}

void ExpectSameZones(const std::vector<ZoneInfo>& before, const std::vector<ZoneInfo>& after,
                     const char* what) {
  ASSERT_EQ(before.size(), after.size()) << what;
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_TRUE(SameZone(before[i], after[i]))
        << "zone " << i << " changed by failed " << what << ": " << DescribeZone(before[i])
        << " -> " << DescribeZone(after[i]);
  }
}

class DeviceConformanceTest : public ::testing::TestWithParam<TestBackend> {
 protected:
  void SetUp() override {
    auto made = GetParam().make(scratch_.path());
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    dev_ = std::move(made).value();
    ASSERT_NE(dev_, nullptr);
    info_ = dev_->info();
    lbs_ = info_.logical_block_size;
    first_seq_ = info_.nr_conventional;
    nr_seq_ = info_.nr_zones - info_.nr_conventional;
    ASSERT_GT(lbs_, 0u);
  }

  uint64_t Start(uint32_t zone) const { return uint64_t{zone} * info_.zone_size; }
  uint32_t Seq(uint32_t i) const { return first_seq_ + i; }

  std::vector<ZoneInfo> Zones() {
    auto r = dev_->ReportZones(0, 0);
    if (!r.ok()) {
      ADD_FAILURE() << "ReportZones: " << r.status().ToString();
      return {};
    }
    return std::move(r).value();
  }

  ZoneInfo Zone(uint32_t z) {
    auto r = dev_->ReportZones(z, 1);
    if (!r.ok() || r->size() != 1) {
      ADD_FAILURE() << "ReportZones(" << z << ", 1): "
                    << (r.ok() ? "wrong size" : r.status().ToString());
      return {};
    }
    return (*r)[0];
  }

  static uint32_t CountOpen(const std::vector<ZoneInfo>& zones) {
    return static_cast<uint32_t>(
        std::count_if(zones.begin(), zones.end(), [](const ZoneInfo& z) { return z.is_open(); }));
  }
  static uint32_t CountActive(const std::vector<ZoneInfo>& zones) {
    return static_cast<uint32_t>(std::count_if(
        zones.begin(), zones.end(), [](const ZoneInfo& z) { return z.is_active(); }));
  }

  Status WritePattern(uint64_t seed, uint64_t off, size_t len) {
    std::vector<char> buf(len);
    FillPattern(seed, off, buf.data(), len);
    return dev_->Write(off, buf.data(), len);
  }

  // Writes `len` bytes at `off` in chunks of at most 1 MiB.
  Status WritePatternChunked(uint64_t seed, uint64_t off, uint64_t len) {
    while (len > 0) {
      uint64_t n = std::min<uint64_t>(len, kMiB);
      Status s = WritePattern(seed, off, n);
      if (!s.ok()) return s;
      off += n;
      len -= n;
    }
    return Status::OK();
  }

  ::testing::AssertionResult ReadMatches(uint64_t seed, uint64_t off, size_t len) {
    std::vector<char> buf(len, '\x5a');
    Status s = dev_->Read(off, buf.data(), len);
    if (!s.ok()) return ::testing::AssertionFailure() << "Read: " << s.ToString();
    if (!CheckPattern(seed, off, buf.data(), len)) {
      std::vector<char> want(len);
      FillPattern(seed, off, want.data(), len);
      size_t i = 0;
      while (i < len && buf[i] == want[i]) ++i;
      return ::testing::AssertionFailure()
             << "data mismatch at device offset " << off + i << " (read " << len << " at "
             << off << ", seed " << seed << ")";
    }
    return ::testing::AssertionSuccess();
  }

  ::testing::AssertionResult ReadZeros(uint64_t off, size_t len) {
    std::vector<char> buf(len, '\x5a');
    Status s = dev_->Read(off, buf.data(), len);
    if (!s.ok()) return ::testing::AssertionFailure() << "Read: " << s.ToString();
    for (size_t i = 0; i < len; ++i) {
      if (buf[i] != 0) {
        return ::testing::AssertionFailure()
               << "non-zero byte at device offset " << off + i << " (read " << len << " at "
               << off << ")";
      }
    }
    return ::testing::AssertionSuccess();
  }

  ScratchDir scratch_;
  std::unique_ptr<ZonedDevice> dev_;
  DeviceInfo info_;
  uint32_t lbs_ = 0;
  uint32_t first_seq_ = 0;
  uint32_t nr_seq_ = 0;
};

#define REQUIRE_SEQ_ZONES(n)                                                        \
  do {                                                                              \
    if (nr_seq_ < (n)) GTEST_SKIP() << "needs " << (n) << " sequential zones";      \
  } while (0)
#define REQUIRE_CONVENTIONAL()                                                      \
  do {                                                                              \
    if (info_.nr_conventional == 0) GTEST_SKIP() << "no conventional zones";        \
  } while (0)

// ---------------------------------------------------------------------------------------
// Geometry and reports

TEST_P(DeviceConformanceTest, InfoIsSane) {
  EXPECT_GT(info_.nr_zones, 0u);
  EXPECT_GT(info_.zone_size, 0u);
  EXPECT_TRUE(lbs_ == 512 || lbs_ == 4096) << lbs_;
  EXPECT_EQ(info_.zone_size % lbs_, 0u);
  EXPECT_GT(info_.zone_capacity, 0u);
  EXPECT_LE(info_.zone_capacity, info_.zone_size);
  EXPECT_EQ(info_.zone_capacity % lbs_, 0u);
  EXPECT_LT(info_.nr_conventional, info_.nr_zones);
  EXPECT_GE(info_.physical_block_size, lbs_);
  EXPECT_EQ(info_.capacity_bytes(), uint64_t{info_.nr_zones} * info_.zone_size);
  EXPECT_EQ(dev_->ZoneStart(1), info_.zone_size);
  EXPECT_EQ(dev_->ZoneIndexOf(info_.zone_size - 1), 0u);
  EXPECT_EQ(dev_->ZoneIndexOf(info_.zone_size), 1u);
  EXPECT_EQ(dev_->ZoneIndexOf(info_.capacity_bytes() - 1), info_.nr_zones - 1);
}

TEST_P(DeviceConformanceTest, FreshDeviceReportsConventionalThenEmptySequentialZones) {
  std::vector<ZoneInfo> zones = Zones();
  ASSERT_EQ(zones.size(), info_.nr_zones);
  for (uint32_t i = 0; i < info_.nr_zones; ++i) {
    const ZoneInfo& z = zones[i];
    SCOPED_TRACE("zone " + std::to_string(i) + " " + DescribeZone(z));
    EXPECT_EQ(z.start, Start(i));
    EXPECT_EQ(z.length, info_.zone_size);
    EXPECT_LE(z.capacity, z.length);
    if (i < info_.nr_conventional) {
      EXPECT_TRUE(z.is_conventional());
      EXPECT_EQ(z.type, ZoneType::kConventional);
      EXPECT_EQ(z.cond, ZoneCondition::kNotWritePointer);
      EXPECT_FALSE(z.is_open());
      EXPECT_FALSE(z.is_active());
      EXPECT_EQ(z.remaining(), 0u);
    } else {
      EXPECT_FALSE(z.is_conventional());
      EXPECT_EQ(z.type, ZoneType::kSequentialRequired);
      EXPECT_EQ(z.cond, ZoneCondition::kEmpty);
      EXPECT_EQ(z.wp, z.start);
      EXPECT_EQ(z.capacity, info_.zone_capacity);
      EXPECT_EQ(z.remaining(), z.capacity);
      EXPECT_FALSE(z.is_active());
    }
  }
}

TEST_P(DeviceConformanceTest, ReportZonesRangeIsClippedAndChecked) {
  const uint32_t n = info_.nr_zones;
  auto all = dev_->ReportZones(0, 0);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->size(), n);

  auto last = dev_->ReportZones(n - 1, 0);
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  ASSERT_EQ(last->size(), 1u);
  EXPECT_EQ((*last)[0].start, Start(n - 1));

  auto clipped = dev_->ReportZones(n - 1, 10);
  ASSERT_TRUE(clipped.ok()) << clipped.status().ToString();
  ASSERT_EQ(clipped->size(), 1u);
  EXPECT_EQ((*clipped)[0].start, Start(n - 1));

  if (n >= 3) {
    auto mid = dev_->ReportZones(1, 2);
    ASSERT_TRUE(mid.ok()) << mid.status().ToString();
    ASSERT_EQ(mid->size(), 2u);
    EXPECT_EQ((*mid)[0].start, Start(1));
    EXPECT_EQ((*mid)[1].start, Start(2));
  }

  EXPECT_CODE(dev_->ReportZones(n, 1).status(), kInvalidArgument);
  EXPECT_CODE(dev_->ReportZones(n, 0).status(), kInvalidArgument);
  EXPECT_CODE(dev_->ReportZones(n + 100, 1).status(), kInvalidArgument);
}

// ---------------------------------------------------------------------------------------
// Sequential writes

TEST_P(DeviceConformanceTest, SequentialWritesAdvanceWritePointerAndImplicitlyOpen) {
  REQUIRE_SEQ_ZONES(1);
  const uint32_t z = Seq(0);
  const uint64_t s = Start(z);
  ASSERT_OK(WritePattern(1, s, lbs_));
  ZoneInfo zi = Zone(z);
  EXPECT_EQ(zi.wp, s + lbs_);
  EXPECT_EQ(zi.cond, ZoneCondition::kImplicitOpen) << DescribeZone(zi);
  EXPECT_TRUE(zi.is_open());
  EXPECT_TRUE(zi.is_active());
  EXPECT_EQ(zi.remaining(), zi.capacity - lbs_);

  ASSERT_OK(WritePattern(1, s + lbs_, 3 * lbs_));
  zi = Zone(z);
  EXPECT_EQ(zi.wp, s + 4 * lbs_);
  EXPECT_EQ(zi.cond, ZoneCondition::kImplicitOpen) << DescribeZone(zi);

  const uint64_t more = std::min<uint64_t>(8 * lbs_, info_.zone_capacity - 4 * lbs_);
  if (more > 0 && more < info_.zone_capacity - 4 * lbs_) {
    ASSERT_OK(WritePattern(1, s + 4 * lbs_, more));
    EXPECT_EQ(Zone(z).wp, s + 4 * lbs_ + more);
  }
  EXPECT_TRUE(ReadMatches(1, s, Zone(z).wp - s));
  // Other zones are untouched.
  std::vector<ZoneInfo> zones = Zones();
  for (uint32_t i = first_seq_; i < info_.nr_zones; ++i) {
    if (i == z) continue;
    EXPECT_EQ(zones[i].cond, ZoneCondition::kEmpty) << i;
    EXPECT_EQ(zones[i].wp, zones[i].start) << i;
  }
}

TEST_P(DeviceConformanceTest, WriteNotAtWritePointerIsIOErrorAndChangesNothing) {
  REQUIRE_SEQ_ZONES(2);
  const uint32_t z = Seq(0);
  const uint64_t s = Start(z);
  std::vector<char> buf(2 * lbs_);
  FillPattern(9, s, buf.data(), buf.size());

  // Ahead of the write pointer of an empty zone.
  EXPECT_FAILS_UNCHANGED(dev_->Write(s + lbs_, buf.data(), lbs_), kIOError);
  EXPECT_TRUE(ReadZeros(s, 2 * lbs_));

  ASSERT_OK(WritePattern(1, s, 2 * lbs_));
  // Behind the write pointer (rewrite of written data).
  EXPECT_FAILS_UNCHANGED(dev_->Write(s, buf.data(), lbs_), kIOError);
  EXPECT_FAILS_UNCHANGED(dev_->Write(s + lbs_, buf.data(), 2 * lbs_), kIOError);
  // Ahead of the write pointer of a written zone.
  EXPECT_FAILS_UNCHANGED(dev_->Write(s + 3 * lbs_, buf.data(), lbs_), kIOError);
  EXPECT_TRUE(ReadMatches(1, s, 2 * lbs_));
  EXPECT_TRUE(ReadZeros(s + 2 * lbs_, 2 * lbs_));

  // In the middle of another, empty zone.
  EXPECT_FAILS_UNCHANGED(dev_->Write(Start(Seq(1)) + 4 * lbs_, buf.data(), lbs_), kIOError);

  // Into a finished zone.
  ASSERT_OK(dev_->FinishZones(Seq(1), 1));
  EXPECT_FAILS_UNCHANGED(dev_->Write(Start(Seq(1)), buf.data(), lbs_), kIOError);
}

TEST_P(DeviceConformanceTest, MisalignedOrEmptyIoIsInvalidArgument) {
  REQUIRE_SEQ_ZONES(1);
  const uint64_t s = Start(Seq(0));
  ASSERT_OK(WritePattern(3, s, lbs_));
  const uint64_t wp = s + lbs_;
  const uint32_t half = lbs_ / 2;
  std::vector<char> buf(4 * lbs_, 'x');

  EXPECT_FAILS_UNCHANGED(dev_->Write(wp + half, buf.data(), lbs_), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->Write(wp + 1, buf.data(), lbs_), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->Write(wp, buf.data(), half), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->Write(wp, buf.data(), lbs_ + half), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->Write(wp, buf.data(), 1), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->Write(wp, buf.data(), 0), kInvalidArgument);
  EXPECT_TRUE(ReadMatches(3, s, lbs_));
  EXPECT_TRUE(ReadZeros(wp, 2 * lbs_));

  EXPECT_FAILS_UNCHANGED(dev_->Read(s + half, buf.data(), lbs_), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->Read(s, buf.data(), half), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->Read(s, buf.data(), 2 * lbs_ - 1), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->Read(s, buf.data(), 0), kInvalidArgument);

  if (info_.nr_conventional > 0) {
    ASSERT_OK(WritePattern(4, 0, 2 * lbs_));
    EXPECT_FAILS_UNCHANGED(dev_->Write(half, buf.data(), lbs_), kInvalidArgument);
    EXPECT_FAILS_UNCHANGED(dev_->Write(0, buf.data(), half), kInvalidArgument);
    EXPECT_FAILS_UNCHANGED(dev_->Write(lbs_, buf.data(), 0), kInvalidArgument);
    EXPECT_TRUE(ReadMatches(4, 0, 2 * lbs_));
  }
}

TEST_P(DeviceConformanceTest, IoBeyondDeviceEndIsInvalidArgument) {
  const uint64_t end = info_.capacity_bytes();
  std::vector<char> buf(2 * lbs_, 'y');
  EXPECT_FAILS_UNCHANGED(dev_->Write(end, buf.data(), lbs_), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->Write(end - lbs_, buf.data(), 2 * lbs_), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->Write(end + 64 * uint64_t{lbs_}, buf.data(), lbs_),
                         kInvalidArgument);
  // offset + len wraps around 2^64.
  const uint64_t wrap = ~uint64_t{0} - lbs_ + 1;
  EXPECT_FAILS_UNCHANGED(dev_->Write(wrap, buf.data(), lbs_), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->Read(wrap, buf.data(), lbs_), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->Read(end, buf.data(), lbs_), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->Read(end - lbs_, buf.data(), 2 * lbs_), kInvalidArgument);
  // The last block itself is readable (the last zone is sequential and empty: zeros).
  EXPECT_TRUE(ReadZeros(end - lbs_, lbs_));
}

TEST_P(DeviceConformanceTest, WritePastCapacityFailsAndChangesNothing) {
  REQUIRE_SEQ_ZONES(2);
  const uint32_t z = Seq(0);
  const uint64_t s = Start(z);
  const uint64_t cap = info_.zone_capacity;
  ASSERT_OK(WritePatternChunked(5, s, cap - lbs_));
  ASSERT_EQ(Zone(z).wp, s + cap - lbs_);
  ASSERT_EQ(Zone(z).remaining(), lbs_);

  std::vector<char> buf(2 * lbs_);
  FillPattern(5, s + cap - lbs_, buf.data(), buf.size());
  std::vector<ZoneInfo> before = Zones();
  Status st = dev_->Write(s + cap - lbs_, buf.data(), 2 * lbs_);
  if (cap + lbs_ <= info_.zone_size) {
    // Fits in the zone, not in its capacity.
    EXPECT_TRUE(st.IsNoSpace()) << st.ToString();
  } else {
    // Also crosses the zone end: either rule may report it.
    EXPECT_TRUE(st.IsIOError() || st.IsNoSpace()) << st.ToString();
  }
  ExpectSameZones(before, Zones(), "write past capacity");
  EXPECT_TRUE(ReadZeros(Start(Seq(1)), lbs_));
  EXPECT_TRUE(ReadMatches(5, s, cap - lbs_));

  if (cap < info_.zone_size) {
    // A larger write that still ends inside the zone.
    const uint64_t len = info_.zone_size - (cap - lbs_);
    std::vector<char> big(len, 'z');
    EXPECT_FAILS_UNCHANGED(dev_->Write(s + cap - lbs_, big.data(), len), kNoSpace);
  }

  // Exactly the remaining capacity works and fills the zone.
  ASSERT_OK(dev_->Write(s + cap - lbs_, buf.data(), lbs_));
  ZoneInfo zi = Zone(z);
  EXPECT_EQ(zi.cond, ZoneCondition::kFull) << DescribeZone(zi);
  EXPECT_EQ(zi.wp, s + info_.zone_size);
  EXPECT_TRUE(ReadMatches(5, s, cap));
}

TEST_P(DeviceConformanceTest, WriteReachingCapacityMakesZoneFull) {
  REQUIRE_SEQ_ZONES(3);
  const uint64_t cap = info_.zone_capacity;
  std::vector<char> buf(lbs_, 'q');

  // One write of the whole capacity.
  {
    const uint32_t z = Seq(0);
    const uint64_t s = Start(z);
    if (cap <= 16 * kMiB) {
      ASSERT_OK(WritePattern(11, s, cap));
    } else {
      ASSERT_OK(WritePatternChunked(11, s, cap));
    }
    ZoneInfo zi = Zone(z);
    EXPECT_EQ(zi.cond, ZoneCondition::kFull) << DescribeZone(zi);
    EXPECT_EQ(zi.wp, s + info_.zone_size) << DescribeZone(zi);
    EXPECT_EQ(zi.remaining(), 0u);
    EXPECT_FALSE(zi.is_open());
    EXPECT_FALSE(zi.is_active());
    EXPECT_TRUE(ReadMatches(11, s, std::min<uint64_t>(cap, 16 * kMiB)));
    EXPECT_FAILS_UNCHANGED(dev_->Write(s, buf.data(), lbs_), kIOError);
    if (cap < info_.zone_size) {
      std::vector<ZoneInfo> before = Zones();
      Status st = dev_->Write(s + cap, buf.data(), lbs_);
      EXPECT_FALSE(st.ok()) << "write beyond capacity of a full zone succeeded";
      ExpectSameZones(before, Zones(), "write beyond capacity of a full zone");
    }
  }
  // Many small writes.
  {
    const uint32_t z = Seq(1);
    const uint64_t s = Start(z);
    const uint64_t chunk = std::max<uint64_t>(lbs_, (cap / 8) / lbs_ * lbs_);
    uint64_t off = 0;
    while (off < cap) {
      const uint64_t n = std::min(chunk, cap - off);
      ASSERT_OK(WritePatternChunked(12, s + off, n));
      off += n;
      ZoneInfo zi = Zone(z);
      if (off < cap) {
        EXPECT_EQ(zi.wp, s + off);
        EXPECT_EQ(zi.cond, ZoneCondition::kImplicitOpen) << DescribeZone(zi);
      } else {
        EXPECT_EQ(zi.wp, s + info_.zone_size);
        EXPECT_EQ(zi.cond, ZoneCondition::kFull) << DescribeZone(zi);
      }
    }
  }
  // An explicitly opened zone filled to capacity is full, no longer open.
  {
    const uint32_t z = Seq(2);
    ASSERT_OK(dev_->OpenZones(z, 1));
    ASSERT_OK(WritePatternChunked(13, Start(z), cap));
    ZoneInfo zi = Zone(z);
    EXPECT_EQ(zi.cond, ZoneCondition::kFull) << DescribeZone(zi);
    EXPECT_EQ(zi.wp, Start(z) + info_.zone_size);
  }
  EXPECT_EQ(CountOpen(Zones()), 0u);
}

TEST_P(DeviceConformanceTest, WriteCrossingIntoNextZoneFails) {
  REQUIRE_SEQ_ZONES(2);
  const uint32_t a = Seq(0);
  const uint32_t b = Seq(1);
  const uint64_t sa = Start(a);
  const uint64_t sb = Start(b);
  const uint64_t cap = info_.zone_capacity;
  const uint64_t pre = cap - lbs_;
  ASSERT_OK(WritePatternChunked(21, sa, pre));
  // From the write pointer of `a` to one block into `b`.
  const uint64_t len = (sa + info_.zone_size - (sa + pre)) + lbs_;
  std::vector<char> buf(len);
  FillPattern(21, sa + pre, buf.data(), len);
  std::vector<ZoneInfo> before = Zones();
  Status st = dev_->Write(sa + pre, buf.data(), len);
  EXPECT_TRUE(st.IsIOError() || st.IsNoSpace()) << st.ToString();
  ExpectSameZones(before, Zones(), "write crossing into the next zone");
  EXPECT_TRUE(ReadZeros(sb, 2 * lbs_));
  EXPECT_TRUE(ReadMatches(21, sa, pre));

  // A whole-zone-plus-one-block write from the start of an empty zone.
  if (info_.zone_size <= 64 * kMiB && nr_seq_ >= 3) {
    const uint64_t sc = Start(Seq(1));
    std::vector<char> big(info_.zone_size + lbs_, 'w');
    before = Zones();
    st = dev_->Write(sc, big.data(), big.size());
    EXPECT_TRUE(st.IsIOError() || st.IsNoSpace()) << st.ToString();
    ExpectSameZones(before, Zones(), "zone-plus-one-block write");
    EXPECT_TRUE(ReadZeros(Start(Seq(2)), lbs_));
  }
}

// ---------------------------------------------------------------------------------------
// Reads

TEST_P(DeviceConformanceTest, ReadsBackWrittenData) {
  REQUIRE_SEQ_ZONES(2);
  std::mt19937_64 rng(42);
  const uint32_t za = Seq(0);
  const uint32_t zb = Seq(1);
  uint64_t wa = 0;
  uint64_t wb = 0;
  const uint64_t limit = std::min<uint64_t>(info_.zone_capacity - lbs_, 2 * kMiB);
  for (int i = 0; i < 40; ++i) {
    const uint64_t n = (1 + rng() % 16) * uint64_t{lbs_};
    if (i % 2 == 0) {
      if (wa + n > limit) continue;
      ASSERT_OK(WritePattern(31, Start(za) + wa, n));
      wa += n;
    } else {
      if (wb + n > limit) continue;
      ASSERT_OK(WritePattern(32, Start(zb) + wb, n));
      wb += n;
    }
  }
  EXPECT_EQ(Zone(za).wp, Start(za) + wa);
  EXPECT_EQ(Zone(zb).wp, Start(zb) + wb);
  EXPECT_TRUE(ReadMatches(31, Start(za), wa));
  EXPECT_TRUE(ReadMatches(32, Start(zb), wb));
  // Random sub-ranges.
  for (int i = 0; i < 50; ++i) {
    const uint64_t blocks = wa / lbs_;
    const uint64_t first = rng() % blocks;
    const uint64_t count = 1 + rng() % (blocks - first);
    EXPECT_TRUE(ReadMatches(31, Start(za) + first * lbs_, count * lbs_));
  }
  // An unaligned buffer works too.
  std::vector<char> raw(wb + 1);
  ASSERT_OK(dev_->Read(Start(zb), raw.data() + 1, wb));
  EXPECT_TRUE(CheckPattern(32, Start(zb), raw.data() + 1, wb));
}

TEST_P(DeviceConformanceTest, ReadsPastWritePointerReturnZeros) {
  REQUIRE_SEQ_ZONES(2);
  const uint64_t cap = info_.zone_capacity;
  // Empty zone.
  const uint64_t sa = Start(Seq(0));
  EXPECT_TRUE(ReadZeros(sa, std::min<uint64_t>(cap, kMiB)));
  EXPECT_TRUE(ReadZeros(sa + cap - lbs_, lbs_));
  // Partially written zone.
  const uint64_t sb = Start(Seq(1));
  ASSERT_OK(WritePattern(41, sb, 3 * lbs_));
  std::vector<char> buf(8 * lbs_, '\x77');
  ASSERT_OK(dev_->Read(sb, buf.data(), buf.size()));
  EXPECT_TRUE(CheckPattern(41, sb, buf.data(), 3 * lbs_));
  for (size_t i = 3 * lbs_; i < buf.size(); ++i) {
    ASSERT_EQ(buf[i], 0) << "byte " << i << " past the write pointer is not zero";
  }
  EXPECT_TRUE(ReadZeros(sb + cap - lbs_, lbs_));
  // After a reset the old data is past the write pointer.
  ASSERT_OK(dev_->ResetZones(Seq(1), 1));
  EXPECT_TRUE(ReadZeros(sb, 8 * lbs_));
}

TEST_P(DeviceConformanceTest, ReadsMayCrossZoneBoundaries) {
  REQUIRE_SEQ_ZONES(2);
  const uint32_t a = Seq(0);
  const uint32_t b = Seq(1);
  const uint64_t cap = info_.zone_capacity;
  ASSERT_OK(WritePatternChunked(51, Start(a), cap));
  ASSERT_OK(WritePattern(52, Start(b), 2 * lbs_));

  const uint64_t from = Start(a) + cap - 2 * lbs_;
  const uint64_t to = Start(b) + 4 * lbs_;
  std::vector<char> buf(to - from, '\x33');
  ASSERT_OK(dev_->Read(from, buf.data(), buf.size()));
  EXPECT_TRUE(CheckPattern(51, from, buf.data(), 2 * lbs_));
  const size_t b_off = Start(b) - from;
  EXPECT_TRUE(CheckPattern(52, Start(b), buf.data() + b_off, 2 * lbs_));
  for (size_t i = b_off + 2 * lbs_; i < buf.size(); ++i) {
    ASSERT_EQ(buf[i], 0) << "byte at device offset " << from + i;
  }

  if (info_.nr_conventional > 0) {
    // Conventional -> sequential boundary.
    const uint64_t boundary = Start(first_seq_);
    ASSERT_OK(WritePattern(53, boundary - lbs_, lbs_));
    std::vector<char> x(2 * lbs_, '\x44');
    ASSERT_OK(dev_->Read(boundary - lbs_, x.data(), x.size()));
    EXPECT_TRUE(CheckPattern(53, boundary - lbs_, x.data(), lbs_));
    EXPECT_TRUE(CheckPattern(51, boundary, x.data() + lbs_, lbs_));
  }

  if (info_.capacity_bytes() <= 64 * kMiB) {
    std::vector<char> all(info_.capacity_bytes());
    EXPECT_OK(dev_->Read(0, all.data(), all.size()));
    EXPECT_TRUE(CheckPattern(51, Start(a), all.data() + Start(a), cap));
    EXPECT_TRUE(CheckPattern(52, Start(b), all.data() + Start(b), 2 * lbs_));
  }
}

// ---------------------------------------------------------------------------------------
// Conventional zones

TEST_P(DeviceConformanceTest, ConventionalZonesAcceptRandomOverwrites) {
  REQUIRE_CONVENTIONAL();
  const uint64_t region = std::min<uint64_t>(uint64_t{info_.nr_conventional} * info_.zone_size,
                                             4 * kMiB);
  std::vector<char> model(region);
  ASSERT_OK(dev_->Read(0, model.data(), region));
  std::vector<ZoneInfo> before = Zones();

  std::mt19937_64 rng(7);
  const uint64_t blocks = region / lbs_;
  for (int i = 0; i < 200; ++i) {
    const uint64_t first = rng() % blocks;
    const uint64_t count = 1 + rng() % std::min<uint64_t>(8, blocks - first);
    const uint64_t off = first * lbs_;
    const uint64_t len = count * lbs_;
    std::vector<char> buf(len);
    FillPattern(1000 + i, off, buf.data(), len);
    ASSERT_OK(dev_->Write(off, buf.data(), len));
    std::memcpy(model.data() + off, buf.data(), len);
  }
  // A write spanning two adjacent conventional zones.
  if (info_.nr_conventional >= 2 && info_.zone_size + 2 * lbs_ <= region) {
    const uint64_t off = info_.zone_size - 2 * lbs_;
    std::vector<char> buf(4 * lbs_);
    FillPattern(999, off, buf.data(), buf.size());
    ASSERT_OK(dev_->Write(off, buf.data(), buf.size()));
    std::memcpy(model.data() + off, buf.data(), buf.size());
  }
  std::vector<char> got(region);
  ASSERT_OK(dev_->Read(0, got.data(), region));
  size_t mismatch = 0;
  while (mismatch < region && got[mismatch] == model[mismatch]) ++mismatch;
  EXPECT_EQ(mismatch, region) << "conventional data differs at offset " << mismatch;
  // Conventional zones have no state to change.
  ExpectSameZones(before, Zones(), "conventional writes");
}

TEST_P(DeviceConformanceTest, ZoneOperationsOnConventionalZonesAreInvalidArgument) {
  REQUIRE_CONVENTIONAL();
  const uint32_t last_conv = info_.nr_conventional - 1;
  EXPECT_FAILS_UNCHANGED(dev_->OpenZones(0, 1), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->CloseZones(0, 1), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->FinishZones(0, 1), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->ResetZones(0, 1), kInvalidArgument);
  EXPECT_FAILS_UNCHANGED(dev_->ResetZones(last_conv, 1), kInvalidArgument);
  if (nr_seq_ >= 1) {
    // A range starting in a conventional zone and ending in a sequential one: nothing
    // changes, not even in the sequential zone.
    ASSERT_OK(WritePattern(61, Start(first_seq_), 2 * lbs_));
    EXPECT_FAILS_UNCHANGED(dev_->ResetZones(last_conv, 2), kInvalidArgument);
    EXPECT_FAILS_UNCHANGED(dev_->FinishZones(last_conv, 2), kInvalidArgument);
    EXPECT_FAILS_UNCHANGED(dev_->OpenZones(last_conv, 2), kInvalidArgument);
    EXPECT_FAILS_UNCHANGED(dev_->CloseZones(last_conv, 2), kInvalidArgument);
    EXPECT_TRUE(ReadMatches(61, Start(first_seq_), 2 * lbs_));
  }
}

TEST_P(DeviceConformanceTest, ZoneOperationRangesAreChecked) {
  REQUIRE_SEQ_ZONES(2);
  const uint32_t n = info_.nr_zones;
  ASSERT_OK(WritePattern(62, Start(Seq(0)), lbs_));
  using Op = Status (ZonedDevice::*)(uint32_t, uint32_t);
  const std::pair<const char*, Op> ops[] = {{"Open", &ZonedDevice::OpenZones},
                                            {"Close", &ZonedDevice::CloseZones},
                                            {"Finish", &ZonedDevice::FinishZones},
                                            {"Reset", &ZonedDevice::ResetZones}};
  for (const auto& [name, op] : ops) {
    SCOPED_TRACE(name);
    ZonedDevice* d = dev_.get();
    EXPECT_FAILS_UNCHANGED((d->*op)(n, 1), kInvalidArgument);
    EXPECT_FAILS_UNCHANGED((d->*op)(n + 7, 1), kInvalidArgument);
    EXPECT_FAILS_UNCHANGED((d->*op)(Seq(0), 0), kInvalidArgument);
    EXPECT_FAILS_UNCHANGED((d->*op)(n - 1, 2), kInvalidArgument);
    EXPECT_FAILS_UNCHANGED((d->*op)(first_seq_, nr_seq_ + 1), kInvalidArgument);
  }
}

// ---------------------------------------------------------------------------------------
// Zone operations

TEST_P(DeviceConformanceTest, OpenAndCloseTransitions) {
  REQUIRE_SEQ_ZONES(4);
  const uint32_t z0 = Seq(0);
  const uint64_t s0 = Start(z0);

  ASSERT_OK(dev_->OpenZones(z0, 1));
  ZoneInfo zi = Zone(z0);
  EXPECT_EQ(zi.cond, ZoneCondition::kExplicitOpen) << DescribeZone(zi);
  EXPECT_EQ(zi.wp, s0);
  EXPECT_TRUE(zi.is_open());
  ASSERT_OK(dev_->CloseZones(z0, 1));
  zi = Zone(z0);
  EXPECT_EQ(zi.cond, ZoneCondition::kEmpty) << "close of an unwritten open zone";
  EXPECT_EQ(zi.wp, s0);

  ASSERT_OK(dev_->OpenZones(z0, 1));
  ASSERT_OK(WritePattern(71, s0, 2 * lbs_));
  zi = Zone(z0);
  EXPECT_EQ(zi.cond, ZoneCondition::kExplicitOpen) << "write keeps an explicit open";
  EXPECT_EQ(zi.wp, s0 + 2 * lbs_);
  ASSERT_OK(dev_->CloseZones(z0, 1));
  zi = Zone(z0);
  EXPECT_EQ(zi.cond, ZoneCondition::kClosed) << DescribeZone(zi);
  EXPECT_EQ(zi.wp, s0 + 2 * lbs_);
  EXPECT_TRUE(zi.is_active());
  EXPECT_FALSE(zi.is_open());
  EXPECT_TRUE(ReadMatches(71, s0, 2 * lbs_));

  // A write to a closed zone opens it implicitly.
  ASSERT_OK(WritePattern(71, s0 + 2 * lbs_, lbs_));
  zi = Zone(z0);
  EXPECT_EQ(zi.cond, ZoneCondition::kImplicitOpen) << DescribeZone(zi);
  EXPECT_EQ(zi.wp, s0 + 3 * lbs_);
  // Close of an implicitly open zone with data.
  ASSERT_OK(dev_->CloseZones(z0, 1));
  EXPECT_EQ(Zone(z0).cond, ZoneCondition::kClosed);
  // Explicit open of a closed zone keeps its write pointer.
  ASSERT_OK(dev_->OpenZones(z0, 1));
  zi = Zone(z0);
  EXPECT_EQ(zi.cond, ZoneCondition::kExplicitOpen) << DescribeZone(zi);
  EXPECT_EQ(zi.wp, s0 + 3 * lbs_);
  ASSERT_OK(dev_->CloseZones(z0, 1));

  // Explicit open of an implicitly open zone.
  const uint32_t z1 = Seq(1);
  ASSERT_OK(WritePattern(72, Start(z1), lbs_));
  ASSERT_EQ(Zone(z1).cond, ZoneCondition::kImplicitOpen);
  ASSERT_OK(dev_->OpenZones(z1, 1));
  EXPECT_EQ(Zone(z1).cond, ZoneCondition::kExplicitOpen);
  EXPECT_EQ(Zone(z1).wp, Start(z1) + lbs_);
  ASSERT_OK(dev_->CloseZones(z1, 1));
  EXPECT_EQ(Zone(z1).cond, ZoneCondition::kClosed);

  // Ranges.
  if (info_.max_open_zones == 0 || info_.max_open_zones >= 2) {
    ASSERT_OK(dev_->OpenZones(Seq(2), 2));
    EXPECT_EQ(Zone(Seq(2)).cond, ZoneCondition::kExplicitOpen);
    EXPECT_EQ(Zone(Seq(3)).cond, ZoneCondition::kExplicitOpen);
    ASSERT_OK(dev_->CloseZones(Seq(2), 2));
    EXPECT_EQ(Zone(Seq(2)).cond, ZoneCondition::kEmpty);
    EXPECT_EQ(Zone(Seq(3)).cond, ZoneCondition::kEmpty);
  }
  EXPECT_EQ(CountOpen(Zones()), 0u);
}

TEST_P(DeviceConformanceTest, FinishTransitions) {
  REQUIRE_SEQ_ZONES(6);
  // Empty -> full.
  const uint32_t z0 = Seq(0);
  ASSERT_OK(dev_->FinishZones(z0, 1));
  ZoneInfo zi = Zone(z0);
  EXPECT_EQ(zi.cond, ZoneCondition::kFull) << DescribeZone(zi);
  EXPECT_EQ(zi.wp, Start(z0) + info_.zone_size);
  EXPECT_EQ(zi.remaining(), 0u);
  std::vector<char> buf(lbs_, 'f');
  EXPECT_FAILS_UNCHANGED(dev_->Write(Start(z0), buf.data(), lbs_), kIOError);
  // Idempotent.
  std::vector<ZoneInfo> before = Zones();
  EXPECT_OK(dev_->FinishZones(z0, 1));
  ExpectSameZones(before, Zones(), "finish of a full zone");

  // Implicitly open with data -> full, data kept.
  const uint32_t z1 = Seq(1);
  ASSERT_OK(WritePattern(81, Start(z1), 3 * lbs_));
  ASSERT_OK(dev_->FinishZones(z1, 1));
  zi = Zone(z1);
  EXPECT_EQ(zi.cond, ZoneCondition::kFull) << DescribeZone(zi);
  EXPECT_EQ(zi.wp, Start(z1) + info_.zone_size);
  EXPECT_TRUE(ReadMatches(81, Start(z1), 3 * lbs_));

  // Explicitly open -> full.
  const uint32_t z2 = Seq(2);
  ASSERT_OK(dev_->OpenZones(z2, 1));
  ASSERT_OK(dev_->FinishZones(z2, 1));
  EXPECT_EQ(Zone(z2).cond, ZoneCondition::kFull);

  // Closed -> full.
  const uint32_t z3 = Seq(3);
  ASSERT_OK(WritePattern(83, Start(z3), lbs_));
  ASSERT_OK(dev_->CloseZones(z3, 1));
  ASSERT_OK(dev_->FinishZones(z3, 1));
  EXPECT_EQ(Zone(z3).cond, ZoneCondition::kFull);
  EXPECT_TRUE(ReadMatches(83, Start(z3), lbs_));

  // A range.
  ASSERT_OK(WritePattern(84, Start(Seq(4)), lbs_));
  ASSERT_OK(dev_->FinishZones(Seq(4), 2));
  EXPECT_EQ(Zone(Seq(4)).cond, ZoneCondition::kFull);
  EXPECT_EQ(Zone(Seq(5)).cond, ZoneCondition::kFull);
  EXPECT_EQ(Zone(Seq(5)).wp, Start(Seq(5)) + info_.zone_size);

  std::vector<ZoneInfo> zones = Zones();
  EXPECT_EQ(CountOpen(zones), 0u);
  EXPECT_EQ(CountActive(zones), 0u);
}

TEST_P(DeviceConformanceTest, ResetTransitions) {
  REQUIRE_SEQ_ZONES(4);
  const uint64_t cap = info_.zone_capacity;
  // Full -> empty, then rewritable from the start.
  const uint32_t z0 = Seq(0);
  ASSERT_OK(WritePatternChunked(91, Start(z0), cap));
  ASSERT_EQ(Zone(z0).cond, ZoneCondition::kFull);
  ASSERT_OK(dev_->ResetZones(z0, 1));
  ZoneInfo zi = Zone(z0);
  EXPECT_EQ(zi.cond, ZoneCondition::kEmpty) << DescribeZone(zi);
  EXPECT_EQ(zi.wp, Start(z0));
  EXPECT_EQ(zi.remaining(), cap);
  EXPECT_TRUE(ReadZeros(Start(z0), std::min<uint64_t>(cap, kMiB)));
  ASSERT_OK(WritePattern(92, Start(z0), 4 * lbs_));
  EXPECT_TRUE(ReadMatches(92, Start(z0), 4 * lbs_));
  EXPECT_TRUE(ReadZeros(Start(z0) + 4 * lbs_, 4 * lbs_));
  EXPECT_EQ(Zone(z0).wp, Start(z0) + 4 * lbs_);

  // Idempotent on an empty zone.
  const uint32_t z3 = Seq(3);
  std::vector<ZoneInfo> before = Zones();
  EXPECT_OK(dev_->ResetZones(z3, 1));
  ExpectSameZones(before, Zones(), "reset of an empty zone");

  // A range of zones in different states: implicit open, closed, explicit open, full.
  ASSERT_OK(WritePattern(93, Start(Seq(1)), lbs_));
  ASSERT_OK(dev_->CloseZones(Seq(1), 1));
  ASSERT_OK(dev_->OpenZones(Seq(2), 1));
  ASSERT_OK(dev_->FinishZones(z3, 1));
  ASSERT_OK(dev_->ResetZones(z0, 4));
  for (uint32_t i = 0; i < 4; ++i) {
    zi = Zone(Seq(i));
    EXPECT_EQ(zi.cond, ZoneCondition::kEmpty) << Seq(i) << " " << DescribeZone(zi);
    EXPECT_EQ(zi.wp, Start(Seq(i)));
  }
  // Reset of all sequential zones.
  ASSERT_OK(WritePattern(94, Start(Seq(1)), lbs_));
  ASSERT_OK(dev_->ResetZones(first_seq_, nr_seq_));
  std::vector<ZoneInfo> zones = Zones();
  for (uint32_t i = first_seq_; i < info_.nr_zones; ++i) {
    EXPECT_EQ(zones[i].cond, ZoneCondition::kEmpty) << i;
    EXPECT_EQ(zones[i].wp, zones[i].start) << i;
  }
  EXPECT_EQ(CountActive(zones), 0u);
}

// ---------------------------------------------------------------------------------------
// Open and active limits

TEST_P(DeviceConformanceTest, ExplicitOpensAreBoundedByMaxOpen) {
  const uint32_t m = info_.max_open_zones;
  if (m == 0) GTEST_SKIP() << "no max_open limit";
  REQUIRE_SEQ_ZONES(m + 3);
  if (info_.max_active_zones != 0 && info_.max_active_zones < m + 2) {
    GTEST_SKIP() << "max_active too small for this scenario";
  }
  for (uint32_t i = 0; i < m; ++i) ASSERT_OK(dev_->OpenZones(Seq(i), 1));
  EXPECT_EQ(CountOpen(Zones()), m);

  std::vector<char> buf(lbs_);
  FillPattern(101, Start(Seq(m)), buf.data(), lbs_);
  EXPECT_FAILS_UNCHANGED(dev_->OpenZones(Seq(m), 1), kTooManyOpenZones);
  EXPECT_FAILS_UNCHANGED(dev_->Write(Start(Seq(m)), buf.data(), lbs_), kTooManyOpenZones);
  EXPECT_TRUE(ReadZeros(Start(Seq(m)), lbs_));

  // Writes to the explicitly open zones work and keep them explicit.
  ASSERT_OK(WritePattern(102, Start(Seq(1)), lbs_));
  EXPECT_EQ(Zone(Seq(1)).cond, ZoneCondition::kExplicitOpen);

  // Filling one makes it full and frees its slot.
  ASSERT_OK(WritePatternChunked(103, Start(Seq(0)), info_.zone_capacity));
  EXPECT_EQ(Zone(Seq(0)).cond, ZoneCondition::kFull);
  ASSERT_OK(dev_->Write(Start(Seq(m)), buf.data(), lbs_));
  EXPECT_EQ(Zone(Seq(m)).cond, ZoneCondition::kImplicitOpen);
  EXPECT_EQ(CountOpen(Zones()), m);

  // An explicit open at the limit closes the implicitly open zone to make room.
  ASSERT_OK(dev_->OpenZones(Seq(m + 1), 1));
  EXPECT_EQ(Zone(Seq(m + 1)).cond, ZoneCondition::kExplicitOpen);
  ZoneInfo zi = Zone(Seq(m));
  EXPECT_EQ(zi.cond, ZoneCondition::kClosed) << DescribeZone(zi);
  EXPECT_EQ(zi.wp, Start(Seq(m)) + lbs_);
  EXPECT_EQ(CountOpen(Zones()), m);

  // Now every open zone is explicit again.
  std::vector<char> buf2(lbs_);
  FillPattern(104, Start(Seq(m + 2)), buf2.data(), lbs_);
  EXPECT_FAILS_UNCHANGED(dev_->Write(Start(Seq(m + 2)), buf2.data(), lbs_), kTooManyOpenZones);
  // ... also for a write to the closed zone, which would need to open it.
  EXPECT_FAILS_UNCHANGED(dev_->Write(Start(Seq(m)) + lbs_, buf2.data(), lbs_),
                         kTooManyOpenZones);
  // Closing one frees a slot.
  ASSERT_OK(dev_->CloseZones(Seq(1), 1));
  ASSERT_OK(dev_->Write(Start(Seq(m + 2)), buf2.data(), lbs_));
  EXPECT_EQ(Zone(Seq(m + 2)).cond, ZoneCondition::kImplicitOpen);
  EXPECT_LE(CountOpen(Zones()), m);
}

TEST_P(DeviceConformanceTest, FinishAndResetFreeOpenSlots) {
  const uint32_t m = info_.max_open_zones;
  if (m == 0) GTEST_SKIP() << "no max_open limit";
  REQUIRE_SEQ_ZONES(m + 2);
  if (info_.max_active_zones != 0 && info_.max_active_zones < m) {
    GTEST_SKIP() << "max_active below max_open";
  }
  for (uint32_t i = 0; i < m; ++i) ASSERT_OK(dev_->OpenZones(Seq(i), 1));
  EXPECT_FAILS_UNCHANGED(dev_->OpenZones(Seq(m), 1), kTooManyOpenZones);
  ASSERT_OK(dev_->FinishZones(Seq(0), 1));
  ASSERT_OK(dev_->OpenZones(Seq(m), 1));
  EXPECT_FAILS_UNCHANGED(dev_->OpenZones(Seq(m + 1), 1), kTooManyOpenZones);
  ASSERT_OK(dev_->ResetZones(Seq(1), 1));
  EXPECT_EQ(Zone(Seq(1)).cond, ZoneCondition::kEmpty);
  ASSERT_OK(dev_->OpenZones(Seq(m + 1), 1));
  EXPECT_EQ(CountOpen(Zones()), m);
}

TEST_P(DeviceConformanceTest, ImplicitOpenClosesLeastRecentlyWrittenZone) {
  const uint32_t m = info_.max_open_zones;
  if (m == 0) GTEST_SKIP() << "no max_open limit";
  REQUIRE_SEQ_ZONES(m + 2);
  if (info_.max_active_zones != 0 && info_.max_active_zones < m + 2) {
    GTEST_SKIP() << "max_active too small for max_open + 2 active zones";
  }
  // Write order: 0..m-1, then 0 again (so 1 becomes least recently written), then m, m+1,
  // then 1 (a closed zone, reopened).
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < m; ++i) order.push_back(i);
  order.push_back(0);
  order.push_back(m);
  order.push_back(m + 1);
  order.push_back(1);

  std::deque<uint32_t> lru;              // model: front = least recently written
  std::map<uint32_t, uint64_t> written;  // zone index -> blocks written
  for (size_t step = 0; step < order.size(); ++step) {
    const uint32_t i = order[step];
    SCOPED_TRACE("step " + std::to_string(step) + " writes seq zone " + std::to_string(i));
    const uint64_t off = Start(Seq(i)) + written[i] * lbs_;
    ASSERT_OK(WritePattern(110, off, lbs_));
    ++written[i];
    auto it = std::find(lru.begin(), lru.end(), i);
    if (it != lru.end()) {
      lru.erase(it);
    } else if (lru.size() == m) {
      lru.pop_front();
    }
    lru.push_back(i);

    std::vector<ZoneInfo> zones = Zones();
    EXPECT_LE(CountOpen(zones), m);
    for (const auto& [zi, blocks] : written) {
      const ZoneInfo& z = zones[Seq(zi)];
      EXPECT_EQ(z.wp, z.start + blocks * lbs_) << "seq zone " << zi;
      const bool open = std::find(lru.begin(), lru.end(), zi) != lru.end();
      EXPECT_EQ(z.cond, open ? ZoneCondition::kImplicitOpen : ZoneCondition::kClosed)
          << "seq zone " << zi << " " << DescribeZone(z);
    }
  }
  for (const auto& [zi, blocks] : written) {
    EXPECT_TRUE(ReadMatches(110, Start(Seq(zi)), blocks * lbs_)) << "seq zone " << zi;
  }
}

TEST_P(DeviceConformanceTest, ActiveZonesAreBoundedByMaxActive) {
  const uint32_t a = info_.max_active_zones;
  if (a == 0) GTEST_SKIP() << "no max_active limit";
  REQUIRE_SEQ_ZONES(a + 2);
  // Make `a` zones active (closed, with data).
  for (uint32_t i = 0; i < a; ++i) {
    ASSERT_OK(WritePattern(120, Start(Seq(i)), lbs_));
    ASSERT_OK(dev_->CloseZones(Seq(i), 1));
  }
  EXPECT_EQ(CountActive(Zones()), a);

  std::vector<char> buf(lbs_);
  FillPattern(121, Start(Seq(a)), buf.data(), lbs_);
  EXPECT_FAILS_UNCHANGED(dev_->Write(Start(Seq(a)), buf.data(), lbs_), kTooManyActiveZones);
  EXPECT_FAILS_UNCHANGED(dev_->OpenZones(Seq(a), 1), kTooManyActiveZones);
  EXPECT_TRUE(ReadZeros(Start(Seq(a)), lbs_));

  // Writing to an already active zone is fine.
  ASSERT_OK(WritePattern(120, Start(Seq(0)) + lbs_, lbs_));
  EXPECT_EQ(CountActive(Zones()), a);

  // Finishing one frees a slot.
  ASSERT_OK(dev_->FinishZones(Seq(0), 1));
  ASSERT_OK(dev_->Write(Start(Seq(a)), buf.data(), lbs_));
  EXPECT_EQ(CountActive(Zones()), a);
  EXPECT_FAILS_UNCHANGED(dev_->OpenZones(Seq(a + 1), 1), kTooManyActiveZones);

  // Resetting one frees a slot.
  ASSERT_OK(dev_->ResetZones(Seq(1), 1));
  ASSERT_OK(dev_->OpenZones(Seq(a + 1), 1));
  EXPECT_EQ(Zone(Seq(a + 1)).cond, ZoneCondition::kExplicitOpen);
  EXPECT_EQ(CountActive(Zones()), a);
  // An explicitly opened zone closed without data is no longer active.
  ASSERT_OK(dev_->CloseZones(Seq(a + 1), 1));
  EXPECT_EQ(Zone(Seq(a + 1)).cond, ZoneCondition::kEmpty);
  EXPECT_EQ(CountActive(Zones()), a - 1);
  EXPECT_TRUE(ReadMatches(120, Start(Seq(2)), lbs_));
}

// ---------------------------------------------------------------------------------------
// Flush and concurrency

TEST_P(DeviceConformanceTest, FlushSucceeds) {
  EXPECT_OK(dev_->Flush());
  if (nr_seq_ >= 1) {
    ASSERT_OK(WritePattern(130, Start(Seq(0)), 2 * lbs_));
  }
  if (info_.nr_conventional > 0) ASSERT_OK(WritePattern(131, 0, lbs_));
  EXPECT_OK(dev_->Flush());
  EXPECT_OK(dev_->Flush());
  if (nr_seq_ >= 1) {
    EXPECT_TRUE(ReadMatches(130, Start(Seq(0)), 2 * lbs_));
  }
  if (info_.nr_conventional > 0) {
    EXPECT_TRUE(ReadMatches(131, 0, lbs_));
  }
}

TEST_P(DeviceConformanceTest, ConcurrentWritersOnDifferentZones) {
  uint32_t threads = std::min<uint32_t>(4, nr_seq_);
  if (info_.max_open_zones != 0) threads = std::min(threads, info_.max_open_zones);
  if (info_.max_active_zones != 0) threads = std::min(threads, info_.max_active_zones);
  if (threads < 2) GTEST_SKIP() << "not enough zones for concurrent writers";
  const uint64_t per_zone = std::min<uint64_t>(info_.zone_capacity, 2 * kMiB);

  std::vector<Status> results(threads + 2);
  std::atomic<bool> stop_reader{false};
  std::vector<std::thread> pool;
  for (uint32_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const uint64_t s = Start(Seq(t));
      uint64_t off = 0;
      uint64_t step = 0;
      while (off < per_zone) {
        const uint64_t n = std::min<uint64_t>(((step++ % 7) + 1 + t) * uint64_t{lbs_},
                                              per_zone - off);
        std::vector<char> buf(n);
        FillPattern(200 + t, s + off, buf.data(), n);
        Status st = dev_->Write(s + off, buf.data(), n);
        if (!st.ok()) {
          results[t] = st.WithContext("writer " + std::to_string(t));
          return;
        }
        off += n;
      }
    });
  }
  // A concurrent conventional-zone writer.
  const uint64_t conv_len = std::min<uint64_t>(
      uint64_t{info_.nr_conventional} * info_.zone_size, 512 * uint64_t{lbs_});
  if (conv_len > 0) {
    pool.emplace_back([&] {
      for (uint64_t off = 0; off < conv_len; off += lbs_) {
        std::vector<char> buf(lbs_);
        FillPattern(300, off, buf.data(), lbs_);
        Status st = dev_->Write(off, buf.data(), lbs_);
        if (!st.ok()) {
          results[threads] = st.WithContext("conventional writer");
          return;
        }
      }
    });
  }
  // A concurrent reader of the zones being written (data not checked mid-way).
  pool.emplace_back([&] {
    std::vector<char> buf(8 * lbs_);
    uint32_t i = 0;
    while (!stop_reader.load()) {
      Status st = dev_->Read(Start(Seq(i++ % threads)), buf.data(), buf.size());
      if (!st.ok()) {
        results[threads + 1] = st.WithContext("reader");
        return;
      }
      auto r = dev_->ReportZones(first_seq_, threads);
      if (!r.ok()) {
        results[threads + 1] = r.status().WithContext("reporter");
        return;
      }
    }
  });
  for (size_t i = 0; i + 1 < pool.size(); ++i) pool[i].join();
  stop_reader.store(true);
  pool.back().join();

  for (const Status& st : results) EXPECT_TRUE(st.ok()) << st.ToString();
  for (uint32_t t = 0; t < threads; ++t) {
    EXPECT_TRUE(ReadMatches(200 + t, Start(Seq(t)), per_zone)) << "zone of writer " << t;
    ZoneInfo zi = Zone(Seq(t));
    if (per_zone == info_.zone_capacity) {
      EXPECT_EQ(zi.cond, ZoneCondition::kFull);
    } else {
      EXPECT_EQ(zi.wp, Start(Seq(t)) + per_zone);
    }
  }
  if (conv_len > 0) {
    EXPECT_TRUE(ReadMatches(300, 0, conv_len));
  }
  EXPECT_OK(dev_->Flush());
}

TEST_P(DeviceConformanceTest, ConcurrentWritesToOneZoneRaceForTheWritePointer) {
  REQUIRE_SEQ_ZONES(1);
  const uint32_t z = Seq(0);
  const uint64_t s = Start(z);
  const int rounds = static_cast<int>(std::min<uint64_t>(20, info_.zone_capacity / lbs_ - 1));
  for (int r = 0; r < rounds; ++r) {
    const uint64_t off = s + uint64_t(r) * lbs_;
    Status st[2];
    std::vector<char> bufs[2];
    for (int t = 0; t < 2; ++t) {
      bufs[t].resize(lbs_);
      FillPattern(400 + t, off, bufs[t].data(), lbs_);
    }
    std::thread th([&] { st[1] = dev_->Write(off, bufs[1].data(), lbs_); });
    st[0] = dev_->Write(off, bufs[0].data(), lbs_);
    th.join();
    ASSERT_NE(st[0].ok(), st[1].ok())
        << "round " << r << ": " << st[0].ToString() << " / " << st[1].ToString();
    const int winner = st[0].ok() ? 0 : 1;
    EXPECT_TRUE(st[1 - winner].IsIOError()) << st[1 - winner].ToString();
    EXPECT_TRUE(ReadMatches(400 + winner, off, lbs_)) << "round " << r;
    EXPECT_EQ(Zone(z).wp, off + lbs_);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, DeviceConformanceTest,
                         ::testing::ValuesIn(DeviceTestBackends()),
                         [](const ::testing::TestParamInfo<TestBackend>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace smr
