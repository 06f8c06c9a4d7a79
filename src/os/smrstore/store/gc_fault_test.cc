// Zone GC under faults (store/testing/gc_test_fixture.h lists the GC tests' files): a
// power cut after a failed write at any step of GC loses nothing; a live record failing its
// crc is neither relocated nor is its zone reset, and the zone is quarantined, then retried
// once the media reads right; a slice failing half-way gives back what it allocated; a read
// or write error at any I/O of a GC run is reported and rolled back, and the store keeps
// taking writes.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/engine_log.h"
#include "store/store.h"
#include "store/testing/gc_test_fixture.h"

namespace smr::gc_test {
namespace {

TEST_F(GcTest, CrashAtAnyWriteOfGcLosesNothing) {
  FillAndPunch();
  ASSERT_OK(store_->Close());
  store_.reset();
  // Fail the n-th device write of a GC run, then cut power; after remount everything must be
  // there and fsck clean. Try several n, each from the same starting state.
  const std::string img = dir_.path() + "/d0.img";
  // Every write of the GC run in turn: n = 1, 2, ... until GC completes without reaching
  // write n (each zone's relocations are one device write per commit: ZonedDevice::WriteV).
  uint64_t n = 1;
  for (;; ++n) {
    SCOPED_TRACE("fail write " + std::to_string(n));
    ASSERT_LT(n, 40u) << "GC kept failing";
    Mount();
    const uint64_t fired_before = fault_->injected_errors();
    fault_->FailNthWrite(n, /*sticky=*/true);
    auto r = store_->RunGc(3);
    if (fault_->injected_errors() == fired_before) {  // GC made fewer than n writes
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      fault_->ClearFaults();
      ASSERT_OK(store_->Close());
      store_.reset();
      break;
    }
    EXPECT_FALSE(r.ok()) << "GC reported success although its write " << n << " failed";
    ASSERT_OK(fault_->PowerCut(FaultInjectionDevice::PowerCutMode::kTornUnflushed, n));
    store_.reset();
    fault_->ClearFaults();
    Mount();
    ExpectModel();
    // A clean GC afterwards still works.
    auto ok = store_->RunGc(1);
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    ExpectModel();
    ASSERT_OK(store_->Close());
    store_.reset();
  }
  EXPECT_GE(n, 4u) << "a GC of 3 zones made fewer than 3 writes: nothing much was tested";
  Mount();
  ExpectModel();
}

// A live record whose payload fails its crc when GC reads it (a media error that escaped
// the drive's ECC) must not be relocated: GC would write the bad bytes under a fresh crc
// and reset the only copy. The cleaning fails naming the record, nothing is written,
// nothing reset; once the media reads right again, GC cleans the zone.
TEST_F(GcTest, RecordFailingItsCrcIsNeitherRelocatedNorItsZoneReset) {
  Transaction t;
  t.MkColl(kColl, 0);
  ASSERT_OK(store_->Apply(std::move(t)));
  for (uint64_t i = 0; i < 6; ++i) ASSERT_OK(Put(i, i + 1));
  ASSERT_OK(Remove(1));  // GC's one victim: the zone of objects 0-2
  const uint64_t at = DeviceOffsetOf(0);
  const uint64_t zone_size = fault_->info().zone_size;
  fault_->CorruptReads(at + 8192, 4096);  // inside object 0's 1 MiB payload
  const auto zones_before = ZoneReport();
  const StoreCounters before = store_->Counters();

  // The engine's log sink (common/log.h; the OSD adapter's writes into the OSD log).
  std::vector<std::pair<LogLevel, std::string>> lines;
  LogSink old_sink =
      SetLogSink([&lines](LogLevel l, const std::string& s) { lines.emplace_back(l, s); });
  auto r = store_->RunGc(1);
  SetLogSink(std::move(old_sink));
  std::string log;
  bool quarantine_error = false;
  for (const auto& [level, text] : lines) {
    log += text + "\n";
    if (level != LogLevel::kError) continue;
    // When GC tries the zone again: after 16 more victim picks (the first failure's).
    quarantine_error |= text.find("zone quarantined, retried after 16 more victim picks "
                                  "(failure 1)") != std::string::npos;
  }
  EXPECT_TRUE(quarantine_error) << "no error-level quarantine line:\n" << log;
  ASSERT_FALSE(r.ok()) << "GC relocated a record that fails its crc";
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  EXPECT_NE(r.status().ToString().find("checksum"), std::string::npos) << r.status().ToString();
  const StoreCounters after = store_->Counters();
  EXPECT_EQ(after.crc_errors, before.crc_errors + 1);
  EXPECT_EQ(after.gc_bytes_written, before.gc_bytes_written);
  EXPECT_EQ(after.device_bytes_written, before.device_bytes_written);
  EXPECT_EQ(after.gc_zones_reset, 0u);
  EXPECT_EQ(after.gc_failures, 1u);
  EXPECT_EQ(after.gc_quarantined_zones, 1u);
  const Json doc = store_->StatsDocumentJson("t");
  EXPECT_EQ(doc.at("gc").at("failures").get<uint64_t>(), 1u) << doc.dump();
  EXPECT_EQ(doc.at("gc").at("quarantined_zones").get<uint64_t>(), 1u) << doc.dump();
  EXPECT_EQ(ZoneReport(), zones_before) << "GC wrote to or reset a zone";
  auto zi = fault_->ReportZones(static_cast<uint32_t>(at / zone_size), 1);
  ASSERT_TRUE(zi.ok());
  EXPECT_NE((*zi)[0].cond, ZoneCondition::kEmpty);

  // The zone is quarantined: GC does not retry it at once (it would fail again while the
  // media is bad), but does later; once the media reads right, it is cleaned.
  fault_->ClearFaults();
  ExpectModel();
  int attempts = 0;
  uint32_t cleaned = 0;
  while (cleaned == 0 && attempts < 100) {
    auto again = store_->RunGc(1);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    cleaned = again->zones_cleaned;
    ++attempts;
  }
  EXPECT_EQ(cleaned, 1u) << "the quarantined zone was never retried";
  EXPECT_GT(attempts, 1) << "the failed zone was retried at once: no quarantine";
  EXPECT_EQ(store_->Counters().gc_quarantined_zones, 0u);
  ExpectModel();
}

// A GC slice that fails half-way (the second live record of its victim fails its crc,
// after the first was already placed in the GC stream) gives back what it allocated: the
// GC stream's write pointer is where the drive's is, so the next cleaning (another zone;
// the failed one is quarantined) and the foreground writes after it succeed.
TEST_F(GcTest, SliceFailingHalfWayRollsBackItsAllocations) {
  Transaction t;
  t.MkColl(kColl, 0);
  ASSERT_OK(store_->Apply(std::move(t)));
  for (uint64_t i = 0; i < 9; ++i) ASSERT_OK(Put(i, i + 1));  // zones {0,1,2} {3,4,5} {6,7,8}
  ASSERT_OK(Remove(1));
  ASSERT_OK(Remove(4));
  // Whichever of the two zones GC picks first, its second live record is bad.
  for (uint64_t i : {2, 5}) fault_->CorruptReads(DeviceOffsetOf(i) + 8192, 4096);
  const auto zones_before = ZoneReport();
  const StoreStatfs space_before = store_->Statfs();
  auto r = store_->RunGc(1);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  EXPECT_EQ(ZoneReport(), zones_before);
  // The store's view of its zones is the drive's again: no space held by the failed slice.
  EXPECT_EQ(store_->Statfs().available, space_before.available)
      << "the failed slice's allocations were not given back";
  EXPECT_EQ(store_->Statfs().allocated, space_before.allocated);
  fault_->ClearFaults();
  auto next = store_->RunGc(1);
  ASSERT_TRUE(next.ok()) << "the cleaning after a failed slice failed: "
                         << next.status().ToString();
  EXPECT_EQ(next->zones_cleaned, 1u);
  EXPECT_EQ(store_->Counters().gc_quarantined_zones, 1u);
  for (uint64_t i = 20; i < 23; ++i) ASSERT_OK(Put(i, i + 1));
  ExpectModel();
  Remount();
  ExpectModel();
}

// A read or write error at any I/O of a GC run: GC reports it, rolls back, and the store
// keeps taking writes, loses nothing, and fsck stays clean; the victim is quarantined.
TEST_F(GcTest, IoErrorAtAnyStepOfGcRollsBackAndTheStoreKeepsWriting) {
  (void)store_->Close();
  store_.reset();
  int fired_reads = 0, fired_writes = 0;
  for (bool reads : {true, false}) {
    for (uint64_t n = 1; n <= 14; ++n) {
      SCOPED_TRACE(std::string(reads ? "read " : "write ") + std::to_string(n));
      // A fresh store on the same drive for every step.
      model_.clear();
      const std::string st = dir_.path() + "/st-" + (reads ? "r" : "w") + std::to_string(n);
      // The store of the previous step is closed: the drive is free.
      ASSERT_NO_FATAL_FAILURE(MkfsAndMountFresh(st, options_));
      for (uint64_t i = 0; i < 9; ++i) ASSERT_OK(Put(i, i + 1));
      ASSERT_OK(Remove(1));
      ASSERT_OK(Remove(4));
      const uint64_t before = fault_->injected_errors();
      if (reads) {
        fault_->FailNthRead(n);
      } else {
        fault_->FailNthWrite(n);
      }
      auto r = store_->RunGc(2);
      const bool hit = fault_->injected_errors() > before;
      fault_->ClearFaults();
      if (hit) {
        ++(reads ? fired_reads : fired_writes);
        EXPECT_FALSE(r.ok()) << "GC hid an I/O error";
        EXPECT_EQ(store_->Counters().gc_failures, 1u);
      } else {
        EXPECT_TRUE(r.ok()) << r.status().ToString();
      }
      for (uint64_t i = 30; i < 33; ++i) ASSERT_OK(Put(i, i));
      ExpectModel();
      auto again = store_->RunGc(4);
      ASSERT_TRUE(again.ok()) << again.status().ToString();
      ExpectModel();
      ASSERT_OK(store_->Close());
      store_.reset();
    }
  }
  // Both kinds of fault hit GC at many of its steps (not only the first): every read of the
  // two victims (each: its footer, then one read per live record; the footer's own header
  // is not read), and the writes of both slices and what follows them (5 or 6: a journal
  // write may or may not fall inside the run).
  EXPECT_GE(fired_reads, 6);
  EXPECT_GE(fired_writes, 5);
}

}  // namespace
}  // namespace smr::gc_test
