// Tests of hybrid (CMR<->SMR convertible) drives: the "Hybrid drives" rules of
// device/zoned_device.h on the emulator (device/emulated_zoned_device.h) and on the emulator
// wrapped by FaultInjectionDevice (parameterized: "emu", "fault"); the emulator's crash
// atomicity per realm (a stop after every step of a conversion, a torn realm slot), the
// file format (version 1 unchanged for drives that are not hybrid), geometry checks and
// the fault-injection wrapper's hybrid rules (zone faults, FailNthActivate, PowerCut).
// The spec keys are tested in device_spec_test.cc (DeviceSpecTest.Hybrid*).

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/coding.h"
#include "common/crc32c.h"
#include "common/status.h"
#include "common/testing/test_util.h"
#include "device/emulated_format.h"
#include "device/emulated_zoned_device.h"
#include "device/fault_injection_device.h"
#include "device/testing/device_test_backends.h"
#include "device/zoned_device.h"

namespace smr {
namespace {

using smr::testing::CheckPattern;
using smr::testing::DescribeZone;
using smr::testing::FillPattern;
using smr::testing::ReadFileBytes;
using smr::testing::ScratchDir;
using smr::testing::WaitUntil;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kB = 4096;
// The test drive: 2 permanent conventional zones, 3 realms of 4 CMR / 5 SMR zones of 1 MiB:
// zones [0, 2) conventional, [2, 14) the CMR domain, [14, 29) the SMR domain.
constexpr uint32_t kConv = 2;
constexpr uint32_t kRealms = 3;
constexpr uint32_t kCmr = 4;
constexpr uint32_t kSmr = 5;
constexpr uint32_t kZones = kConv + kRealms * (kCmr + kSmr);

uint32_t CmrZone(uint32_t realm, uint32_t i) { return kConv + realm * kCmr + i; }
uint32_t SmrZone(uint32_t realm, uint32_t i) { return kConv + kRealms * kCmr + realm * kSmr + i; }
uint64_t Start(uint32_t zone) { return uint64_t{zone} * kMiB; }

// `len` bytes of file `path` at `off` (fewer at its end); empty when it cannot be read.
std::string ReadAt(const std::string& path, uint64_t off, size_t len) {
  std::string out(len, '\0');
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::string();
  const ssize_t n = ::pread(fd, out.data(), len, static_cast<off_t>(off));
  ::close(fd);
  out.resize(n < 0 ? 0 : static_cast<size_t>(n));
  return out;
}

// Overwrites bytes of file `path` at `off` in place (a sparse drive file stays sparse).
bool WriteAt(const std::string& path, uint64_t off, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(off));
  ::close(fd);
  return n == static_cast<ssize_t>(bytes.size());
}

EmulatedGeometry HybridGeometry(uint32_t conversion_ms = 5,
                                ZoneDomain init = ZoneDomain::kCmr) {
  EmulatedGeometry g;
  g.zone_size = 1 * kMiB;
  g.logical_block_size = kB;
  g.max_open_zones = 0;
  g.max_active_zones = 0;
  g.nr_realms = kRealms;
  g.cmr_zones_per_realm = kCmr;
  g.smr_zones_per_realm = kSmr;
  g.conversion_ms = conversion_ms;
  g.initial_domain = init;
  return g;
}

struct HybridBackend {
  std::string name;
  bool wrapped = false;  // the emulator inside a FaultInjectionDevice
};
void PrintTo(const HybridBackend& b, std::ostream* os) { *os << b.name; }

class HybridDeviceTest : public ::testing::TestWithParam<HybridBackend> {
 protected:
  std::string path() const { return dir_.path() + "/hybrid.img"; }

  // Creates the test drive with `g` (nothing else in a test creates one).
  void Create(EmulatedGeometry g) {
    auto r = EmulatedZonedDevice::Create(path(), g);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    Adopt(std::move(r).value());
  }

  // Drops the device object (as a killed process would) and opens the file again.
  void Reopen() {
    dev_.reset();
    emu_ = nullptr;
    fault_ = nullptr;
    auto r = EmulatedZonedDevice::Open(path());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    Adopt(std::move(r).value());
  }

  void Adopt(std::unique_ptr<EmulatedZonedDevice> emu) {
    emu_ = emu.get();
    if (GetParam().wrapped) {
      auto fault = std::make_unique<FaultInjectionDevice>(std::move(emu));
      fault_ = fault.get();
      dev_ = std::move(fault);
    } else {
      dev_ = std::move(emu);
    }
  }

  std::vector<ZoneInfo> Zones() {
    auto r = dev_->ReportZones(0, 0);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<ZoneInfo>{};
  }
  ZoneInfo Zone(uint32_t z) {
    auto r = dev_->ReportZones(z, 1);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? (*r)[0] : ZoneInfo{};
  }
  std::vector<RealmInfo> Realms() {
    auto r = dev_->ReportRealms(0, 0);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<RealmInfo>{};
  }
  ZoneDomain DomainOf(uint32_t realm) {
    auto r = dev_->ReportRealms(realm, 1);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? (*r)[0].domain : ZoneDomain::kCmr;
  }

  Status WritePattern(uint64_t seed, uint64_t off, size_t len) {
    std::vector<char> buf(len);
    FillPattern(seed, off, buf.data(), len);
    return dev_->Write(off, buf.data(), len);
  }
  // True when [off, +len) reads back as pattern `seed`.
  bool HasPattern(uint64_t seed, uint64_t off, size_t len) {
    std::vector<char> buf(len);
    Status s = dev_->Read(off, buf.data(), len);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return s.ok() && CheckPattern(seed, off, buf.data(), len);
  }
  // True when [off, +len) reads back as zeros.
  bool IsZero(uint64_t off, size_t len) {
    std::vector<char> buf(len, 1);
    Status s = dev_->Read(off, buf.data(), len);
    EXPECT_TRUE(s.ok()) << s.ToString();
    for (char c : buf) {
      if (c != 0) return false;
    }
    return s.ok();
  }
  // The drive file's bytes for device range [off, +len) (what the media holds).
  std::string FileBytes(uint64_t off, size_t len) {
    return ReadAt(path(), emufmt::DataOffsetFor(kZones, kRealms) + off, len);
  }

  // Writes pattern `seed` over the first 64 KiB of every CMR zone of `realm`.
  void FillCmr(uint32_t realm, uint64_t seed) {
    for (uint32_t i = 0; i < kCmr; ++i) {
      ASSERT_OK(WritePattern(seed, Start(CmrZone(realm, i)), 16 * kB));
    }
  }
  bool CmrHasPattern(uint32_t realm, uint64_t seed) {
    bool all = true;
    for (uint32_t i = 0; i < kCmr; ++i) all &= HasPattern(seed, Start(CmrZone(realm, i)), 16 * kB);
    return all;
  }
  bool CmrIsZero(uint32_t realm) {
    bool all = true;
    for (uint32_t i = 0; i < kCmr; ++i) all &= IsZero(Start(CmrZone(realm, i)), kMiB);
    return all;
  }
  // Every zone of `realm` in `domain` reports `cond`.
  void ExpectDomainCondition(uint32_t realm, ZoneDomain domain, ZoneCondition cond) {
    const uint32_t n = domain == ZoneDomain::kCmr ? kCmr : kSmr;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t z = domain == ZoneDomain::kCmr ? CmrZone(realm, i) : SmrZone(realm, i);
      const ZoneInfo zi = Zone(z);
      EXPECT_EQ(zi.cond, cond) << "zone " << z << " " << DescribeZone(zi);
    }
  }

  ScratchDir dir_;
  std::unique_ptr<ZonedDevice> dev_;
  EmulatedZonedDevice* emu_ = nullptr;     // the emulator (inside the wrapper, if any)
  FaultInjectionDevice* fault_ = nullptr;  // the wrapper ("fault" backend only)
};

// ---------------------------------------------------------------------------------------
// Geometry and reports

TEST_P(HybridDeviceTest, LayoutAndReportsOfBothDomains) {
  Create(HybridGeometry());
  const DeviceInfo& info = dev_->info();
  EXPECT_TRUE(info.hybrid());
  EXPECT_EQ(info.nr_zones, kZones);
  EXPECT_EQ(info.nr_conventional, kConv);
  EXPECT_EQ(info.nr_realms, kRealms);
  EXPECT_EQ(info.cmr_zones_per_realm, kCmr);
  EXPECT_EQ(info.smr_zones_per_realm, kSmr);
  EXPECT_EQ(info.cmr_first_zone, kConv);
  EXPECT_EQ(info.smr_first_zone, kConv + kRealms * kCmr);
  EXPECT_EQ(info.conversion_ms, 5u);

  std::vector<ZoneInfo> zones = Zones();
  ASSERT_EQ(zones.size(), kZones);
  for (uint32_t z = 0; z < kZones; ++z) {
    const ZoneInfo& zi = zones[z];
    SCOPED_TRACE("zone " + std::to_string(z) + " " + DescribeZone(zi));
    EXPECT_EQ(zi.start, Start(z));
    EXPECT_EQ(zi.length, kMiB);
    EXPECT_FALSE(zi.is_active());
    if (z < info.smr_first_zone) {  // permanent conventional + the active CMR domain
      EXPECT_EQ(zi.type, ZoneType::kConventional);
      EXPECT_EQ(zi.cond, ZoneCondition::kNotWritePointer);
    } else {  // the inactive SMR domain
      EXPECT_EQ(zi.type, ZoneType::kSequentialRequired);
      EXPECT_EQ(zi.cond, ZoneCondition::kInactive);
      EXPECT_EQ(zi.wp, zi.start);
      EXPECT_EQ(zi.capacity, info.zone_capacity);
      EXPECT_EQ(zi.remaining(), 0u);
    }
  }

  std::vector<RealmInfo> realms = Realms();
  ASSERT_EQ(realms.size(), kRealms);
  for (uint32_t r = 0; r < kRealms; ++r) {
    RealmInfo want = RealmGeometry(info, r);
    want.domain = ZoneDomain::kCmr;
    EXPECT_TRUE(realms[r] == want) << "realm " << r;
    EXPECT_EQ(realms[r].cmr_first, CmrZone(r, 0));
    EXPECT_EQ(realms[r].smr_first, SmrZone(r, 0));
    EXPECT_EQ(realms[r].active_first(), CmrZone(r, 0));
    EXPECT_EQ(realms[r].active_count(), kCmr);
    auto of_cmr = RealmOfZone(info, CmrZone(r, kCmr - 1));
    ASSERT_TRUE(of_cmr.has_value());
    EXPECT_EQ(of_cmr->realm, r);
    EXPECT_EQ(of_cmr->domain, ZoneDomain::kCmr);
    auto of_smr = RealmOfZone(info, SmrZone(r, 0));
    ASSERT_TRUE(of_smr.has_value());
    EXPECT_EQ(of_smr->realm, r);
    EXPECT_EQ(of_smr->domain, ZoneDomain::kSmr);
  }
  EXPECT_FALSE(RealmOfZone(info, 1).has_value());

  // Realm ranges: count 0 = to the end, clipped, first checked.
  auto tail = dev_->ReportRealms(1, 0);
  ASSERT_TRUE(tail.ok()) << tail.status().ToString();
  ASSERT_EQ(tail->size(), 2u);
  EXPECT_EQ((*tail)[0].realm, 1u);
  auto clipped = dev_->ReportRealms(2, 10);
  ASSERT_TRUE(clipped.ok()) << clipped.status().ToString();
  ASSERT_EQ(clipped->size(), 1u);
  EXPECT_EQ((*clipped)[0].realm, 2u);
  EXPECT_CODE(dev_->ReportRealms(kRealms, 1).status(), kInvalidArgument);
  EXPECT_CODE(dev_->ActivateRealms(kRealms, 1, ZoneDomain::kSmr), kInvalidArgument);
  EXPECT_CODE(dev_->ActivateRealms(0, 0, ZoneDomain::kSmr), kInvalidArgument);
  EXPECT_CODE(dev_->ActivateRealms(2, 2, ZoneDomain::kSmr), kInvalidArgument);
  EXPECT_EQ(DomainOf(2), ZoneDomain::kCmr);
}

TEST_P(HybridDeviceTest, InitialSmrDomainReportsCmrZonesInactive) {
  Create(HybridGeometry(5, ZoneDomain::kSmr));
  std::vector<ZoneInfo> zones = Zones();
  ASSERT_EQ(zones.size(), kZones);
  for (uint32_t z = 0; z < kZones; ++z) {
    const ZoneInfo& zi = zones[z];
    SCOPED_TRACE("zone " + std::to_string(z) + " " + DescribeZone(zi));
    if (z < kConv) {
      EXPECT_EQ(zi.cond, ZoneCondition::kNotWritePointer);
    } else if (z < SmrZone(0, 0)) {
      EXPECT_EQ(zi.type, ZoneType::kConventional);
      EXPECT_EQ(zi.cond, ZoneCondition::kInactive);
      EXPECT_EQ(zi.wp, zi.start);
    } else {
      EXPECT_EQ(zi.type, ZoneType::kSequentialRequired);
      EXPECT_EQ(zi.cond, ZoneCondition::kEmpty);
      EXPECT_EQ(zi.remaining(), zi.capacity);
    }
  }
  for (const RealmInfo& r : Realms()) EXPECT_EQ(r.domain, ZoneDomain::kSmr);
}

TEST_P(HybridDeviceTest, DrivesThatAreNotHybridHaveNoRealms) {
  EmulatedGeometry g;
  g.nr_zones = 8;
  g.zone_size = kMiB;
  g.nr_conventional = 1;
  Create(g);
  EXPECT_FALSE(dev_->info().hybrid());
  EXPECT_EQ(dev_->info().nr_realms, 0u);
  EXPECT_EQ(dev_->info().cmr_first_zone, 0u);
  EXPECT_CODE(dev_->ReportRealms(0, 0).status(), kNotSupported);
  EXPECT_CODE(dev_->ActivateRealms(0, 1, ZoneDomain::kSmr), kNotSupported);
  EXPECT_FALSE(RealmOfZone(dev_->info(), 3).has_value());
}

// ---------------------------------------------------------------------------------------
// Inactive zones

TEST_P(HybridDeviceTest, InactiveZonesRefuseIoAndZoneOpsAndNothingChanges) {
  Create(HybridGeometry());
  const uint32_t smr = SmrZone(1, 0);
  std::vector<char> buf(4 * kB, 'x');
  const std::vector<ZoneInfo> before = Zones();
  EXPECT_CODE(dev_->Write(Start(smr), buf.data(), buf.size()), kIOError);
  EXPECT_CODE(dev_->Read(Start(smr), buf.data(), buf.size()), kIOError);
  EXPECT_CODE(dev_->OpenZones(smr, 1), kIOError);
  EXPECT_CODE(dev_->CloseZones(smr, 1), kIOError);
  EXPECT_CODE(dev_->FinishZones(smr, 1), kIOError);
  EXPECT_CODE(dev_->ResetZones(smr, 1), kIOError);
  EXPECT_CODE(dev_->ResetZones(SmrZone(0, 0), kRealms * kSmr), kIOError);
  EXPECT_TRUE(Zones() == before) << "a refused operation changed a zone";

  // Active CMR zones are conventional: zone operations are kInvalidArgument, writes may
  // span adjacent conventional zones (a permanent one and realm 0; realm 0 and realm 1).
  EXPECT_CODE(dev_->ResetZones(CmrZone(0, 0), 1), kInvalidArgument);
  ASSERT_OK(WritePattern(1, Start(CmrZone(0, 0)) - 4 * kB, 8 * kB));
  ASSERT_OK(WritePattern(2, Start(CmrZone(1, 0)) - 4 * kB, 8 * kB));
  EXPECT_TRUE(HasPattern(1, Start(CmrZone(0, 0)) - 4 * kB, 8 * kB));

  // Realm 1 in SMR: its CMR zones are inactive now.
  ASSERT_OK(dev_->ActivateRealms(1, 1, ZoneDomain::kSmr));
  const uint32_t cmr = CmrZone(1, 2);
  EXPECT_CODE(dev_->Write(Start(cmr), buf.data(), buf.size()), kIOError);
  EXPECT_CODE(dev_->Read(Start(cmr), buf.data(), buf.size()), kIOError);
  EXPECT_CODE(dev_->ResetZones(cmr, 1), kIOError);
  // A write or read spanning an active CMR zone of realm 0 and an inactive one of realm 1
  // fails as a whole: realm 0's bytes stay as they were.
  const uint64_t across = Start(CmrZone(1, 0)) - 4 * kB;
  std::vector<char> span(8 * kB, 'y');
  EXPECT_CODE(dev_->Write(across, span.data(), span.size()), kIOError);
  EXPECT_CODE(dev_->Read(across, span.data(), span.size()), kIOError);
  EXPECT_TRUE(HasPattern(2, across, 4 * kB));
  // A write into sequential zones from the last CMR zone is refused too.
  const uint64_t into_smr = Start(SmrZone(0, 0)) - 4 * kB;
  EXPECT_CODE(dev_->Write(into_smr, span.data(), span.size()), kIOError);
  EXPECT_TRUE(IsZero(into_smr, 4 * kB));
}

// ---------------------------------------------------------------------------------------
// Conversion

TEST_P(HybridDeviceTest, ConvertsCmrToSmrAndBackDestroyingTheOldDomainsData) {
  Create(HybridGeometry());
  FillCmr(0, 10);
  FillCmr(1, 11);
  FillCmr(2, 12);
  ASSERT_OK(WritePattern(13, Start(1), 16 * kB));  // a permanent conventional zone

  ASSERT_OK(dev_->ActivateRealms(1, 1, ZoneDomain::kSmr));
  EXPECT_EQ(DomainOf(0), ZoneDomain::kCmr);
  EXPECT_EQ(DomainOf(1), ZoneDomain::kSmr);
  EXPECT_EQ(DomainOf(2), ZoneDomain::kCmr);
  ExpectDomainCondition(1, ZoneDomain::kCmr, ZoneCondition::kInactive);
  ExpectDomainCondition(1, ZoneDomain::kSmr, ZoneCondition::kEmpty);
  ExpectDomainCondition(0, ZoneDomain::kSmr, ZoneCondition::kInactive);
  // The old CMR data is gone from the media, the other realms' data is not.
  EXPECT_EQ(FileBytes(Start(CmrZone(1, 0)), 16 * kB), std::string(16 * kB, '\0'));
  EXPECT_TRUE(CmrHasPattern(0, 10));
  EXPECT_TRUE(CmrHasPattern(2, 12));
  EXPECT_TRUE(HasPattern(13, Start(1), 16 * kB));

  // The new SMR zones are sequential zones like any other.
  const uint32_t z = SmrZone(1, 3);
  EXPECT_TRUE(IsZero(Start(z), kMiB));
  ASSERT_OK(WritePattern(14, Start(z), 8 * kB));
  EXPECT_CODE(WritePattern(14, Start(z), 4 * kB), kIOError);  // not at the write pointer
  EXPECT_EQ(Zone(z).cond, ZoneCondition::kImplicitOpen);
  EXPECT_TRUE(HasPattern(14, Start(z), 8 * kB));
  ASSERT_OK(dev_->FinishZones(SmrZone(1, 4), 1));
  ASSERT_OK(dev_->ResetZones(SmrZone(1, 0), kSmr));

  // And back: the CMR zones come up reading zeros.
  ASSERT_OK(dev_->ActivateRealms(1, 1, ZoneDomain::kCmr));
  EXPECT_EQ(DomainOf(1), ZoneDomain::kCmr);
  ExpectDomainCondition(1, ZoneDomain::kCmr, ZoneCondition::kNotWritePointer);
  ExpectDomainCondition(1, ZoneDomain::kSmr, ZoneCondition::kInactive);
  EXPECT_TRUE(CmrIsZero(1));
  FillCmr(1, 15);
  EXPECT_TRUE(CmrHasPattern(1, 15));
  EXPECT_TRUE(CmrHasPattern(0, 10));
}

TEST_P(HybridDeviceTest, LeavingSmrNeedsEveryZoneEmptyAndARefusalChangesNothing) {
  Create(HybridGeometry(5, ZoneDomain::kSmr));
  // Realm 0 empty, realm 1 has data: converting both is refused before realm 0 changes.
  ASSERT_OK(WritePattern(1, Start(SmrZone(1, 2)), 4 * kB));
  const std::vector<ZoneInfo> before = Zones();
  EXPECT_CODE(dev_->ActivateRealms(0, 2, ZoneDomain::kCmr), kNotEmpty);
  EXPECT_EQ(DomainOf(0), ZoneDomain::kSmr);
  EXPECT_EQ(DomainOf(1), ZoneDomain::kSmr);
  EXPECT_TRUE(Zones() == before) << "a refused conversion changed a zone";
  EXPECT_TRUE(HasPattern(1, Start(SmrZone(1, 2)), 4 * kB));

  // Every non-empty condition refuses: closed, explicitly open (even with nothing written),
  // full.
  ASSERT_OK(dev_->CloseZones(SmrZone(1, 2), 1));
  EXPECT_EQ(Zone(SmrZone(1, 2)).cond, ZoneCondition::kClosed);
  EXPECT_CODE(dev_->ActivateRealms(1, 1, ZoneDomain::kCmr), kNotEmpty);
  ASSERT_OK(dev_->ResetZones(SmrZone(1, 2), 1));
  ASSERT_OK(dev_->OpenZones(SmrZone(1, 4), 1));
  EXPECT_CODE(dev_->ActivateRealms(1, 1, ZoneDomain::kCmr), kNotEmpty);
  ASSERT_OK(dev_->FinishZones(SmrZone(1, 4), 1));
  EXPECT_CODE(dev_->ActivateRealms(1, 1, ZoneDomain::kCmr), kNotEmpty);
  EXPECT_EQ(DomainOf(1), ZoneDomain::kSmr);

  // Reset: now it converts.
  ASSERT_OK(dev_->ResetZones(SmrZone(1, 0), kSmr));
  ASSERT_OK(dev_->ActivateRealms(0, 2, ZoneDomain::kCmr));
  EXPECT_EQ(DomainOf(0), ZoneDomain::kCmr);
  EXPECT_EQ(DomainOf(1), ZoneDomain::kCmr);
  EXPECT_EQ(DomainOf(2), ZoneDomain::kSmr);
  EXPECT_TRUE(CmrIsZero(0));
  EXPECT_TRUE(CmrIsZero(1));
}

TEST_P(HybridDeviceTest, RealmsAlreadyInTheDomainAreLeftAsTheyAre) {
  Create(HybridGeometry(100));
  FillCmr(0, 20);
  ASSERT_OK(dev_->ActivateRealms(1, 1, ZoneDomain::kSmr));
  ASSERT_OK(WritePattern(21, Start(SmrZone(1, 0)), 8 * kB));

  // All three to CMR would need realm 1 empty; all three to SMR converts realms 0 and 2
  // only: realm 1's written zone stays as it is.
  const auto t0 = Clock::now();
  ASSERT_OK(dev_->ActivateRealms(0, 3, ZoneDomain::kSmr));
  const auto took = Clock::now() - t0;
  for (uint32_t r = 0; r < kRealms; ++r) EXPECT_EQ(DomainOf(r), ZoneDomain::kSmr);
  EXPECT_TRUE(HasPattern(21, Start(SmrZone(1, 0)), 8 * kB));
  EXPECT_EQ(Zone(SmrZone(1, 0)).wp, Start(SmrZone(1, 0)) + 8 * kB);
  // Two conversions' time, not three.
  EXPECT_GE(took, std::chrono::milliseconds(200));

  // A realm already in the domain costs no conversion time and changes nothing.
  const std::vector<ZoneInfo> before = Zones();
  const auto t1 = Clock::now();
  ASSERT_OK(dev_->ActivateRealms(1, 1, ZoneDomain::kSmr));
  EXPECT_LT(Clock::now() - t1, std::chrono::milliseconds(100));
  EXPECT_TRUE(Zones() == before);
}

TEST_P(HybridDeviceTest, OpenAndActiveLimitsCountOnlyActiveSequentialZones) {
  EmulatedGeometry g = HybridGeometry(5, ZoneDomain::kSmr);
  g.max_open_zones = 2;
  g.max_active_zones = 3;
  Create(g);
  // Realm 0 in CMR; realm 1 uses up the active limit.
  ASSERT_OK(dev_->ActivateRealms(0, 1, ZoneDomain::kCmr));
  for (uint32_t i = 0; i < 3; ++i) ASSERT_OK(WritePattern(i, Start(SmrZone(1, i)), kB));
  EXPECT_CODE(WritePattern(9, Start(SmrZone(2, 0)), kB), kTooManyActiveZones);
  EXPECT_CODE(dev_->OpenZones(SmrZone(2, 0), 1), kTooManyActiveZones);
  auto count_active = [&] {
    uint32_t active = 0;
    for (const ZoneInfo& zi : Zones()) active += zi.is_active() ? 1 : 0;
    return active;
  };
  EXPECT_EQ(count_active(), 3u);

  // Realm 1 back to CMR after a reset: its zones stop counting, the whole limit is free for
  // realm 2, also across realm 0's conversion into SMR (its zones come up empty).
  ASSERT_OK(dev_->ResetZones(SmrZone(1, 0), kSmr));
  ASSERT_OK(dev_->ActivateRealms(1, 1, ZoneDomain::kCmr));
  ASSERT_OK(dev_->ActivateRealms(0, 1, ZoneDomain::kSmr));
  EXPECT_EQ(count_active(), 0u);
  ASSERT_OK(dev_->OpenZones(SmrZone(2, 0), 2));
  EXPECT_CODE(dev_->OpenZones(SmrZone(2, 2), 1), kTooManyOpenZones);
  EXPECT_CODE(WritePattern(3, Start(SmrZone(0, 0)), kB), kTooManyOpenZones);
  ASSERT_OK(dev_->CloseZones(SmrZone(2, 0), 1));  // nothing written: back to empty
  ASSERT_OK(WritePattern(3, Start(SmrZone(0, 0)), kB));
  EXPECT_EQ(count_active(), 2u);

  // The same after a reopen (inactive zones' slots are not loaded as state): one more
  // zone may become active (closing the implicitly open one), not two.
  Reopen();
  EXPECT_EQ(count_active(), 2u);
  ASSERT_OK(WritePattern(4, Start(SmrZone(0, 1)), kB));
  EXPECT_EQ(count_active(), 3u);
  EXPECT_CODE(WritePattern(5, Start(SmrZone(0, 2)), kB), kTooManyActiveZones);
}

TEST_P(HybridDeviceTest, OtherRealmsIoProceedsDuringAConversion) {
  constexpr auto kConversion = std::chrono::milliseconds(600);
  Create(HybridGeometry(static_cast<uint32_t>(kConversion.count())));
  FillCmr(0, 30);
  FillCmr(1, 31);
  ASSERT_OK(dev_->ActivateRealms(2, 1, ZoneDomain::kSmr));

  std::atomic<bool> done{false};
  Status converted;
  const auto t0 = Clock::now();
  std::thread converter([&] {
    converted = dev_->ActivateRealms(1, 1, ZoneDomain::kSmr);
    done = true;
  });
  // The conversion has begun once realm 1's zones report inactive; a quarter of the
  // conversion time later it is in its wait (step 1 takes a few milliseconds).
  ASSERT_TRUE(WaitUntil([&] { return Zone(CmrZone(1, 0)).cond == ZoneCondition::kInactive; }));
  std::this_thread::sleep_for(kConversion / 4);
  // I/O to other realms and to permanent zones completes meanwhile, long before the
  // conversion time is over (it takes milliseconds; waiting for the conversion would take
  // most of kConversion)...
  const auto io_start = Clock::now();
  ASSERT_OK(WritePattern(32, Start(CmrZone(0, 1)) + 64 * kB, 16 * kB));
  ASSERT_OK(WritePattern(33, Start(SmrZone(2, 0)), 16 * kB));
  ASSERT_OK(WritePattern(34, Start(0), 16 * kB));
  EXPECT_TRUE(HasPattern(30, Start(CmrZone(0, 0)), 16 * kB));
  ASSERT_OK(dev_->FinishZones(SmrZone(2, 1), 1));
  EXPECT_LT(Clock::now() - io_start, kConversion / 2) << "other realms' I/O waited";
  EXPECT_FALSE(done.load()) << "other realms' I/O waited for the conversion";
  // ...while the converting realm's zones (both domains) refuse I/O, and a second
  // conversion of it too.
  std::vector<char> buf(4 * kB);
  EXPECT_CODE(dev_->Read(Start(CmrZone(1, 0)), buf.data(), buf.size()), kIOError);
  EXPECT_CODE(dev_->Write(Start(CmrZone(1, 0)), buf.data(), buf.size()), kIOError);
  EXPECT_CODE(dev_->Write(Start(SmrZone(1, 0)), buf.data(), buf.size()), kIOError);
  EXPECT_CODE(dev_->OpenZones(SmrZone(1, 0), 1), kIOError);
  EXPECT_CODE(dev_->ActivateRealms(1, 1, ZoneDomain::kSmr), kIOError);
  EXPECT_FALSE(done.load());
  converter.join();
  ASSERT_OK(converted);
  EXPECT_GE(Clock::now() - t0, kConversion);
  EXPECT_EQ(DomainOf(1), ZoneDomain::kSmr);
  ExpectDomainCondition(1, ZoneDomain::kSmr, ZoneCondition::kEmpty);
  EXPECT_TRUE(HasPattern(32, Start(CmrZone(0, 1)) + 64 * kB, 16 * kB));
  EXPECT_TRUE(HasPattern(33, Start(SmrZone(2, 0)), 16 * kB));
}

TEST_P(HybridDeviceTest, ReopenRestoresDomainsZonesAndData) {
  Create(HybridGeometry());
  ASSERT_OK(dev_->ActivateRealms(0, 1, ZoneDomain::kSmr));
  ASSERT_OK(dev_->ActivateRealms(2, 1, ZoneDomain::kSmr));
  ASSERT_OK(dev_->ActivateRealms(2, 1, ZoneDomain::kCmr));
  ASSERT_OK(dev_->ActivateRealms(2, 1, ZoneDomain::kSmr));
  ASSERT_OK(WritePattern(40, Start(SmrZone(0, 1)), 12 * kB));
  ASSERT_OK(dev_->FinishZones(SmrZone(2, 4), 1));
  FillCmr(1, 41);
  const std::vector<RealmInfo> realms = Realms();
  const std::vector<ZoneInfo> zones = Zones();
  Reopen();
  EXPECT_TRUE(Realms() == realms);
  EXPECT_TRUE(Zones() == zones);
  EXPECT_TRUE(HasPattern(40, Start(SmrZone(0, 1)), 12 * kB));
  EXPECT_TRUE(CmrHasPattern(1, 41));
  ASSERT_OK(WritePattern(40, Start(SmrZone(0, 1)) + 12 * kB, 4 * kB));
}

// A conversion stopped after each of its steps (as a kill -9 there would): the reopened
// drive has the realm in its old domain with its data intact, or in the new one, empty.
TEST_P(HybridDeviceTest, CrashAtEveryStepOfAConversionLeavesOldOrNewDomain) {
  for (ZoneDomain from : {ZoneDomain::kCmr, ZoneDomain::kSmr}) {
    const ZoneDomain to = from == ZoneDomain::kCmr ? ZoneDomain::kSmr : ZoneDomain::kCmr;
    for (int step = 0; step <= 3; ++step) {
      SCOPED_TRACE(std::string(ZoneDomainName(from)) + " -> " + ZoneDomainName(to) +
                   ", stopped after step " + std::to_string(step));
      dev_.reset();
      ::unlink(path().c_str());
      Create(HybridGeometry(5, from));
      // Data in realm 0 (the one converted, when it is CMR) and in realm 1 (never touched).
      if (from == ZoneDomain::kCmr) {
        FillCmr(0, 50);
        FillCmr(1, 51);
      } else {
        ASSERT_OK(WritePattern(51, Start(SmrZone(1, 0)), 8 * kB));
      }
      emu_->SetConversionStopAfterStepForTest(step);
      EXPECT_CODE(dev_->ActivateRealms(0, 1, to), kIOError);
      Reopen();

      const bool committed = step >= 2;  // the realm slot is written in step 2
      EXPECT_EQ(DomainOf(0), committed ? to : from);
      if (!committed && from == ZoneDomain::kCmr) {
        EXPECT_TRUE(CmrHasPattern(0, 50)) << "old domain's data lost";
      }
      if (committed && to == ZoneDomain::kCmr) {
        EXPECT_TRUE(CmrIsZero(0));
      }
      if (DomainOf(0) == ZoneDomain::kSmr) {
        ExpectDomainCondition(0, ZoneDomain::kSmr, ZoneCondition::kEmpty);
        for (uint32_t i = 0; i < kSmr; ++i) EXPECT_TRUE(IsZero(Start(SmrZone(0, i)), kMiB));
      }
      ExpectDomainCondition(0, committed ? from : to, ZoneCondition::kInactive);
      // Realm 1 untouched.
      if (from == ZoneDomain::kCmr) {
        EXPECT_TRUE(CmrHasPattern(1, 51));
      } else {
        EXPECT_TRUE(HasPattern(51, Start(SmrZone(1, 0)), 8 * kB));
      }
      // The drive goes on working, and a conversion brings up empty zones also when the
      // crash left the old domain's bytes in the file (stopped before step 3).
      if (DomainOf(0) == ZoneDomain::kSmr) {
        ASSERT_OK(dev_->ActivateRealms(0, 1, ZoneDomain::kCmr));
        EXPECT_TRUE(CmrIsZero(0)) << "the old CMR data came back";
      } else {
        ASSERT_OK(dev_->ActivateRealms(0, 1, ZoneDomain::kSmr));
        ExpectDomainCondition(0, ZoneDomain::kSmr, ZoneCondition::kEmpty);
        ASSERT_OK(dev_->ActivateRealms(0, 1, ZoneDomain::kCmr));
        EXPECT_TRUE(CmrIsZero(0));
      }
    }
  }
}

TEST_P(HybridDeviceTest, TornRealmSlotFallsBackToTheOlderSlot) {
  Create(HybridGeometry());
  ASSERT_OK(dev_->ActivateRealms(1, 1, ZoneDomain::kSmr));  // realm slot seq 1: smr
  ASSERT_OK(dev_->ActivateRealms(1, 1, ZoneDomain::kCmr));  // realm slot seq 2: cmr
  dev_.reset();

  // Find realm 1's newer slot in the file and tear it (a partial 32-byte write).
  const uint64_t table = emufmt::RealmTableOffsetFor(kZones);
  std::string file = ReadAt(path(), 0, emufmt::DataOffsetFor(kZones, kRealms));
  uint64_t newest_off = 0, newest_seq = 0, older_seq = 0;
  for (uint32_t s = 0; s < emufmt::kSlotsPerRealm; ++s) {
    const uint64_t off = table + (1 * emufmt::kSlotsPerRealm + s) * emufmt::kSlotSize;
    auto slot = emufmt::DecodeRealmSlot(file.data() + off, 1);
    ASSERT_TRUE(slot.has_value()) << "slot " << s;
    if (slot->seq > newest_seq) {
      older_seq = newest_seq;
      newest_seq = slot->seq;
      newest_off = off;
    } else {
      older_seq = slot->seq;
    }
  }
  EXPECT_EQ(newest_seq, 2u);
  EXPECT_EQ(older_seq, 1u);
  // The second half never landed.
  ASSERT_TRUE(WriteAt(path(), newest_off + 16, std::string(16, '\x5a')));
  Reopen();
  EXPECT_EQ(DomainOf(1), ZoneDomain::kSmr);
  ExpectDomainCondition(1, ZoneDomain::kSmr, ZoneCondition::kEmpty);
  ExpectDomainCondition(1, ZoneDomain::kCmr, ZoneCondition::kInactive);
  ASSERT_OK(WritePattern(60, Start(SmrZone(1, 0)), 4 * kB));
  ASSERT_OK(dev_->ResetZones(SmrZone(1, 0), 1));

  // Both slots torn: the realm is in the drive's initial domain.
  dev_.reset();
  for (uint32_t s = 0; s < emufmt::kSlotsPerRealm; ++s) {
    const uint64_t off = table + (1 * emufmt::kSlotsPerRealm + s) * emufmt::kSlotSize + 3;
    ASSERT_TRUE(WriteAt(path(), off, std::string(1, '\x7f')));
  }
  Reopen();
  EXPECT_EQ(DomainOf(1), ZoneDomain::kCmr);
  // The next conversion writes a valid slot again.
  ASSERT_OK(dev_->ActivateRealms(1, 1, ZoneDomain::kSmr));
  Reopen();
  EXPECT_EQ(DomainOf(1), ZoneDomain::kSmr);
}

INSTANTIATE_TEST_SUITE_P(Backends, HybridDeviceTest,
                         ::testing::Values(HybridBackend{"emu", false},
                                           HybridBackend{"fault", true}),
                         [](const ::testing::TestParamInfo<HybridBackend>& info) {
                           return info.param.name;
                         });

// ---------------------------------------------------------------------------------------
// Geometry and file format (emulator only)

TEST(HybridGeometryTest, NormalizeDerivesTheZoneCountAndDefaults) {
  EmulatedGeometry g;
  g.nr_realms = 10;
  ASSERT_OK(g.Normalize());
  EXPECT_EQ(g.nr_conventional, 2u);
  EXPECT_EQ(g.cmr_zones_per_realm, 4u);
  EXPECT_EQ(g.smr_zones_per_realm, 5u);
  EXPECT_EQ(g.conversion_ms, 50u);
  EXPECT_EQ(g.initial_domain, ZoneDomain::kCmr);
  EXPECT_EQ(g.nr_zones, 2u + 10u * 9u);

  EmulatedGeometry given = HybridGeometry();
  given.nr_zones = kZones;
  ASSERT_OK(given.Normalize());
  EXPECT_EQ(given.nr_zones, kZones);

  EmulatedGeometry plain;
  ASSERT_OK(plain.Normalize());
  EXPECT_EQ(plain.nr_zones, 64u);
  EXPECT_FALSE(plain.hybrid());
}

TEST(HybridGeometryTest, NormalizeRejectsBadHybridGeometryNamingIt) {
  struct Case {
    std::string name;
    void (*mutate)(EmulatedGeometry*);
    std::string word;  // the message names the problem with it
  };
  const std::vector<Case> cases = {
      {"zone count that does not match", [](EmulatedGeometry* g) { g->nr_zones = kZones + 1; },
       "zones"},
      {"more CMR than SMR zones",
       [](EmulatedGeometry* g) {
         g->cmr_zones_per_realm = 6;
         g->smr_zones_per_realm = 5;
       },
       "SMR"},
      {"no CMR zone", [](EmulatedGeometry* g) { g->cmr_zones_per_realm = 0; }, "CMR"},
      {"one conventional zone", [](EmulatedGeometry* g) { g->nr_conventional = 1; },
       "conventional"},
      {"no conventional zone", [](EmulatedGeometry* g) { g->nr_conventional = 0; },
       "conventional"},
      {"endless conversion", [](EmulatedGeometry* g) { g->conversion_ms = 600001; },
       "conversion"},
      {"too many realms", [](EmulatedGeometry* g) { g->nr_realms = UINT32_MAX; }, "realms"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EmulatedGeometry g = HybridGeometry();
    c.mutate(&g);
    Status s = g.Normalize();
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.message().find(c.word), std::string::npos) << s.message();
    ScratchDir dir;
    EXPECT_CODE(EmulatedZonedDevice::Create(dir.path() + "/x.img", g).status(), kInvalidArgument);
  }
  EmulatedGeometry equal = HybridGeometry();  // cmr == smr is allowed
  equal.smr_zones_per_realm = equal.cmr_zones_per_realm;
  EXPECT_OK(equal.Normalize());
}

// The superblock of a drive that is not hybrid, as every build before hybrid drives wrote
// it (captured from such a build): zones=12, zone 1 MiB, conv 1, max_open 4, lbs 4096.
const unsigned char kV1Superblock[68] = {
    0x53, 0x4d, 0x53, 0x52, 0x45, 0x4d, 0x55, 0x31, 0x01, 0x00, 0x00, 0x00, 0x0c, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x04, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x9c, 0xfd, 0x5a, 0xff};

TEST(HybridFormatTest, DrivesThatAreNotHybridStayVersion1ByteForByte) {
  ScratchDir dir;
  const std::string path = dir.path() + "/v1.img";
  EmulatedGeometry g;
  g.nr_zones = 12;
  g.zone_size = kMiB;
  g.nr_conventional = 1;
  g.max_open_zones = 4;
  {
    auto r = EmulatedZonedDevice::Create(path, g);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  const std::string file = ReadFileBytes(path);
  ASSERT_EQ(file.size(), 13u * kMiB);  // 1 MiB of superblock + slot table, then the data
  std::string want(kMiB, '\0');
  std::memcpy(want.data(), kV1Superblock, sizeof(kV1Superblock));
  EXPECT_TRUE(file.compare(0, kMiB, want) == 0) << "the version-1 header area changed";
  auto dev = EmulatedZonedDevice::Open(path);
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  EXPECT_FALSE((*dev)->info().hybrid());
}

TEST(HybridFormatTest, HybridDrivesAreVersion2AndItsFieldsAreChecked) {
  ScratchDir dir;
  const std::string path = dir.path() + "/v2.img";
  {
    auto r = EmulatedZonedDevice::Create(path, HybridGeometry(7, ZoneDomain::kSmr));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  const std::string file = ReadAt(path, 0, emufmt::kSuperblockSize);
  ASSERT_EQ(file.size(), emufmt::kSuperblockSize);
  auto sb = emufmt::DecodeSuperblock(file.data());
  ASSERT_TRUE(sb.ok()) << sb.status().ToString();
  EXPECT_EQ(sb->version, emufmt::kHybridVersion);
  EXPECT_EQ(sb->nr_realms, kRealms);
  EXPECT_EQ(sb->cmr_zones_per_realm, kCmr);
  EXPECT_EQ(sb->smr_zones_per_realm, kSmr);
  EXPECT_EQ(sb->conversion_ms, 7u);
  EXPECT_EQ(sb->initial_domain, ZoneDomain::kSmr);
  EXPECT_EQ(sb->realm_table_offset, emufmt::RealmTableOffsetFor(kZones));
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), sb->data_offset + uint64_t{kZones} * kMiB);
  auto dev = EmulatedZonedDevice::Open(path);
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  EXPECT_EQ((*dev)->geometry().conversion_ms, 7u);
  EXPECT_EQ((*dev)->geometry().initial_domain, ZoneDomain::kSmr);
  dev->reset();

  // Each bad hybrid field, with correct crcs, is refused with kCorruption.
  struct Bad {
    const char* name;
    uint64_t offset;
    uint32_t value;
  };
  for (const Bad& bad : {Bad{"no realms", 72, 0}, Bad{"cmr 0", 76, 0},
                         Bad{"cmr > smr", 76, kSmr + 1}, Bad{"realm count", 72, kRealms + 1},
                         Bad{"conversion time", 84, 600001}, Bad{"domain", 88, 2},
                         Bad{"reserved", 68, 1}, Bad{"realm table", 96, 4096},
                         Bad{"version 3", 8, 3}}) {
    SCOPED_TRACE(bad.name);
    std::string block = file;
    if (bad.offset == 88) {
      block[88] = static_cast<char>(bad.value);
    } else {
      EncodeFixed32(block.data() + bad.offset, bad.value);
    }
    // The encoder writes valid values only: fix both crcs by hand.
    EncodeFixed32(block.data() + emufmt::kSuperblockCrcOffset,
                  crc32c::Value(block.data(), emufmt::kSuperblockCrcOffset));
    EncodeFixed32(block.data() + emufmt::kHybridCrcOffset,
                  crc32c::Value(block.data(), emufmt::kHybridCrcOffset));
    Result<emufmt::Superblock> again = emufmt::DecodeSuperblock(block.data());
    ASSERT_FALSE(again.ok());
    EXPECT_TRUE(again.status().IsCorruption()) << again.status().ToString();
    EXPECT_EQ(again.status().message().find("checksum"), std::string::npos)
        << again.status().ToString();
    ASSERT_TRUE(WriteAt(path, 0, block));
    EXPECT_CODE(EmulatedZonedDevice::Open(path).status(), kCorruption);
    ASSERT_TRUE(WriteAt(path, 0, file));
  }
}

// ---------------------------------------------------------------------------------------
// FaultInjectionDevice's hybrid rules

class HybridFaultInjectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto r = EmulatedZonedDevice::Create(dir_.path() + "/f.img", HybridGeometry());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    dev_ = std::make_unique<FaultInjectionDevice>(std::move(r).value());
  }
  Status WritePattern(uint64_t seed, uint64_t off, size_t len) {
    std::vector<char> buf(len);
    FillPattern(seed, off, buf.data(), len);
    return dev_->Write(off, buf.data(), len);
  }
  bool HasPattern(uint64_t seed, uint64_t off, size_t len) {
    std::vector<char> buf(len);
    Status s = dev_->Read(off, buf.data(), len);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return s.ok() && CheckPattern(seed, off, buf.data(), len);
  }
  bool IsZero(uint64_t off, size_t len) {
    std::vector<char> buf(len, 1);
    Status s = dev_->Read(off, buf.data(), len);
    EXPECT_TRUE(s.ok()) << s.ToString();
    for (char c : buf) {
      if (c != 0) return false;
    }
    return s.ok();
  }
  ZoneDomain DomainOf(uint32_t realm) {
    auto r = dev_->ReportRealms(realm, 1);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? (*r)[0].domain : ZoneDomain::kCmr;
  }

  ScratchDir dir_;
  std::unique_ptr<FaultInjectionDevice> dev_;
};

TEST_F(HybridFaultInjectionTest, AZoneFaultInARealmFailsItsConversionAndChangesNothing) {
  ASSERT_OK(WritePattern(1, Start(CmrZone(1, 0)), 4 * kB));
  for (uint32_t zone : {CmrZone(1, 3), SmrZone(1, 0)}) {
    for (ZoneCondition cond : {ZoneCondition::kReadOnly, ZoneCondition::kOffline}) {
      SCOPED_TRACE("zone " + std::to_string(zone) + " " + ZoneConditionName(cond));
      dev_->SetZoneFault(zone, cond);
      EXPECT_CODE(dev_->ActivateRealms(0, 2, ZoneDomain::kSmr), kIOError);
      EXPECT_EQ(DomainOf(0), ZoneDomain::kCmr);
      EXPECT_EQ(DomainOf(1), ZoneDomain::kCmr);
      EXPECT_TRUE(HasPattern(1, Start(CmrZone(1, 0)), 4 * kB));
      dev_->ClearZoneFault(zone);
    }
  }
  // A fault in a realm the call leaves as it is does not matter.
  dev_->SetZoneFault(CmrZone(2, 0), ZoneCondition::kOffline);
  ASSERT_OK(dev_->ActivateRealms(2, 1, ZoneDomain::kCmr));
  ASSERT_OK(dev_->ActivateRealms(0, 1, ZoneDomain::kSmr));
  EXPECT_EQ(DomainOf(0), ZoneDomain::kSmr);
}

TEST_F(HybridFaultInjectionTest, FailNthActivateFailsThatOneWithNoEffect) {
  dev_->FailNthActivate(2);
  ASSERT_OK(dev_->ActivateRealms(0, 1, ZoneDomain::kSmr));
  EXPECT_CODE(dev_->ActivateRealms(1, 1, ZoneDomain::kSmr), kIOError);
  EXPECT_EQ(DomainOf(1), ZoneDomain::kCmr);
  EXPECT_EQ(dev_->injected_errors(), 1u);
  ASSERT_OK(dev_->ActivateRealms(1, 1, ZoneDomain::kSmr));
  EXPECT_EQ(DomainOf(1), ZoneDomain::kSmr);

  dev_->FailNthActivate(1, /*sticky=*/true);
  EXPECT_CODE(dev_->ActivateRealms(2, 1, ZoneDomain::kSmr), kIOError);
  EXPECT_CODE(dev_->ActivateRealms(2, 1, ZoneDomain::kSmr), kIOError);
  EXPECT_EQ(DomainOf(2), ZoneDomain::kCmr);
  dev_->ClearFaults();
  ASSERT_OK(dev_->ActivateRealms(2, 1, ZoneDomain::kSmr));
  EXPECT_EQ(dev_->injected_errors(), 3u);
}

TEST_F(HybridFaultInjectionTest, PowerCutAfterAConversionNeitherUndoesItNorResurrectsData) {
  // Flushed data everywhere, then unflushed writes: one spanning permanent zone 1 and
  // realm 0's first CMR zone, one in realm 1, one in realm 2.
  const uint64_t span = Start(CmrZone(0, 0)) - 4 * kB;
  ASSERT_OK(WritePattern(1, span, 8 * kB));
  ASSERT_OK(WritePattern(2, Start(CmrZone(1, 0)), 8 * kB));
  ASSERT_OK(WritePattern(3, Start(CmrZone(2, 0)), 8 * kB));
  ASSERT_OK(dev_->Flush());
  ASSERT_OK(WritePattern(11, span, 8 * kB));
  ASSERT_OK(WritePattern(12, Start(CmrZone(1, 0)), 8 * kB));
  ASSERT_OK(WritePattern(13, Start(CmrZone(2, 0)), 8 * kB));
  EXPECT_EQ(dev_->unflushed_bytes(), 24 * kB);

  // Realms 0 and 1 converted (1 twice: SMR and back to CMR, whose zones now read zeros).
  ASSERT_OK(dev_->ActivateRealms(0, 2, ZoneDomain::kSmr));
  ASSERT_OK(dev_->ActivateRealms(1, 1, ZoneDomain::kCmr));
  EXPECT_EQ(dev_->unflushed_bytes(), 4 * kB + 8 * kB);  // zone 1's half and realm 2's write
  ASSERT_OK(dev_->PowerCut());

  EXPECT_EQ(DomainOf(0), ZoneDomain::kSmr);
  EXPECT_EQ(DomainOf(1), ZoneDomain::kCmr);
  EXPECT_EQ(DomainOf(2), ZoneDomain::kCmr);
  EXPECT_TRUE(IsZero(Start(CmrZone(1, 0)), kMiB)) << "the power cut resurrected old data";
  EXPECT_TRUE(HasPattern(1, span, 4 * kB)) << "the permanent zone's unflushed write stayed";
  EXPECT_TRUE(HasPattern(3, Start(CmrZone(2, 0)), 8 * kB)) << "realm 2's write stayed";
  auto zones = dev_->ReportZones(SmrZone(0, 0), kSmr);
  ASSERT_TRUE(zones.ok()) << zones.status().ToString();
  for (const ZoneInfo& zi : *zones) EXPECT_EQ(zi.cond, ZoneCondition::kEmpty) << DescribeZone(zi);
  EXPECT_EQ(dev_->unflushed_bytes(), 0u);
}

TEST_F(HybridFaultInjectionTest, PowerCutWritesNoOldBytesIntoARealmConvertedAndBack) {
  ASSERT_OK(WritePattern(2, Start(CmrZone(1, 0)), 8 * kB));
  ASSERT_OK(dev_->Flush());
  ASSERT_OK(WritePattern(12, Start(CmrZone(1, 0)), 8 * kB));  // unflushed
  ASSERT_OK(dev_->ActivateRealms(1, 1, ZoneDomain::kSmr));
  ASSERT_OK(dev_->ActivateRealms(1, 1, ZoneDomain::kCmr));
  ASSERT_OK(dev_->PowerCut());
  EXPECT_EQ(DomainOf(1), ZoneDomain::kCmr);
  EXPECT_TRUE(IsZero(Start(CmrZone(1, 0)), kMiB)) << "the power cut resurrected old data";
}

TEST_F(HybridFaultInjectionTest, PowerCutRollsBackUnflushedSmrWritesOfOtherRealms) {
  ASSERT_OK(dev_->ActivateRealms(0, 2, ZoneDomain::kSmr));
  ASSERT_OK(WritePattern(1, Start(SmrZone(0, 0)), 8 * kB));
  ASSERT_OK(dev_->Flush());
  ASSERT_OK(WritePattern(2, Start(SmrZone(0, 0)) + 8 * kB, 8 * kB));
  ASSERT_OK(WritePattern(3, Start(SmrZone(1, 0)), 8 * kB));
  ASSERT_OK(dev_->ResetZones(SmrZone(1, 0), 1));
  ASSERT_OK(dev_->ActivateRealms(1, 1, ZoneDomain::kCmr));
  ASSERT_OK(dev_->PowerCut());
  auto z = dev_->ReportZones(SmrZone(0, 0), 1);
  ASSERT_TRUE(z.ok()) << z.status().ToString();
  EXPECT_EQ((*z)[0].wp, Start(SmrZone(0, 0)) + 8 * kB);
  EXPECT_TRUE(HasPattern(1, Start(SmrZone(0, 0)), 8 * kB));
  EXPECT_EQ(DomainOf(1), ZoneDomain::kCmr);
  EXPECT_TRUE(IsZero(Start(CmrZone(1, 0)), kMiB));
}

}  // namespace
}  // namespace smr
