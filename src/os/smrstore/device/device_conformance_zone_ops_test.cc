// Device conformance suite, part 2: zone operations (open, close, finish, reset), the open
// and active zone limits, flush and concurrent writers (part 1 and the suite's one
// instantiation: device_conformance_test.cc).
#include "device/testing/device_conformance_fixture.h"

namespace smr {
namespace device_conformance {

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

}  // namespace device_conformance
}  // namespace smr
