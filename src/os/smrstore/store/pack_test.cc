// Pack records (format/record.h, RecordType::kPack; StoreOptions::pack_max): the small
// writes of a commit group share blocks, so a 4 KiB object costs about 4 KiB of zone space
// rather than 8 (header block + payload); every entry keeps its own crc, reads back after a
// remount, is checked by deep fsck and moved by GC into new packs; the store counts the
// packs its committed groups wrote (StoreCounters pack_*, the stats document's io.pack_*).
#include <gtest/gtest.h>

#include <filesystem>
#include <future>
#include <string>
#include <vector>

#include "common/pattern.h"
#include "common/testing/test_util.h"
#include "device/fault_injection_device.h"
#include "device/testing/borrowed_device.h"
#include "device/testing/device_test_backends.h"
#include "device/device_spec.h"
#include "store/store.h"

namespace smr {
namespace {

using testing::ScratchDir;

ObjectId Obj(int i) {
  ObjectId o;
  o.pool = 1;
  o.name = "small" + std::to_string(i);
  o.hash = static_cast<uint32_t>(i);
  return o;
}

std::string Data(uint64_t seed, size_t n) {
  std::string s(n, '\0');
  FillPattern(seed, 0, s.data(), n);
  return s;
}

// The device offset of the first copy of `needle` on the drive (read in 4 MiB steps; a
// copy across a step boundary is not found), or UINT64_MAX.
uint64_t FindOnDrive(ZonedDevice* dev, const std::string& needle) {
  std::string hay(4 << 20, '\0');
  for (uint64_t z = 0; z < dev->info().capacity_bytes(); z += hay.size()) {
    if (!dev->Read(z, hay.data(), hay.size()).ok()) continue;
    const size_t f = hay.find(needle);
    if (f != std::string::npos) return z + f;
  }
  return UINT64_MAX;
}

class PackTest : public ::testing::Test {
 protected:
  // inline_max 0: every object's data goes to the zones (the case packs are for).
  void MakeStore(uint32_t pack_max, const std::string& name = "s") {
    root_ = dir_.path() + "/" + name;
    std::filesystem::create_directories(root_);
    specs_ = {"emu:" + root_ + "/d0.img?zones=24&zone_mib=4&conv=1&max_open=8"};
    StoreOptions o;
    o.inline_max = 0;
    o.pack_max = pack_max;
    o.gc_auto = false;
    ASSERT_OK(Store::Mkfs(root_ + "/store", specs_, o));
    Mount();
    Transaction t;
    t.MkColl("c", 0);
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  void Mount() {
    auto s = Store::Open(root_ + "/store");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
  }
  void Remount() {
    ASSERT_OK(store_->Close());
    store_.reset();
    Mount();
  }
  // Bytes written into data zones: records with their headers and padding, zone footers;
  // not the metadata journal.
  uint64_t DataZoneBytes() {
    const StoreCounters c = store_->Counters();
    return c.device_bytes_written - c.journal_bytes_written - c.checkpoint_bytes_written;
  }
  void ExpectReadsBack(const std::vector<int>& objs, size_t size) {
    for (int i : objs) {
      auto r = store_->Read("c", Obj(i), 0, 0);
      ASSERT_TRUE(r.ok()) << i << ": " << r.status().ToString();
      EXPECT_TRUE(*r == Data(i, size)) << "object " << i;
      auto part = store_->Read("c", Obj(i), 1000, 100);
      ASSERT_TRUE(part.ok());
      EXPECT_TRUE(*part == Data(i, size).substr(1000, 100)) << "object " << i;
    }
  }
  void ExpectDeepFsckClean(uint64_t min_verified) {
    auto f = store_->Fsck(/*deep=*/true, /*repair=*/false);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    EXPECT_TRUE(f->ok()) << f->errors.front();
    EXPECT_GE(f->records_verified, min_verified);
  }

  ScratchDir dir_;
  std::string root_;
  std::vector<std::string> specs_;
  std::unique_ptr<Store> store_;
};

// 64 objects of 4 KiB in one transaction: one pack (a 4 KiB header block + 64 blocks),
// 1.02x their size in zone space; without packing each costs a header block too (2x).
TEST_F(PackTest, SixtyFourSmallObjectsCostAboutTheirSizeInZoneSpace) {
  for (const uint32_t pack_max : {32u << 10, 0u}) {
    SCOPED_TRACE(pack_max);
    MakeStore(pack_max, "pack_max" + std::to_string(pack_max));
    const uint64_t before = DataZoneBytes();
    Transaction t;
    std::vector<int> all;
    for (int i = 0; i < 64; ++i) {
      t.Write("c", Obj(i), 0, Data(i, 4096));
      all.push_back(i);
    }
    ASSERT_OK(store_->Apply(std::move(t)));
    const double ratio = static_cast<double>(DataZoneBytes() - before) / (64.0 * 4096);
    if (pack_max > 0) {
      EXPECT_LE(ratio, 1.1);
    } else {
      EXPECT_GE(ratio, 2.0);
    }
    ExpectReadsBack(all, 4096);
    Remount();
    ExpectReadsBack(all, 4096);
    ExpectDeepFsckClean(64);
    store_.reset();
  }
}

// The pack counters (StoreCounters pack_*, the stats document's io.pack_*): 150 objects of
// 3000 bytes in one transaction are 150 entries of 450,000 payload bytes in at least two
// packs (a pack holds at most 100 entries), and the packs are every byte the group wrote
// into data zones. Without packing (pack_max 0) they stay 0.
TEST_F(PackTest, CountersCountPackRecordsEntriesAndTheirBytes) {
  constexpr int kObjects = 150;
  constexpr size_t kSize = 3000;
  for (const uint32_t pack_max : {32u << 10, 0u}) {
    SCOPED_TRACE(pack_max);
    MakeStore(pack_max, "counters" + std::to_string(pack_max));
    const StoreCounters c0 = store_->Counters();
    EXPECT_EQ(c0.pack_records, 0u);  // MkColl wrote no data
    const uint64_t zone_bytes0 = DataZoneBytes();
    const uint64_t allocated0 = store_->Statfs().allocated;
    Transaction t;
    for (int i = 0; i < kObjects; ++i) t.Write("c", Obj(i), 0, Data(i, kSize));
    ASSERT_OK(store_->Apply(std::move(t)));
    const StoreCounters c1 = store_->Counters();
    const uint64_t records = c1.pack_records - c0.pack_records;
    const uint64_t entries = c1.pack_entries - c0.pack_entries;
    const uint64_t payload = c1.pack_payload_bytes - c0.pack_payload_bytes;
    const uint64_t record_bytes = c1.pack_record_bytes - c0.pack_record_bytes;
    const uint64_t zone_bytes = DataZoneBytes() - zone_bytes0;
    // The zones' write pointers moved by the data records and the metadata journal.
    const uint64_t allocated = store_->Statfs().allocated - allocated0 -
                               (c1.journal_bytes_written - c0.journal_bytes_written) -
                               (c1.checkpoint_bytes_written - c0.checkpoint_bytes_written);
    if (pack_max > 0) {
      EXPECT_EQ(entries, uint64_t{kObjects});
      EXPECT_EQ(payload, kObjects * kSize);
      EXPECT_GE(records, 2u);
      EXPECT_EQ(record_bytes, zone_bytes) << records << " packs";
      EXPECT_EQ(record_bytes, allocated) << records << " packs";
      // Each pack: a header block and its payload padded to a block.
      EXPECT_GE(record_bytes, records * 4096 + payload);
      EXPECT_LT(record_bytes, records * 8192 + payload);
      EXPECT_EQ(record_bytes % 4096, 0u);
    } else {
      EXPECT_EQ(records, 0u);
      EXPECT_EQ(entries, 0u);
      EXPECT_EQ(payload, 0u);
      EXPECT_EQ(record_bytes, 0u);
      EXPECT_EQ(zone_bytes, kObjects * 2 * 4096u) << "a header block and a block each";
    }
    // The stats document carries them as they are, and the option.
    const Json doc = store_->StatsDocumentJson("pack-test");
    EXPECT_EQ(doc.at("io").at("pack_records").get<uint64_t>(), c1.pack_records);
    EXPECT_EQ(doc.at("io").at("pack_entries").get<uint64_t>(), c1.pack_entries);
    EXPECT_EQ(doc.at("io").at("pack_payload_bytes").get<uint64_t>(), c1.pack_payload_bytes);
    EXPECT_EQ(doc.at("io").at("pack_record_bytes").get<uint64_t>(), c1.pack_record_bytes);
    EXPECT_EQ(doc.at("store").at("pack_max").get<uint64_t>(), pack_max);
    store_.reset();
  }
}

// A commit group whose write fails on a zone that turned read-only is planned and written
// again elsewhere: its packs count once, for the attempt that committed.
TEST_F(PackTest, AGroupWrittenAgainAfterAZoneFaultCountsItsPacksOnce) {
  MakeStore(32u << 10);
  {
    Transaction t;
    t.Write("c", Obj(0), 0, Data(0, 3000));
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  ASSERT_OK(store_->Close());
  store_.reset();
  auto dev = OpenDevice(specs_[0]);
  ASSERT_OK(dev.status());
  FaultInjectionDevice faulty(std::move(*dev));
  // The zone holding object 0's pack: the small-write stream's open zone.
  const std::string want = Data(0, 3000);
  const uint64_t at = FindOnDrive(&faulty, want.substr(0, 512));
  ASSERT_NE(at, UINT64_MAX);
  auto opened = Store::Open(root_ + "/store", [&](const std::string&) {
    return Result<std::unique_ptr<ZonedDevice>>(
        std::make_unique<testing::BorrowedDevice>(&faulty));
  });
  ASSERT_OK(opened.status());
  store_ = std::move(*opened);
  faulty.SetZoneFault(static_cast<uint32_t>(at / faulty.info().zone_size),
                      ZoneCondition::kReadOnly);
  const StoreCounters c0 = store_->Counters();
  const uint64_t zone_bytes0 = DataZoneBytes();
  Transaction t;
  std::vector<int> all;
  for (int i = 1; i <= 40; ++i) {
    t.Write("c", Obj(i), 0, Data(i, 3000));
    all.push_back(i);
  }
  ASSERT_OK(store_->Apply(std::move(t)));
  const StoreCounters c1 = store_->Counters();
  EXPECT_EQ(c1.zones_retired - c0.zones_retired, 1u) << "the write was retried";
  EXPECT_EQ(c1.pack_entries - c0.pack_entries, 40u);
  EXPECT_EQ(c1.pack_payload_bytes - c0.pack_payload_bytes, 40u * 3000);
  EXPECT_EQ(c1.pack_records - c0.pack_records, 1u);
  EXPECT_EQ(c1.pack_record_bytes - c0.pack_record_bytes, DataZoneBytes() - zone_bytes0);
  ExpectReadsBack(all, 3000);
  ASSERT_OK(store_->Close());
  store_.reset();
}

// Transactions committed together in one group share a pack too; a transaction that fails
// leaves its entries as dead bytes and the others are unaffected.
TEST_F(PackTest, TheSmallWritesOfOneCommitGroupShareAPackAcrossTransactions) {
  MakeStore(32u << 10);
  const uint64_t before = DataZoneBytes();
  const uint64_t groups_before = store_->Counters().groups_committed;
  std::vector<std::promise<Status>> done(48);
  for (int i = 0; i < 48; ++i) {
    Transaction t;
    t.Write("c", Obj(i), 0, Data(i, 5000));
    if (i == 20) t.Write("no-such-collection", Obj(i), 0, Data(i, 100));  // fails
    store_->Submit(std::move(t), [&done, i](const Status& s) { done[i].set_value(s); });
  }
  std::vector<int> ok;
  for (int i = 0; i < 48; ++i) {
    const Status s = done[i].get_future().get();
    if (i == 20) {
      EXPECT_TRUE(s.IsNotFound()) << s.ToString();
    } else {
      ASSERT_OK(s);
      ok.push_back(i);
    }
  }
  const uint64_t groups = store_->Counters().groups_committed - groups_before;
  const uint64_t bytes = DataZoneBytes() - before;
  // Unpacked, each 5000-byte write costs 12 KiB; packed, a group of k costs a header
  // block plus the payload to the next block.
  EXPECT_LT(bytes, 48u * 12288) << groups << " groups";
  if (groups <= 8) {
    EXPECT_LE(bytes, 48u * 5000 + groups * 8192);
  }
  EXPECT_NO(store_->Exists("c", Obj(20)));
  ExpectReadsBack(ok, 5000);
  Remount();
  ExpectReadsBack(ok, 5000);
  ExpectDeepFsckClean(ok.size());
}

// GC moves the live entries of a pack into a new pack (not one record each): relocating
// 4 KiB objects costs about their size, and they read back and pass deep fsck after it.
TEST_F(PackTest, GcMovesLiveEntriesIntoNewPacks) {
  MakeStore(32u << 10);
  std::vector<int> kept;
  {
    Transaction t;
    for (int i = 0; i < 96; ++i) t.Write("c", Obj(i), 0, Data(i, 4096));
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  {
    Transaction t;
    for (int i = 0; i < 96; ++i) {
      if (i % 3 == 0) {
        t.Remove("c", Obj(i));
      } else {
        kept.push_back(i);
      }
    }
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  // More small writes (packed, in the same stream) fill the zone, so it is sealed and
  // can be cleaned; they are removed again.
  for (int k = 0; k < 4; ++k) {
    Transaction t;
    for (int i = 0; i < 40; ++i) t.Write("c", Obj(1000 + 40 * k + i), 0, Data(i, 30000));
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  {
    Transaction rm;
    for (int i = 1000; i < 1160; ++i) rm.Remove("c", Obj(i));
    ASSERT_OK(store_->Apply(std::move(rm)));
  }
  const StoreCounters c0 = store_->Counters();
  auto gc = store_->RunGc(8);
  ASSERT_TRUE(gc.ok()) << gc.status().ToString();
  const StoreCounters c1 = store_->Counters();
  const uint64_t moved = c1.gc_live_moved - c0.gc_live_moved;
  const uint64_t written = c1.gc_bytes_written - c0.gc_bytes_written;
  ASSERT_EQ(moved, kept.size() * 4096u) << "every kept object moved once";
  EXPECT_LE(static_cast<double>(written), 1.1 * static_cast<double>(moved));
  // GC's packs count as pack records: every relocated byte went into one.
  EXPECT_EQ(c1.pack_entries - c0.pack_entries, kept.size());
  EXPECT_EQ(c1.pack_payload_bytes - c0.pack_payload_bytes, moved);
  EXPECT_GE(c1.pack_records - c0.pack_records, 1u);
  EXPECT_EQ(c1.pack_record_bytes - c0.pack_record_bytes, written);
  // The lifetime GC counter grows by what this run wrote (it is what write amplification
  // is computed from across mounts).
  EXPECT_EQ(c1.lifetime_gc_bytes - c0.lifetime_gc_bytes, written);
  ExpectReadsBack(kept, 4096);
  ExpectDeepFsckClean(kept.size());
  Remount();
  ExpectReadsBack(kept, 4096);
}

// A flipped bit in one entry fails that object's read (kCorruption, counted) and deep
// fsck, never returns wrong bytes; the pack's other entries still read.
TEST_F(PackTest, ABitFlipInOneEntryFailsThatObjectOnly) {
  MakeStore(32u << 10);
  Transaction t;
  for (int i = 0; i < 8; ++i) t.Write("c", Obj(i), 0, Data(i, 3000));
  ASSERT_OK(store_->Apply(std::move(t)));
  ASSERT_OK(store_->Close());
  store_.reset();
  auto dev = OpenDevice(specs_[0]);
  ASSERT_OK(dev.status());
  FaultInjectionDevice faulty(std::move(*dev));
  auto opened = Store::Open(root_ + "/store", [&](const std::string&) {
    return Result<std::unique_ptr<ZonedDevice>>(
        std::make_unique<testing::BorrowedDevice>(&faulty));
  });
  ASSERT_OK(opened.status());
  store_ = std::move(*opened);
  // Find object 5's bytes on the drive and flip one of them on every read.
  const std::string want = Data(5, 3000);
  auto stat = store_->Stat("c", Obj(5));
  ASSERT_OK(stat.status());
  const uint64_t at = FindOnDrive(&faulty, want.substr(0, 512));
  ASSERT_NE(at, UINT64_MAX);
  EXPECT_NE(at % 4096, 0u) << "object 5 is a pack entry (not block-aligned)";
  faulty.CorruptReads(at + 1500, 1);
  auto bad = store_->Read("c", Obj(5), 0, 0);
  EXPECT_TRUE(bad.status().IsCorruption()) << bad.status().ToString();
  EXPECT_EQ(store_->Counters().crc_errors, 1u);
  ExpectReadsBack({0, 1, 2, 3, 4, 6, 7}, 3000);
  auto f = store_->Fsck(/*deep=*/true, /*repair=*/false);
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f->errors.size(), 1u);
  EXPECT_NE(f->errors[0].find("pack @"), std::string::npos) << f->errors[0];
  faulty.ClearFaults();
  ExpectReadsBack({0, 1, 2, 3, 4, 5, 6, 7}, 3000);
  ASSERT_OK(store_->Close());
  store_.reset();
}

}  // namespace
}  // namespace smr
