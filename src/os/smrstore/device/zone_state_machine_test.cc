// ZoneStateMachine on its own (the rules the emulated and libzbd backends share): what a
// restored state may be, what opening a full zone does, and what a refused write says.
// The device conformance suite covers the same rules through whole devices.
#include "device/zone_state_machine.h"

#include <gtest/gtest.h>

#include <vector>

#include "common/testing/test_util.h"

namespace smr {
namespace {

constexpr uint64_t kZone = 1 << 20;

DeviceInfo SmallDrive() {
  DeviceInfo info;
  info.nr_zones = 8;
  info.zone_size = kZone;
  info.zone_capacity = kZone;
  info.nr_conventional = 1;
  info.logical_block_size = 4096;
  info.max_open_zones = 4;
  return info;
}

// Writes `len` bytes at zone `z`'s write pointer through the two phases.
Status WriteAtWp(ZoneStateMachine* m, uint32_t z, uint64_t len) {
  std::vector<uint32_t> changed, to_close;
  const uint64_t at = uint64_t{z} * kZone + m->written(z);
  Status st = m->BeginWrite(at, len, &changed, &to_close);
  if (st.ok()) m->EndWrite(z, len, true, &changed);
  return st;
}

TEST(ZoneStateMachine, RestoreRefusesAnEmptyZoneWithData) {
  ZoneStateMachine m(SmallDrive());
  EXPECT_CODE(m.Restore(2, 4096, ZoneCondition::kEmpty), kCorruption);
  // Refused: the zone is still the empty zone it was.
  EXPECT_EQ(m.condition(2), ZoneCondition::kEmpty);
  EXPECT_EQ(m.written(2), 0u);
  EXPECT_OK(m.Restore(2, 0, ZoneCondition::kEmpty));
  EXPECT_OK(m.Restore(3, 4096, ZoneCondition::kClosed));
  EXPECT_EQ(m.written(3), 4096u);
}

TEST(ZoneStateMachine, OpeningAFullZoneLeavesItFull) {
  ZoneStateMachine m(SmallDrive());
  ASSERT_OK(WriteAtWp(&m, 2, kZone));
  ASSERT_EQ(m.condition(2), ZoneCondition::kFull);
  const uint32_t open_before = m.nr_open(), active_before = m.nr_active();
  std::vector<uint32_t> changed, to_close;
  ASSERT_OK(m.Open(2, &changed, &to_close));
  EXPECT_EQ(m.condition(2), ZoneCondition::kFull);
  EXPECT_EQ(m.Info(2).wp, 2 * kZone + kZone);
  EXPECT_EQ(m.nr_open(), open_before);
  EXPECT_EQ(m.nr_active(), active_before);
  EXPECT_TRUE(changed.empty());
  EXPECT_TRUE(to_close.empty());
  // Still refuses writes as a full zone does.
  std::vector<uint32_t> c2, t2;
  EXPECT_FALSE(m.BeginWrite(2 * kZone, 4096, &c2, &t2).ok());
}

TEST(ZoneStateMachine, AWriteTooLargeSaysHowManyBytesAreLeft) {
  DeviceInfo info = SmallDrive();
  info.zone_capacity = kZone - 256 * 1024;  // capacity < size: the write fits the zone's LBAs
  ZoneStateMachine m(info);
  ASSERT_OK(WriteAtWp(&m, 2, info.zone_capacity - 8192));
  std::vector<uint32_t> changed, to_close;
  Status st = m.BeginWrite(2 * kZone + info.zone_capacity - 8192, 16384, &changed, &to_close);
  EXPECT_TRUE(st.code() == Status::Code::kNoSpace) << st.ToString();
  // The operator reads the room left in the message.
  EXPECT_NE(st.ToString().find("exceeds the 8192 bytes left in"), std::string::npos)
      << st.ToString();
}

TEST(ZoneStateMachine, ZoneOpsRefuseReadOnlyAndOfflineZonesAndZonesBeingWritten) {
  ZoneStateMachine m(SmallDrive());
  ASSERT_OK(m.Restore(3, 8192, ZoneCondition::kReadOnly));
  ASSERT_OK(m.Restore(4, 0, ZoneCondition::kOffline));
  Status st = m.CheckZoneOp(3, 1, "reset");
  EXPECT_TRUE(st.code() == Status::Code::kIOError) << st.ToString();
  // The operator is told which zone and why.
  EXPECT_NE(st.ToString().find("reset: zone 3 is "), std::string::npos) << st.ToString();
  EXPECT_CODE(m.CheckZoneOp(2, 3, "finish"), kIOError);  // zone 4 in the range is offline
  EXPECT_OK(m.CheckZoneOp(5, 3, "finish"));
  EXPECT_CODE(m.CheckZoneOp(0, 1, "open"), kInvalidArgument);  // conventional

  std::vector<uint32_t> changed, to_close;
  ASSERT_OK(m.BeginWrite(5 * kZone, 4096, &changed, &to_close));
  EXPECT_CODE(m.CheckZoneOp(5, 1, "reset"), kIOError);  // a write is in flight
  m.EndWrite(5, 4096, true, &changed);
  EXPECT_OK(m.CheckZoneOp(5, 1, "reset"));
}

// A write that failed leaves its zone implicitly open at write pointer 0; when the open
// limit makes the machine close it, it is empty again, not a closed (active) zone.
TEST(ZoneStateMachine, ClosingAnImplicitlyOpenZoneWithNothingWrittenMakesItEmpty) {
  DeviceInfo info = SmallDrive();
  info.max_open_zones = 1;
  ZoneStateMachine m(info);
  std::vector<uint32_t> changed, to_close;
  ASSERT_OK(m.BeginWrite(2 * kZone, 4096, &changed, &to_close));
  m.EndWrite(2, 4096, /*ok=*/false, &changed);
  ASSERT_EQ(m.condition(2), ZoneCondition::kImplicitOpen);
  ASSERT_EQ(m.written(2), 0u);
  ASSERT_OK(WriteAtWp(&m, 3, 4096));  // needs zone 2's open slot
  EXPECT_EQ(m.condition(2), ZoneCondition::kEmpty);
  EXPECT_EQ(m.nr_active(), 1u);  // only zone 3
  EXPECT_EQ(m.nr_open(), 1u);
}

// Hybrid drives: the CMR domain is conventional; inactive zones report kInactive, refuse
// writes and zone operations with kIOError and never count as open or active.
TEST(ZoneStateMachine, InactiveZonesOfAHybridDrive) {
  DeviceInfo info = SmallDrive();
  info.nr_conventional = 2;
  info.nr_realms = 1;
  info.cmr_zones_per_realm = 2;
  info.smr_zones_per_realm = 3;
  info.cmr_first_zone = 2;
  info.smr_first_zone = 4;
  info.nr_zones = 7;
  info.max_active_zones = 1;
  ZoneStateMachine m(info);
  EXPECT_TRUE(m.is_conventional(2));
  EXPECT_TRUE(m.is_conventional(3));
  EXPECT_FALSE(m.is_conventional(4));

  m.SetInactive(3, true);
  m.SetInactive(5, true);
  const ZoneInfo cmr = m.Info(3);
  EXPECT_EQ(cmr.cond, ZoneCondition::kInactive);
  EXPECT_EQ(cmr.type, ZoneType::kConventional);
  EXPECT_EQ(cmr.wp, cmr.start);
  const ZoneInfo smr = m.Info(5);
  EXPECT_EQ(smr.cond, ZoneCondition::kInactive);
  EXPECT_EQ(smr.type, ZoneType::kSequentialRequired);
  EXPECT_EQ(smr.wp, smr.start);
  std::vector<uint32_t> changed, to_close;
  EXPECT_CODE(m.BeginWrite(5 * kZone, 4096, &changed, &to_close), kIOError);
  EXPECT_CODE(m.CheckZoneOp(5, 1, "open"), kIOError);
  EXPECT_CODE(m.CheckZoneOp(3, 1, "open"), kIOError);      // inactive before conventional
  EXPECT_CODE(m.CheckZoneOp(2, 1, "open"), kInvalidArgument);
  EXPECT_EQ(m.nr_active(), 0u);

  // Active again: an empty sequential zone, within the active limit.
  m.SetInactive(5, false);
  EXPECT_EQ(m.Info(5).cond, ZoneCondition::kEmpty);
  ASSERT_OK(WriteAtWp(&m, 5, 4096));
  EXPECT_EQ(m.nr_active(), 1u);
  EXPECT_CODE(WriteAtWp(&m, 6, 4096), kTooManyActiveZones);
  m.SetInactive(3, false);
  EXPECT_EQ(m.Info(3).cond, ZoneCondition::kNotWritePointer);
}

// Restore refuses a zone number past the drive (kCorruption, naming it) instead of
// touching state it does not have: the emulator's state file or a drive's report may
// name one.
TEST(ZoneStateMachine, RestoreRefusesAZonePastTheDrive) {
  ZoneStateMachine m(SmallDrive());  // zones 0-7
  Status st = m.Restore(8, 0, ZoneCondition::kEmpty);
  EXPECT_CODE(st, kCorruption);
  EXPECT_NE(st.ToString().find("zone 8: no sequential zone to restore"), std::string::npos)
      << st.ToString();
  EXPECT_CODE(m.Restore(1000, 4096, ZoneCondition::kClosed), kCorruption);
  EXPECT_CODE(m.Restore(0, 0, ZoneCondition::kEmpty), kCorruption);  // conventional
  EXPECT_OK(m.Restore(7, 4096, ZoneCondition::kClosed));
}

// With every open slot taken by explicitly open zones (none to close), opening one more
// fails with kTooManyOpenZones, and the error says the count and the drive's limit (what
// an operator reads to see which limit was hit).
TEST(ZoneStateMachine, OpeningPastTheOpenLimitSaysTheLimit) {
  ZoneStateMachine m(SmallDrive());  // max_open_zones 4
  std::vector<uint32_t> changed, to_close;
  for (uint32_t z = 1; z <= 4; ++z) ASSERT_OK(m.Open(z, &changed, &to_close));
  Status st = m.Open(5, &changed, &to_close);
  EXPECT_CODE(st, kTooManyOpenZones);
  EXPECT_NE(st.ToString().find("zone 5: 4 zones explicitly open, the device limit is 4"),
            std::string::npos)
      << st.ToString();
  EXPECT_TRUE(to_close.empty());
  EXPECT_EQ(m.condition(5), ZoneCondition::kEmpty);
}

// A DeviceInfo that claims more conventional zones than the drive has (a report no backend
// should pass on, but the machine must not believe past its zones): every zone is
// conventional and nothing past the last zone is touched (_GLIBCXX_ASSERTIONS, on in every
// build, aborts on an index past a vector's end).
TEST(ZoneStateMachine, MoreConventionalZonesThanZonesMarksOnlyTheDrivesZones) {
  DeviceInfo info = SmallDrive();
  info.nr_conventional = info.nr_zones + 2;
  ZoneStateMachine m(info);
  for (uint32_t z = 0; z < info.nr_zones; ++z) {
    EXPECT_TRUE(m.is_conventional(z)) << "zone " << z;
    EXPECT_EQ(m.Info(z).cond, ZoneCondition::kNotWritePointer) << "zone " << z;
  }
  EXPECT_EQ(m.nr_open(), 0u);
  EXPECT_EQ(m.nr_active(), 0u);
}

}  // namespace
}  // namespace smr
