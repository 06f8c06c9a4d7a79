// The superblock log (store/superblock_log.h) on its own: the newest copy is found after
// every write, in conventional rings (with a mirror) and in sequential zones that roll
// over; slots that do not hold a valid superblock are skipped.
#include "store/superblock_log.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/testing/test_util.h"
#include "device/device_spec.h"
#include "device/fault_injection_device.h"
#include "device/testing/device_test_backends.h"
#include "format/record.h"

namespace smr {
namespace {

constexpr uint64_t kZone = 1 << 20;  // 16 slots of 64 KiB

StoreSuperblock Sb(uint64_t sequence) {
  StoreSuperblock sb;
  sb.store_uuid[0] = 0x5a;
  sb.format_version = 1;
  sb.nr_drives = 1;
  sb.drive_uuids.resize(1);
  sb.drive_uuids[0][15] = 7;
  sb.sequence = sequence;
  sb.mount_count = sequence;
  sb.meta_path_hint = "/somewhere/meta";
  return sb;
}

class SuperblockLogTest : public ::testing::Test {
 protected:
  void Make(int conv, const std::string& extra = "", int zone_kib = 1024) {
    auto dev = CreateDevice("emu:" + dir_.path() + "/d.img?zones=8&zone_kib=" +
                            std::to_string(zone_kib) + "&conv=" +
                            std::to_string(conv) + "&max_open=8" + extra);
    ASSERT_TRUE(dev.ok()) << dev.status().ToString();
    dev_ = std::move(*dev);
  }
  // Wraps the drive in a fault-injecting device (it stays dev_) and returns the wrapper.
  FaultInjectionDevice* InjectFaults() {
    auto fault = std::make_unique<FaultInjectionDevice>(std::move(dev_));
    FaultInjectionDevice* f = fault.get();
    dev_ = std::move(fault);
    return f;
  }
  // Writes copies first..last in order.
  void WriteCopies(uint64_t first, uint64_t last) {
    for (uint64_t seq = first; seq <= last; ++seq) {
      ASSERT_OK(WriteSuperblock(dev_.get(), reserved_, Sb(seq)));
    }
  }
  uint64_t Newest() {
    auto sb = ReadSuperblock(dev_.get(), reserved_);
    EXPECT_TRUE(sb.ok()) << sb.status().ToString();
    if (!sb.ok() || !sb->has_value()) return 0;
    return (*sb)->sequence;
  }
  ZoneInfo Zone(uint32_t z) {
    auto r = dev_->ReportZones(z, 1);
    EXPECT_TRUE(r.ok());
    return r.ok() ? (*r)[0] : ZoneInfo{};
  }

  smr::testing::ScratchDir dir_;
  std::unique_ptr<ZonedDevice> dev_;
  std::vector<uint32_t> reserved_ = {0, 1};
};

TEST_F(SuperblockLogTest, NoReservedZones) {
  Make(2);
  EXPECT_CODE(WriteSuperblock(dev_.get(), {}, Sb(1)), kInvalidArgument);
  auto sb = ReadSuperblock(dev_.get(), {});
  ASSERT_TRUE(sb.ok());
  EXPECT_FALSE(sb->has_value());
}

TEST_F(SuperblockLogTest, AnEmptyLogHasNoSuperblock) {
  Make(0);
  auto sb = ReadSuperblock(dev_.get(), reserved_);
  ASSERT_TRUE(sb.ok()) << sb.status().ToString();
  EXPECT_FALSE(sb->has_value());
}

// Sequential reserved zones, through several roll-overs: the newest copy is read back
// after every write, and the whole copy round-trips.
TEST_F(SuperblockLogTest, SequentialZonesRollOverAndKeepTheNewestReadable) {
  Make(0);
  for (uint64_t seq = 1; seq <= 60; ++seq) {
    ASSERT_OK(WriteSuperblock(dev_.get(), reserved_, Sb(seq)));
    ASSERT_EQ(Newest(), seq) << "after writing copy " << seq;
  }
  auto sb = ReadSuperblock(dev_.get(), reserved_);
  ASSERT_TRUE(sb.ok() && sb->has_value());
  EXPECT_EQ(**sb, Sb(60));
}

// When a sequential zone has room for no more copy, the next copy goes to the other zone
// (reset first) and the old zone is finished; the newest copy is never destroyed first.
TEST_F(SuperblockLogTest, SequentialRollOverResetsTheOlderZoneOnly) {
  Make(0);
  WriteCopies(1, 16);
  EXPECT_EQ(Zone(0).cond, ZoneCondition::kFull);
  EXPECT_EQ(Zone(1).cond, ZoneCondition::kEmpty);
  ASSERT_OK(WriteSuperblock(dev_.get(), reserved_, Sb(17)));
  EXPECT_EQ(Zone(0).cond, ZoneCondition::kFull);  // the older copies stay until the next roll
  EXPECT_EQ(Zone(1).wp - Zone(1).start, kSuperblockSlot);
  WriteCopies(18, 32);
  EXPECT_EQ(Zone(1).cond, ZoneCondition::kFull);
  ASSERT_OK(WriteSuperblock(dev_.get(), reserved_, Sb(33)));
  EXPECT_EQ(Zone(0).wp - Zone(0).start, kSuperblockSlot);  // zone 0 was reset and reused
  EXPECT_EQ(Zone(1).cond, ZoneCondition::kFull);
  EXPECT_EQ(Newest(), 33u);
}

// Both zones full: the roll-over resets the zone of the older copies. A write that fails
// (power lost) right after that reset leaves the newest copy readable.
TEST_F(SuperblockLogTest, AFailedWriteAfterARollOverLosesNoNewerCopy) {
  Make(0);
  FaultInjectionDevice* f = InjectFaults();
  WriteCopies(1, 32);
  ASSERT_EQ(Zone(0).cond, ZoneCondition::kFull);  // copies 1..16
  ASSERT_EQ(Zone(1).cond, ZoneCondition::kFull);  // copies 17..32
  f->FailNthWrite(1);
  EXPECT_FALSE(WriteSuperblock(dev_.get(), reserved_, Sb(33)).ok());
  EXPECT_EQ(Newest(), 32u);
  EXPECT_EQ(Zone(1).cond, ZoneCondition::kFull);
  // The log goes on from there.
  ASSERT_OK(WriteSuperblock(dev_.get(), reserved_, Sb(33)));
  EXPECT_EQ(Newest(), 33u);
}

// Both sequential zones full and the older zone's last copy unreadable (a media error):
// that zone still counts as the older one and is the one reset, so a write failing right
// after the reset leaves the newest copies readable.
TEST_F(SuperblockLogTest, AnUnreadableLastCopyMakesItsZoneTheOlderOne) {
  Make(0);
  FaultInjectionDevice* f = InjectFaults();
  WriteCopies(1, 32);
  ASSERT_EQ(Zone(0).cond, ZoneCondition::kFull);  // copies 1..16
  ASSERT_EQ(Zone(1).cond, ZoneCondition::kFull);  // copies 17..32
  const ZoneInfo z0 = Zone(0);
  f->CorruptReads(z0.start + (z0.capacity / kSuperblockSlot - 1) * kSuperblockSlot,
                  kSuperblockSlot);  // copy 16 reads back damaged
  f->FailNthWrite(1);
  EXPECT_FALSE(WriteSuperblock(dev_.get(), reserved_, Sb(33)).ok());
  EXPECT_EQ(Newest(), 32u) << "the zone holding the newest copies was reset";
  EXPECT_EQ(Zone(1).cond, ZoneCondition::kFull);
}

// After a roll-over the first zone holds the newer copies: with both full again, the
// second zone is the one reset (a failed write right after it keeps copy 48).
TEST_F(SuperblockLogTest, WhenTheFirstZoneHoldsTheNewerCopiesTheSecondIsReset) {
  Make(0);
  FaultInjectionDevice* f = InjectFaults();
  WriteCopies(1, 48);
  ASSERT_EQ(Zone(0).cond, ZoneCondition::kFull);  // copies 33..48
  ASSERT_EQ(Zone(1).cond, ZoneCondition::kFull);  // copies 17..32
  f->FailNthWrite(1);
  EXPECT_FALSE(WriteSuperblock(dev_.get(), reserved_, Sb(49)).ok());
  EXPECT_EQ(Newest(), 48u) << "the zone holding the newest copies was reset";
  EXPECT_EQ(Zone(0).cond, ZoneCondition::kFull);
  ASSERT_OK(WriteSuperblock(dev_.get(), reserved_, Sb(49)));
  EXPECT_EQ(Newest(), 49u);
}

// Zones whose capacity is not a multiple of the slot: the zone left with less than a slot
// is finished at the roll-over, so it is never taken for the zone in use again — else a
// later roll-over would reset the zone holding the newest copies.
TEST_F(SuperblockLogTest, AZoneLeftWithLessThanASlotIsFinishedAtTheRollOver) {
  Make(0, "&cap_kib=1000");  // 15 slots and 40 KiB per zone
  FaultInjectionDevice* f = InjectFaults();
  for (uint64_t seq = 1; seq <= 45; ++seq) {
    ASSERT_OK(WriteSuperblock(dev_.get(), reserved_, Sb(seq)));
    ASSERT_EQ(Newest(), seq);
  }
  f->FailNthWrite(1);
  EXPECT_FALSE(WriteSuperblock(dev_.get(), reserved_, Sb(46)).ok());
  EXPECT_EQ(Newest(), 45u) << "the zone holding the newest copies was reset";
}

// The roll-over from a zone with less than a slot left goes to the *other* zone, whichever
// of the two is in use: a failed write right after it keeps every copy it had.
TEST_F(SuperblockLogTest, ARollOverFromEitherZoneResetsOnlyTheOther) {
  Make(0, "&cap_kib=1000");  // 15 slots and 40 KiB per zone
  FaultInjectionDevice* f = InjectFaults();
  WriteCopies(1, 15);
  f->FailNthWrite(1);  // rolling over from the first zone
  EXPECT_FALSE(WriteSuperblock(dev_.get(), reserved_, Sb(16)).ok());
  EXPECT_EQ(Newest(), 15u) << "the roll-over from the first zone reset the first zone";
  WriteCopies(16, 30);
  f->FailNthWrite(1);  // rolling over from the second zone
  EXPECT_FALSE(WriteSuperblock(dev_.get(), reserved_, Sb(31)).ok());
  EXPECT_EQ(Newest(), 30u) << "the roll-over from the second zone reset the second zone";
  ASSERT_OK(WriteSuperblock(dev_.get(), reserved_, Sb(31)));
  EXPECT_EQ(Newest(), 31u);
}

// A conventional zone holds a ring of 16 slots; whatever lies beyond it (a copy of another
// layout) is not read.
TEST_F(SuperblockLogTest, OnlyTheRingOfAConventionalZoneIsRead) {
  Make(2, "", 2048);  // 32 slots per zone
  ASSERT_OK(WriteSuperblock(dev_.get(), reserved_, Sb(1)));
  RecordHeader h;
  h.type = RecordType::kSuperblock;
  h.seq = 500;
  std::string rec;
  AppendRecord(h, EncodeStoreSuperblock(Sb(500)), &rec);
  rec.resize(kSuperblockSlot, '\0');
  ASSERT_OK(dev_->Write(Zone(0).start + 20 * kSuperblockSlot, rec.data(), rec.size()));
  EXPECT_EQ(Newest(), 1u);
}

// Zone capacity below the zone size: a full sequential zone is read up to its capacity.
TEST_F(SuperblockLogTest, SequentialZonesWithACapacityBelowTheirSize) {
  Make(0, "&cap_kib=768");  // 12 slots per zone
  for (uint64_t seq = 1; seq <= 30; ++seq) {
    ASSERT_OK(WriteSuperblock(dev_.get(), reserved_, Sb(seq)));
    ASSERT_EQ(Newest(), seq);
  }
}

// A zone left open and partly written (a crash between rolls) is the one in use.
TEST_F(SuperblockLogTest, APartlyWrittenZoneIsAppendedTo) {
  Make(0);
  ASSERT_OK(WriteSuperblock(dev_.get(), reserved_, Sb(1)));
  ASSERT_OK(WriteSuperblock(dev_.get(), reserved_, Sb(2)));
  // Copies elsewhere do not move the log: only zone 0 holds data.
  EXPECT_EQ(Zone(0).wp - Zone(0).start, 2 * kSuperblockSlot);
  EXPECT_EQ(Zone(1).cond, ZoneCondition::kEmpty);
  // The log in zone 1 (as after a roll-over) continues there.
  ASSERT_OK(dev_->ResetZones(0, 1));
  ASSERT_OK(WriteSuperblock(dev_.get(), {1, 2}, Sb(3)));
  ASSERT_OK(WriteSuperblock(dev_.get(), {1, 2}, Sb(4)));
  EXPECT_EQ(Zone(1).wp - Zone(1).start, 2 * kSuperblockSlot);
  EXPECT_EQ(Zone(2).cond, ZoneCondition::kEmpty);
}

// Conventional reserved zones: a ring of 16 slots in each, the second a mirror; copy n is
// in slot n % 16 of both. Losing one ring loses nothing.
TEST_F(SuperblockLogTest, ConventionalRingsAreMirrored) {
  Make(2);
  for (uint64_t seq = 1; seq <= 40; ++seq) {
    ASSERT_OK(WriteSuperblock(dev_.get(), reserved_, Sb(seq)));
    ASSERT_EQ(Newest(), seq);
  }
  // Slot 40 % 16 = 8 of each ring holds copy 40.
  for (uint32_t z : reserved_) {
    std::string slot(kSuperblockSlot, '\0');
    ASSERT_OK(dev_->Read(Zone(z).start + 8 * kSuperblockSlot, slot.data(), slot.size()));
    auto h = DecodeRecordHeader(slot.data());
    ASSERT_TRUE(h.ok()) << "zone " << z << ": " << h.status().ToString();
    EXPECT_EQ(h->seq, 40u);
  }
  // Wipe the first ring: the mirror still has the newest copy.
  const std::string zeros(kZone, '\0');
  ASSERT_OK(dev_->Write(Zone(0).start, zeros.data(), zeros.size()));
  EXPECT_EQ(Newest(), 40u);
  // And the other way round.
  ASSERT_OK(WriteSuperblock(dev_.get(), reserved_, Sb(41)));
  ASSERT_OK(dev_->Write(Zone(1).start, zeros.data(), zeros.size()));
  EXPECT_EQ(Newest(), 41u);
}

// Slots holding something else than a valid superblock record are skipped: a record of
// another type, a superblock whose payload fails its crc, a torn (zeroed) newest copy.
TEST_F(SuperblockLogTest, InvalidSlotsAreSkipped) {
  Make(2);
  for (uint64_t seq = 1; seq <= 3; ++seq) ASSERT_OK(WriteSuperblock(dev_.get(), {0}, Sb(seq)));
  ASSERT_EQ(Newest(), 3u);
  const uint64_t slot3 = Zone(0).start + 3 * kSuperblockSlot;
  // A data record with a higher seq in slot 3.
  {
    RecordHeader h;
    h.type = RecordType::kData;
    h.seq = 99;
    std::string rec;
    AppendRecord(h, EncodeStoreSuperblock(Sb(99)), &rec);  // a valid superblock, wrong type
    rec.resize(kSuperblockSlot, '\0');
    ASSERT_OK(dev_->Write(slot3, rec.data(), rec.size()));
    EXPECT_EQ(Newest(), 2u);
  }
  // A superblock record whose payload was damaged after the header.
  {
    RecordHeader h;
    h.type = RecordType::kSuperblock;
    h.seq = 98;
    std::string rec;
    AppendRecord(h, EncodeStoreSuperblock(Sb(98)), &rec);
    rec[4096 + 40] ^= 1;
    rec.resize(kSuperblockSlot, '\0');
    ASSERT_OK(dev_->Write(slot3, rec.data(), rec.size()));
    EXPECT_EQ(Newest(), 2u);
  }
  // A record claiming more than one slot.
  {
    RecordHeader h;
    h.type = RecordType::kSuperblock;
    h.seq = 97;
    std::string rec;
    std::string payload = EncodeStoreSuperblock(Sb(97));
    AppendRecord(h, payload + std::string(kSuperblockSlot, 'p'), &rec);
    ASSERT_OK(dev_->Write(slot3, rec.data(), kSuperblockSlot));
    EXPECT_EQ(Newest(), 2u);
  }
}

}  // namespace
}  // namespace smr
