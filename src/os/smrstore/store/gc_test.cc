// Zone GC in the store, the cleaning itself (store/testing/gc_test_fixture.h lists the
// GC tests' files): dead space reclaimed and every object kept, records of every padding
// relocated intact, GC refused on a read-only mount, an all-dead zone cleaned without a
// commit group, a victim's walk ending at its first empty block; concurrent readers never
// seeing a reset zone (a reset waits for a read that found its extents); lifetime-aware
// placement — names rewritten young go to the hot stream, data older than the mean
// lifetime is relocated to the cold GC stream.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <future>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "meta/meta_store.h"
#include "store/store.h"
#include "store/testing/gc_test_fixture.h"

namespace smr::gc_test {
namespace {

TEST_F(GcTest, ReclaimsDeadSpaceAndKeepsData) {
  FillAndPunch();
  const uint64_t available_before = store_->Statfs().available;
  auto r = store_->RunGc(100);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_GT(r->zones_cleaned, 0u);
  EXPECT_GT(r->live_moved, 0u);
  EXPECT_GT(store_->Statfs().available, available_before);
  EXPECT_EQ(store_->Statfs().stored, model_.size() * kMiB);
  const StoreCounters c = store_->Counters();
  EXPECT_EQ(c.gc_zones_reset, r->zones_cleaned);
  EXPECT_EQ(c.gc_live_moved, r->live_moved);
  ExpectModel();
  Remount();
  ExpectModel();
  // Cleaning again (zones sealed at remount may have dead bytes too) keeps everything.
  auto again = store_->RunGc(100);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ExpectModel();
}

// Records whose payload is not a multiple of 4 KiB: GC walks a victim record by record
// (each padded to whole blocks) and relocates every live one intact.
TEST_F(GcTest, RelocatesRecordsOfEveryPaddingExactly) {
  Transaction t;
  t.MkColl(kColl, 0);
  ASSERT_OK(store_->Apply(std::move(t)));
  std::map<uint64_t, size_t> sizes;
  for (uint64_t i = 0; i < 600; ++i) {  // about 12 MiB: three zones sealed
    // 4096 k + 1, + 2, + 4095, and exact multiples, in turn.
    const size_t size = 4096 * (3 + i % 5) + std::vector<size_t>{1, 2, 4095, 0, 2048}[i % 5];
    Transaction w;
    w.Write(kColl, Obj(i), 0, Data(i, size));
    ASSERT_OK(store_->Apply(std::move(w)));
    sizes[i] = size;
  }
  for (uint64_t i = 0; i < 600; i += 2) {
    Transaction rm;
    rm.Remove(kColl, Obj(i));
    ASSERT_OK(store_->Apply(std::move(rm)));
    sizes.erase(i);
  }
  auto r = store_->RunGc(100);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_GE(r->zones_cleaned, 1u);
  for (const auto& [i, size] : sizes) {
    auto got = store_->Read(kColl, Obj(i), 0, 0);
    ASSERT_TRUE(got.ok()) << i << ": " << got.status().ToString();
    EXPECT_TRUE(*got == Data(i, size)) << "object " << i << " of " << size << " bytes";
  }
  auto f = store_->Fsck(/*deep=*/true, /*repair=*/false);
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->ok()) << f->errors.front();
}

// A victim is walked by its zone footer: the records it lists as dead (and the journal's)
// are passed over without reading their headers — one read for the footer, one per live
// record (header and payload together) — and every live object is relocated intact. `remount`: the zone was sealed in an
// earlier mount, whose ZoneMeta carried the footer's position (ZoneMeta::footer_at).
class GcFooterTest : public GcTest {
 protected:
  void ExpectVictimWalkedByItsFooter(bool remount);
};

void GcFooterTest::ExpectVictimWalkedByItsFooter(bool remount) {
  Store* store = store_.get();
  Transaction mk;
  mk.MkColl(kColl, 0);
  ASSERT_OK(store->Apply(std::move(mk)));
  constexpr size_t kSize = 48u << 10;  // above pack_max: one data record each
  for (uint64_t i = 0; i < 100; ++i) {  // 52 KiB each in the zones: the first zone fills
    Transaction w;
    w.Write(kColl, Obj(i), 0, Data(i, kSize));
    ASSERT_OK(store->Apply(std::move(w)));
  }
  std::vector<uint64_t> kept;
  for (uint64_t i = 0; i < 100; ++i) {
    if (i % 10 == 0) {
      kept.push_back(i);
      continue;
    }
    Transaction rm;
    rm.Remove(kColl, Obj(i));
    ASSERT_OK(store->Apply(std::move(rm)));
  }
  if (remount) {
    Remount();
    store = store_.get();
  }
  const uint64_t reads0 = fault_->reads();
  auto r = store->RunGc(1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const uint64_t reads = fault_->reads() - reads0;
  ASSERT_EQ(r->zones_cleaned, 1u);
  const uint64_t live_records = r->live_moved / kSize;
  EXPECT_GE(live_records, 5u);
  EXPECT_EQ(r->live_moved % kSize, 0u);
  // Without the footer: a header read per record (about 78 in a 4 MiB zone) besides these;
  // with a read for the header and another for the payload: 2 per live record.
  EXPECT_LE(reads, live_records + 3) << "GC read dead records' headers, or read twice";
  for (uint64_t i : kept) {
    auto got = store->Read(kColl, Obj(i), 0, 0);
    ASSERT_TRUE(got.ok()) << i << ": " << got.status().ToString();
    EXPECT_TRUE(*got == Data(i, kSize)) << i;
  }
  Remount();
  auto f = store_->Fsck(/*deep=*/true, /*repair=*/false);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(f->ok()) << (f->errors.empty() ? "" : f->errors.front());
}

TEST_F(GcFooterTest, AVictimThisMountSealedIsWalkedByItsFooter) {
  ExpectVictimWalkedByItsFooter(/*remount=*/false);
}

TEST_F(GcFooterTest, AVictimAnEarlierMountSealedIsWalkedByItsFooter) {
  ExpectVictimWalkedByItsFooter(/*remount=*/true);
}

// GC on a read-only mount is refused and writes nothing.
TEST_F(GcTest, GcOnAReadOnlyMountIsRefused) {
  FillAndPunch();
  ASSERT_OK(store_->Close());
  store_.reset();
  const auto before = ZoneReport();
  auto ro = OpenOnTheDrive(dir_.path() + "/st", /*read_only=*/true);
  ASSERT_TRUE(ro.ok()) << ro.status().ToString();
  auto r = (*ro)->RunGc(3);
  EXPECT_TRUE(r.status().IsReadOnly()) << r.status().ToString();
  EXPECT_EQ(ZoneReport(), before);
  ASSERT_OK((*ro)->Close());
  ro->reset();
  Mount();
}

// Journal records after the data (StoreOptions::journal_with_data): the zone of objects
// 0-2, all dead, holds the journal records of their commits, so it is pinned; GC does not
// reset it until a checkpoint it takes makes those records obsolete, and then cleans it.
TEST_F(GcTest, AZonePinnedByJournalRecordsIsCleanedAfterTheCheckpointGcTakes) {
  ASSERT_NO_FATAL_FAILURE(MakeAPinnedAllDeadZone(dir_.path() + "/st-pinned-gc"));
  const uint64_t checkpoints = store_->Counters().checkpoints;
  auto r = store_->RunGc(1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->zones_cleaned, 1u);
  EXPECT_EQ(store_->Counters().checkpoints, checkpoints + 1) << "GC reset a pinned zone";
  ExpectModel();
}

// A pinned zone with nothing live is not freed by the next mount (it would be without the
// pin: ZoneManager::Load frees sealed zones nothing references); GC after the mount still
// needs a checkpoint to clean it.
TEST_F(GcTest, AMountKeepsAPinnedZoneWithNothingLive) {
  ASSERT_NO_FATAL_FAILURE(MakeAPinnedAllDeadZone(dir_.path() + "/st-pinned-mount"));
  Remount();
  const uint64_t checkpoints = store_->Counters().checkpoints;
  auto r = store_->RunGc(1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->zones_cleaned, 1u);
  EXPECT_EQ(store_->Counters().checkpoints, checkpoints + 1);
  ExpectModel();
}

// Cleaning a zone with nothing live in it moves nothing and commits nothing but the zone's
// reset: no commit group, no device bytes beyond what was there.
TEST_F(GcTest, CleaningAnAllDeadZoneCommitsNoGroup) {
  Transaction t;
  t.MkColl(kColl, 0);
  ASSERT_OK(store_->Apply(std::move(t)));
  for (uint64_t i = 0; i < 6; ++i) ASSERT_OK(Put(i, i + 1));
  for (uint64_t i = 0; i < 3; ++i) ASSERT_OK(Remove(i));  // the zone of objects 0-2: all dead
  const StoreCounters before = store_->Counters();
  auto r = store_->RunGc(1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->zones_cleaned, 1u);
  EXPECT_EQ(r->live_moved, 0u);
  const StoreCounters after = store_->Counters();
  EXPECT_EQ(after.groups_committed, before.groups_committed);
  EXPECT_EQ(after.device_bytes_written, before.device_bytes_written);
  ExpectModel();
}

// GC walks a victim record by record up to its committed write pointer; the first empty
// block ends the walk even when the pointer says more was written (a zone finished by the
// drive, whose committed pointer was set to its capacity): GC cleans it and stops.
TEST_F(GcTest, AnEmptyBlockBeforeTheCommittedPointerEndsTheWalk) {
  Transaction t;
  t.MkColl(kColl, 0);
  ASSERT_OK(store_->Apply(std::move(t)));
  for (uint64_t i = 0; i < 6; ++i) ASSERT_OK(Put(i, i + 1));
  ASSERT_OK(Remove(1));  // the zone of objects 0-2: GC's one victim
  ASSERT_OK(store_->Close());
  store_.reset();
  {
    auto meta = MetaStore::Open(dir_.path() + "/st/meta");
    ASSERT_TRUE(meta.ok()) << meta.status().ToString();
    auto zones = (*meta)->LoadZones(nullptr);
    ASSERT_TRUE(zones.ok());
    auto batch = (*meta)->NewBatch();
    int raised = 0;
    for (auto [addr, zm] : *zones) {
      if (!zm.sealed || zm.live_bytes != 2 * kMiB) continue;
      zm.committed_wp = fault_->info().zone_capacity;
      batch->PutZone(addr.first, addr.second, zm);
      ++raised;
    }
    ASSERT_EQ(raised, 1);
    ASSERT_OK((*meta)->Commit(batch.get(), true));
  }
  Mount();
  auto r = store_->RunGc(1);  // a walk that never ends would hang here
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->zones_cleaned, 1u);
  EXPECT_EQ(r->live_moved, 2 * kMiB);
  ExpectModel();
}

TEST_F(GcTest, ConcurrentReadersNeverSeeAResetZone) {
  FillAndPunch();
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> reads{0}, errors{0};
  const std::map<uint64_t, uint64_t> snapshot = model_;
  std::thread reader([&] {
    while (!stop) {
      for (const auto& [i, seed] : snapshot) {
        auto got = store_->Read(kColl, Obj(i), 0, 0);
        if (!got.ok() || *got != Data(seed, kMiB)) ++errors;
        ++reads;
      }
    }
  });
  for (int i = 0; i < 6; ++i) {
    auto r = store_->RunGc(1);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  stop = true;
  reader.join();
  EXPECT_GT(reads.load(), 0u);
  EXPECT_EQ(errors.load(), 0u);
  EXPECT_EQ(store_->Counters().crc_errors, 0u);
  EXPECT_EQ(store_->Counters().gc_zones_reset, 6u) << "the readers raced no reset";
}

// The same race, made deterministic: a read that has found its extents (onode lookup done)
// is held in the device, before its bytes are read, while GC cleans the zone those extents
// are in. The victim's reset must wait for that read (the read fence); a reset under it
// would hand the reader whatever the zone holds next.
TEST_F(GcTest, ZoneResetWaitsForAReadThatFoundItsExtents) {
  Transaction t;
  t.MkColl(kColl, 0);
  ASSERT_OK(store_->Apply(std::move(t)));
  // 1 MiB objects take 1 MiB + a 4 KiB header: three fill a 4 MiB zone, in write order.
  for (uint64_t i = 0; i < 6; ++i) ASSERT_OK(Put(i, i + 1));
  ASSERT_OK(Remove(1));  // the only dead bytes, in the zone of objects 0-2: GC's one victim

  fault_->PauseNextRead(0, fault_->info().capacity_bytes());
  Result<std::string> got = Status::NotFound("not read yet");
  std::thread reader([&] { got = store_->Read(kColl, Obj(0), 0, 0); });
  const uint64_t zone_size = fault_->info().zone_size;
  const uint32_t read_zone = static_cast<uint32_t>(fault_->WaitForPausedRead() / zone_size);

  Result<GcReport> gc = Status::NotFound("not run yet");
  std::thread cleaner([&] { gc = store_->RunGc(1); });
  // Either GC waits at the fence for the held read, or it resets the zone under it.
  const bool decided = testing::WaitUntil([&] {
    return store_->Counters().gc_fence_waits > 0 || fault_->resets_under_paused_read() > 0;
  });
  EXPECT_TRUE(decided) << "GC neither waited for the read nor reset the zone";
  EXPECT_EQ(fault_->resets_under_paused_read(), 0u)
      << "zone " << read_zone << " was reset while a read of it was in flight";
  EXPECT_EQ(store_->Counters().gc_zones_reset, 0u);
  fault_->ResumePausedRead();
  reader.join();
  cleaner.join();

  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(*got == Data(1, kMiB)) << "the read returned other bytes than object 0's";
  ASSERT_TRUE(gc.ok()) << gc.status().ToString();
  EXPECT_EQ(gc->zones_cleaned, 1u);
  EXPECT_EQ(store_->Counters().gc_fence_waits, 1u);
  EXPECT_EQ(store_->Counters().gc_zones_reset, 1u);
  // The zone reset is the one the reader was reading (the race was the intended one).
  auto zi = fault_->ReportZones(read_zone, 1);
  ASSERT_TRUE(zi.ok()) << zi.status().ToString();
  EXPECT_EQ((*zi)[0].cond, ZoneCondition::kEmpty) << "GC cleaned another zone than " << read_zone;
  ExpectModel();
}

// Background GC does not wait for such a read on the commit thread: the victim's
// relocations commit, its reset is deferred until the reads that may still use its old
// extents have ended (GcWorker::ReapResets), and transactions commit meanwhile. On a
// busy drive those reads (of any zone) took 1-20 s, every queued write behind them
// (doc/performance.md, "Zone resets deferred past reads").
TEST_F(GcTest, BackgroundGcDefersAResetPastAReadWithoutHoldingCommits) {
  StoreOptions o = options_;
  o.gc_start_free = 0.98;  // idle cleaning runs at once, to the only victim
  o.gc_stop_free = 0.99;
  ASSERT_NO_FATAL_FAILURE(ReplaceStore("deferred", o));
  for (uint64_t i = 0; i < 6; ++i) ASSERT_OK(Put(i, i + 1));
  ASSERT_OK(Remove(1));  // the only dead bytes, in the zone of objects 0-2

  fault_->PauseNextRead(0, fault_->info().capacity_bytes());
  Result<std::string> got = Status::NotFound("not read yet");
  std::thread reader([&] { got = store_->Read(kColl, Obj(0), 0, 0); });
  const uint64_t zone_size = fault_->info().zone_size;
  const uint32_t read_zone = static_cast<uint32_t>(fault_->WaitForPausedRead() / zone_size);

  store_->SetGcAuto(true);
  ASSERT_OK(Put(10, 11));  // idle GC runs after this group: it cleans the zone being read
  EXPECT_TRUE(testing::WaitUntil([&] { return store_->Counters().gc_fence_waits > 0; }))
      << "the victim was not cleaned, or its reset did not meet the held read";
  // The commit thread is free: more transactions commit while the read is held.
  auto more = std::async(std::launch::async, [&] {
    Status st = Put(11, 12);
    return st.ok() ? Remove(10) : st;
  });
  const bool committed = more.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  if (!committed) fault_->ResumePausedRead();  // let the held commit thread go, then fail
  EXPECT_TRUE(committed) << "transactions waited behind GC's fence for the held read";
  ASSERT_OK(more.get());
  if (!committed) {
    reader.join();
    return;
  }
  EXPECT_EQ(fault_->resets_under_paused_read(), 0u)
      << "zone " << read_zone << " was reset while a read of it was in flight";
  EXPECT_EQ(store_->Counters().gc_zones_reset, 0u);
  fault_->ResumePausedRead();
  reader.join();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(*got == Data(1, kMiB)) << "the read returned other bytes than object 0's";
  // Then the reset happens, with nothing else to commit (the idle commit thread looks again).
  EXPECT_TRUE(testing::WaitUntil([&] { return store_->Counters().gc_zones_reset == 1; }));
  EXPECT_EQ(fault_->resets_under_paused_read(), 0u);
  auto zi = fault_->ReportZones(read_zone, 1);
  ASSERT_TRUE(zi.ok()) << zi.status().ToString();
  EXPECT_EQ((*zi)[0].cond, ZoneCondition::kEmpty) << "GC cleaned another zone than " << read_zone;
  ExpectModel();
  Remount();
  ExpectModel();
}

// The mean lifetime starts at the first death's lifetime (not a hundredth of it): after
// deaths at ~400 ms, a name rewritten after ~50 ms is young, hence hot.
TEST_F(GcTest, TheFirstDeathsSetTheMeanLifetimeAHotNameIsJudgedBy) {
  Transaction t;
  t.MkColl(kColl, 0);
  ASSERT_OK(store_->Apply(std::move(t)));
  for (uint64_t i = 0; i < 3; ++i) ASSERT_OK(Put(i, i + 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  for (uint64_t i = 0; i < 3; ++i) ASSERT_OK(Remove(i));  // the mean: ~400 ms
  ASSERT_OK(Put(10, 11));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_OK(Put(10, 12));  // its first incarnation lived ~50 ms: young
  EXPECT_NE(store_->StatsJson().find("user-hot"), std::string::npos) << store_->StatsJson();
  ExpectModel();
}

// And data younger than the mean lifetime goes to the young GC stream: objects that died
// after living ~2 s set the mean; GC then moves data a fraction of a second old.
TEST_F(GcTest, DataYoungerThanTheMeanLifetimeIsRelocatedToTheYoungGcStream) {
  Transaction mk;
  mk.MkColl(kColl, 0);
  ASSERT_OK(store_->Apply(std::move(mk)));
  for (uint64_t i = 100; i < 104; ++i) ASSERT_OK(Put(i, i));
  std::this_thread::sleep_for(std::chrono::seconds(2));  // their age at death is the input
  for (uint64_t i = 100; i < 104; ++i) ASSERT_OK(Remove(i));  // the mean: ~2 s
  PunchTwoZones();
  ExpectGcToTheYoungStream();
  ExpectModel();
}

// Before any death is seen (the mean lifetime is not kept across mounts), GC has no mean to
// compare with and keeps every relocation in the young GC stream.
TEST_F(GcTest, WithNoMeanLifetimeYetRelocationsGoToTheYoungGcStream) {
  Transaction mk;
  mk.MkColl(kColl, 0);
  ASSERT_OK(store_->Apply(std::move(mk)));
  PunchTwoZones();
  Remount();  // the deaths above are forgotten: no mean lifetime
  ExpectGcToTheYoungStream();
  ExpectModel();
}

// GC sends data older than the mean lifetime to the cold GC stream and younger data to the
// young one: here everything that died lived a few milliseconds, and the data GC moves is
// ~600 ms old, so it goes cold (and nothing goes to the young GC stream).
TEST_F(GcTest, DataOlderThanTheMeanLifetimeIsRelocatedToTheColdGcStream) {
  Transaction mk;
  mk.MkColl("2.0_head", 0);
  ASSERT_OK(store_->Apply(std::move(mk)));
  for (uint64_t i = 0; i < 8; ++i) {  // deaths of a few milliseconds: the mean
    Transaction put, rm;
    put.Write("2.0_head", Obj(i), 0, Data(i, 8 << 10));
    ASSERT_OK(store_->Apply(std::move(put)));
    rm.Remove("2.0_head", Obj(i));
    ASSERT_OK(store_->Apply(std::move(rm)));
  }
  FillAndPunch();  // 30 live objects, half of every zone dead (their deaths raise the mean
                   // to well under the 600 ms below)
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  auto r = store_->RunGc(3);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_GT(r->live_moved, 0u);
  const std::string stats = store_->StatsJson();
  EXPECT_NE(stats.find("_gc-cold\""), std::string::npos) << stats;
  EXPECT_EQ(stats.find("_gc\""), std::string::npos) << stats;
  ExpectModel();
}

// Lifetime-aware placement: data written under a name whose previous data died younger
// than the mean lifetime goes to the user-hot stream; new names go to the user stream.
TEST_F(GcTest, NamesRewrittenYoungGoToTheHotStream) {
  Transaction t;
  t.MkColl(kColl, 0);
  ASSERT_OK(store_->Apply(std::move(t)));
  for (uint64_t i = 0; i < 6; ++i) ASSERT_OK(Put(i, i + 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (uint64_t i = 3; i < 6; ++i) ASSERT_OK(Remove(i));  // deaths at ~200 ms: the mean
  ASSERT_OK(Put(10, 11));                                  // a new name: no history
  EXPECT_EQ(store_->StatsJson().find("user-hot"), std::string::npos) << store_->StatsJson();
  // Name 10 is rewritten right away (its data lived ~0 ms), and again: hot.
  ASSERT_OK(Put(10, 12));
  ASSERT_OK(Put(10, 13));
  // A name removed young and created again is hot too (the history outlives the onode).
  ASSERT_OK(Put(11, 14));
  ASSERT_OK(Remove(11));
  ASSERT_OK(Put(11, 15));
  const std::string stats = store_->StatsJson();
  EXPECT_NE(stats.find("user-hot"), std::string::npos) << stats;
  ExpectModel();
  Remount();  // the zone's stream is persisted; the data reads back
  EXPECT_NE(store_->StatsJson().find("user-hot"), std::string::npos);
  ExpectModel();
}

}  // namespace
}  // namespace smr::gc_test
