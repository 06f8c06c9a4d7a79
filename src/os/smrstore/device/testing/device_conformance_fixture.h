// The fixture of the device conformance suite (device/device_conformance_test.cc and
// device/device_conformance_zone_ops_test.cc): DeviceConformanceTest, parameterized by
// every backend of smr::testing::DeviceTestBackends(), and its helpers. Geometry is always
// read from info(); tests that need a limit or conventional zones the backend lacks skip.
// The suite is instantiated once, in device_conformance_test.cc.
#pragma once

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

namespace device_conformance {

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

inline bool SameZone(const ZoneInfo& a, const ZoneInfo& b) {
  return a.start == b.start && a.length == b.length && a.capacity == b.capacity &&
         a.wp == b.wp && a.type == b.type && a.cond == b.cond;
}

inline void ExpectSameZones(const std::vector<ZoneInfo>& before, const std::vector<ZoneInfo>& after,
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

}  // namespace device_conformance
}  // namespace smr
