// Device conformance suite, part 1: geometry and zone reports, the write-pointer rules,
// reads, conventional zones (part 2: device_conformance_zone_ops_test.cc). Checks the rules
// of device/zoned_device.h on every backend of smr::testing::DeviceTestBackends(); the
// fixture is device/testing/device_conformance_fixture.h.
#include "device/testing/device_conformance_fixture.h"

namespace smr {
namespace device_conformance {

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

INSTANTIATE_TEST_SUITE_P(Backends, DeviceConformanceTest,
                         ::testing::ValuesIn(DeviceTestBackends()),
                         [](const ::testing::TestParamInfo<TestBackend>& info) {
                           return info.param.name;
                         });

}  // namespace device_conformance
}  // namespace smr

namespace smr {
namespace device_conformance {

// WriteV: the pieces land back to back as one Write of their concatenation would put them,
// with more pieces than one pwritev takes (IOV_MAX 1024) and pieces of any length; not at
// the write pointer it fails with nothing changed; no pieces is a no-op.
TEST_P(DeviceConformanceTest, WriteVPutsThePiecesBackToBack) {
  REQUIRE_SEQ_ZONES(1);
  const uint32_t z = Seq(0);
  const uint64_t s = Start(z);
  const uint64_t len = std::min<uint64_t>(256 * lbs_, info_.zone_capacity);
  std::string data(len, '\0');
  FillPattern(9, s, data.data(), len);
  std::vector<std::string_view> pieces;
  uint64_t at = 0;
  for (uint64_t i = 0; at < len; ++i) {
    const uint64_t n = std::min<uint64_t>(1 + (i * 37) % 200, len - at);
    pieces.emplace_back(data.data() + at, n);
    at += n;
  }
  ASSERT_GT(pieces.size(), 1024u);
  std::vector<ZoneInfo> before = Zones();
  EXPECT_FAILS_UNCHANGED(dev_->WriteV(s + lbs_, pieces), kIOError);  // not at the wp
  ASSERT_OK(dev_->WriteV(s, {}));
  ExpectSameZones(before, Zones(), "empty WriteV");
  ASSERT_OK(dev_->WriteV(s, pieces));
  EXPECT_EQ(Zone(z).wp, s + len);
  EXPECT_TRUE(ReadMatches(9, s, len));
}

// WriteV with block pieces in block-aligned memory mixed with pieces that are not aligned
// in memory or length (what an O_DIRECT backend takes as they are and what it must gather
// into an aligned buffer first) — an aligned piece between two odd-length ones among
// them — in a sequential and in a conventional zone.
TEST_P(DeviceConformanceTest, WriteVMixesAlignedAndUnalignedPieces) {
  REQUIRE_SEQ_ZONES(1);
  const uint64_t len = 25 * lbs_;
  ASSERT_LE(len, info_.zone_capacity);
  const std::vector<std::pair<uint64_t, bool>> shape = {  // (length, in aligned memory)
      {4 * lbs_, true}, {lbs_, false},     {100, false}, {lbs_ - 100, false},
      {8 * lbs_, true}, {3 * lbs_, false}, {2 * lbs_, true}, {100, false},
      {lbs_, true},     {lbs_ - 100, false}, {lbs_, true}, {3 * lbs_, true}};
  std::vector<uint64_t> targets = {Start(Seq(0))};
  if (info_.nr_conventional > 0) targets.push_back(0);
  for (uint64_t off : targets) {
    SCOPED_TRACE("offset " + std::to_string(off));
    std::string data(len, '\0');
    FillPattern(71, off, data.data(), len);
    // Each piece in a buffer of its own: 4 KiB-aligned, or one byte past such an address.
    std::vector<std::unique_ptr<char, decltype(&std::free)>> buffers;
    std::vector<std::string_view> pieces;
    uint64_t at = 0;
    for (const auto& [n, in_aligned] : shape) {
      buffers.emplace_back(static_cast<char*>(std::aligned_alloc(4096, 4096 + n)), &std::free);
      ASSERT_NE(buffers.back(), nullptr);
      char* p = buffers.back().get() + (in_aligned ? 0 : 1);
      std::memcpy(p, data.data() + at, n);
      pieces.emplace_back(p, n);
      at += n;
    }
    ASSERT_EQ(at, len);
    ASSERT_OK(dev_->WriteV(off, pieces));
    EXPECT_TRUE(ReadMatches(71, off, len));
  }
  EXPECT_EQ(Zone(Seq(0)).wp, Start(Seq(0)) + len);
}

}  // namespace device_conformance
}  // namespace smr

namespace smr {
namespace device_conformance {

// ReadV: the range lands in the pieces in order, whatever their lengths and alignment
// (block-aligned buffers, odd lengths, more pieces than one preadv takes, two pieces sharing
// one buffer); bytes past the write pointer read as zeros in the pieces too; the range
// rules are Read's; no pieces (or only empty ones) is a no-op.
TEST_P(DeviceConformanceTest, ReadVGathersTheRangeIntoThePieces) {
  REQUIRE_SEQ_ZONES(1);
  const uint32_t z = Seq(0);
  const uint64_t s = Start(z);
  const uint64_t written = std::min<uint64_t>(1100 * lbs_, info_.zone_capacity / 2);
  ASSERT_OK(WritePatternChunked(61, s, written));
  std::string want(written, '\0');
  FillPattern(61, s, want.data(), written);

  // Block-sized pieces in aligned memory, more of them than IOV_MAX when the zone allows.
  const uint64_t blocks = written / lbs_;
  std::unique_ptr<char, decltype(&std::free)> aligned(
      static_cast<char*>(std::aligned_alloc(lbs_, written)), &std::free);
  ASSERT_NE(aligned, nullptr);
  std::vector<ZonedDevice::ReadPiece> pieces;
  for (uint64_t b = 0; b < blocks; ++b) pieces.push_back({aligned.get() + b * lbs_, lbs_});
  ASSERT_OK(dev_->ReadV(s, pieces));
  EXPECT_EQ(std::memcmp(aligned.get(), want.data(), written), 0);

  // Odd lengths into unaligned memory, a gap's bytes into a shared scratch buffer, and a
  // range that runs past the write pointer (zeros there).
  const uint64_t len = written + 4 * lbs_;
  std::string got(len + 1, '\x77');
  std::string scratch(3 * lbs_, '\x55');
  pieces = {{got.data() + 1, 5},
            {got.data() + 6, lbs_ - 5},
            {scratch.data(), lbs_},  // block 1 not wanted
            {scratch.data(), lbs_},  // block 2 neither: same buffer
            {got.data() + 1 + 3 * lbs_, len - 3 * lbs_}};
  ASSERT_OK(dev_->ReadV(s, pieces));
  EXPECT_EQ(got.substr(1, lbs_), want.substr(0, lbs_));
  EXPECT_EQ(got.substr(1 + 3 * lbs_, written - 3 * lbs_), want.substr(3 * lbs_));
  EXPECT_EQ(got.substr(1 + written, 4 * lbs_), std::string(4 * lbs_, '\0'))
      << "bytes past the write pointer are not zeros";

  // Read's rules; nothing to read is a no-op.
  std::vector<ZoneInfo> before = Zones();
  char one[1];
  EXPECT_CODE(dev_->ReadV(s + 1, {{got.data(), lbs_}}), kInvalidArgument);
  EXPECT_CODE(dev_->ReadV(s, {{got.data(), lbs_}, {one, 1}}), kInvalidArgument);
  EXPECT_CODE(dev_->ReadV(info_.capacity_bytes(), {{got.data(), lbs_}}), kInvalidArgument);
  ASSERT_OK(dev_->ReadV(s, {}));
  ASSERT_OK(dev_->ReadV(s, {{got.data(), 0}}));
  ExpectSameZones(before, Zones(), "ReadV");
}

}  // namespace device_conformance
}  // namespace smr
