// The store on hybrid drives (store/hybrid_manager.cc; device/zoned_device.h "Hybrid drives"): new
// space is CMR first and CMR zones survive remounts with their software write pointers;
// converting a realm moves its data out in quanta and gains capacity; back to CMR; the
// policy converts on its own when space runs low; a crash or fault at any step of a
// conversion loses nothing; the stats document shows it all.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "common/json.h"
#include "common/testing/test_util.h"
#include "device/device_spec.h"
#include "device/emulated_zoned_device.h"
#include "device/fault_injection_device.h"
#include "device/testing/borrowed_device.h"
#include "store/store.h"
#include "store/testing/store_on_faulty_drive.h"

namespace smr {
namespace {

using testing::Data;
using testing::kColl;
using testing::kMiB;
using testing::Obj;

constexpr uint32_t kRealms = 6;
constexpr uint32_t kCmrPerRealm = 4;
constexpr uint32_t kSmrPerRealm = 5;

// One hybrid drive: 2 permanent conventional zones, 6 realms of 4 CMR / 5 SMR zones of
// 4 MiB (all CMR at first: 24 CMR data zones, 96 MiB), under a fault-injecting wrapper
// that survives remounts (store/testing/store_on_faulty_drive.h). Objects of 1 MiB checked
// against a model.
class HybridStoreTest : public testing::StoreOnFaultyDrive {
 protected:
  void SetUp() override {
    spec_ = "emu:" + dir_.path() + "/h0.img?zone_mib=4&conv=2&realms=6&realm_cmr=4&realm_smr=5"
            "&convert_ms=20&max_open=16";
    options_.gc_auto = false;
    options_.hybrid_auto = false;
    options_.hybrid_latency_bound_ms = 50;
    ASSERT_NO_FATAL_FAILURE(MkfsAndMount(dir_.path() + "/st", options_));
    MkColl();
  }
  void MkColl() {
    Transaction t;
    t.MkColl(kColl, 0);
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  // A fresh store in `dir` with `options` on the same drive, mounted, kColl made.
  void Refresh(const std::string& dir, const StoreOptions& options) {
    ASSERT_OK(store_->Close());
    store_.reset();
    ASSERT_NO_FATAL_FAILURE(MkfsAndMount(dir, options, /*force=*/true));
    MkColl();
  }
  void Remount() {
    ASSERT_OK(store_->Close());
    store_.reset();
    Mount();
  }
  Json HybridBlock() {
    return store_->StatsDocumentJson("t").at("drives").at(0).at("hybrid");
  }
  std::string ZoneMap() {
    return store_->StatsDocumentJson("t").at("drives").at(0).at("zonemap").get<std::string>();
  }
  // Zones [first, first + count) of the zone map.
  std::string Zones(uint32_t first, uint32_t count) { return ZoneMap().substr(first, count); }
  static uint32_t CmrZone(uint32_t realm, uint32_t i) { return 2 + realm * kCmrPerRealm + i; }
  static uint32_t SmrZone(uint32_t realm, uint32_t i) {
    return 2 + kRealms * kCmrPerRealm + realm * kSmrPerRealm + i;
  }

};

TEST_F(HybridStoreTest, NewSpaceIsCmrAndCmrZonesResumeAfterRemount) {
  const Json h = HybridBlock();
  EXPECT_TRUE(h.at("supported").get<bool>());
  EXPECT_EQ(h.at("state").get<std::string>(), "idle");
  EXPECT_EQ(h.at("realmmap").get<std::string>(), "CCCCCC");
  EXPECT_EQ(h.at("cmr_bytes").get<uint64_t>(), kRealms * kCmrPerRealm * 4 * kMiB);
  EXPECT_EQ(h.at("smr_bytes").get<uint64_t>(), 0u);
  EXPECT_EQ(Zones(SmrZone(0, 0), kRealms * kSmrPerRealm), std::string(30, '_'));
  EXPECT_EQ(store_->Statfs().total, kRealms * kCmrPerRealm * 4 * kMiB);
  for (uint64_t i = 0; i < 5; ++i) ASSERT_OK(Put(i, i + 1));
  // The data went to CMR zones (the first realm's), none of which the drive could reset.
  EXPECT_NE(Zones(CmrZone(0, 0), 1), ".");
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
  // Remounted, writing resumes at the software write pointer of the open CMR zone: it is
  // still open (not sealed with a dead tail) and nothing counts as dead on mount.
  // (zone 0 of realm 0: the journal's; zone 1: three objects, sealed; zone 2: two, open)
  const char before = Zones(CmrZone(0, 2), 1)[0];
  ASSERT_TRUE(before >= 'A' && before <= 'K') << "CMR zone 2 of realm 0 is not open: " << ZoneMap();
  Remount();
  EXPECT_EQ(store_->Counters().dead_on_mount_bytes, 0u);
  EXPECT_EQ(Zones(CmrZone(0, 2), 1)[0], before) << ZoneMap();
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
  for (uint64_t i = 5; i < 12; ++i) ASSERT_OK(Put(i, i + 100));
  ASSERT_OK(Remove(2));
  ASSERT_OK(Put(3, 333));  // an overwrite
  Remount();
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
}

TEST_F(HybridStoreTest, ConvertingARealmMovesItsDataOutAndGainsCapacity) {
  for (uint64_t i = 0; i < 14; ++i) ASSERT_OK(Put(i, i + 1));
  for (uint64_t i = 0; i < 14; i += 3) ASSERT_OK(Remove(i));
  const uint64_t total_before = store_->Statfs().total;
  ASSERT_NE(Zones(CmrZone(0, 0), kCmrPerRealm), "....") << "realm 0 holds nothing to move";
  ASSERT_OK(store_->ConvertRealm(0, 0, ZoneDomain::kSmr));
  const Json h = HybridBlock();
  EXPECT_EQ(h.at("realmmap").get<std::string>(), "SCCCCC");
  EXPECT_EQ(h.at("smr_bytes").get<uint64_t>(), kSmrPerRealm * 4 * kMiB);
  EXPECT_EQ(h.at("conversions").get<uint64_t>(), 1u);
  EXPECT_GT(h.at("migrated_bytes").get<uint64_t>(), 0u);
  EXPECT_FALSE(h.at("quantum_ms_p99").is_null());
  EXPECT_EQ(store_->Statfs().total, total_before + (kSmrPerRealm - kCmrPerRealm) * 4 * kMiB);
  EXPECT_EQ(Zones(CmrZone(0, 0), kCmrPerRealm), "____");
  EXPECT_EQ(Zones(SmrZone(0, 0), kSmrPerRealm), ".....");
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
  // The new SMR zones take data (fill the store past what the CMR realms hold).
  for (uint64_t i = 100; i < 160; ++i) {
    Status s = Put(i, i);
    if (s.IsNoSpace()) break;
    ASSERT_OK(s);
  }
  // (the last free zones are the GC reserve: 2 zones)
  const std::string smr = Zones(SmrZone(0, 0), kSmrPerRealm);
  EXPECT_LE(std::count(smr.begin(), smr.end(), '.'), 2) << "the SMR realm was not written: "
                                                        << ZoneMap();
  Remount();
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
  EXPECT_EQ(HybridBlock().at("realmmap").get<std::string>(), "SCCCCC");
}

TEST_F(HybridStoreTest, ARealmConvertsBackToCmr) {
  for (uint64_t i = 0; i < 6; ++i) ASSERT_OK(Put(i, i + 1));
  ASSERT_OK(store_->ConvertRealm(0, 0, ZoneDomain::kSmr));
  for (uint64_t i = 6; i < 12; ++i) ASSERT_OK(Put(i, i + 1));
  ASSERT_OK(store_->ConvertRealm(0, 0, ZoneDomain::kCmr));
  EXPECT_EQ(HybridBlock().at("realmmap").get<std::string>(), "CCCCCC");
  EXPECT_EQ(Zones(SmrZone(0, 0), kSmrPerRealm), "_____");
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
  Remount();
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
}

TEST_F(HybridStoreTest, OperatorRequestsThatCannotBeDoneAreRefusedClearly) {
  EXPECT_CODE(store_->ConvertRealm(0, 0, ZoneDomain::kCmr), kInvalidArgument);  // CMR already
  EXPECT_CODE(store_->ConvertRealm(0, kRealms, ZoneDomain::kSmr), kInvalidArgument);
  EXPECT_CODE(store_->ConvertRealm(1, 0, ZoneDomain::kSmr), kInvalidArgument);  // no drive 1
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
}

// The policy grows the store on its own: below hybrid_convert_free, CMR realms convert to
// SMR while the writes go on, and no write fails while capacity can still grow.
TEST_F(HybridStoreTest, ThePolicyConvertsWhenSpaceRunsLow) {
  StoreOptions o = options_;
  o.hybrid_auto = true;
  o.hybrid_convert_free = 0.3;
  o.gc_auto = true;
  ASSERT_NO_FATAL_FAILURE(Refresh(dir_.path() + "/st2", o));
  // 70 MiB of live data: more than 70 % of the 96 MiB of CMR zones.
  for (uint64_t i = 0; i < 70; ++i) ASSERT_OK(Put(i, i + 1));
  // Conversions run between commit groups and while idle: wait for the first to end.
  for (int i = 0; i < 400 && store_->Hybrid().conversions_done == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  const HybridCounters h = store_->Hybrid();
  EXPECT_GE(h.conversions_done, 1u) << "no realm converted; stalled: " << h.stall_reason;
  EXPECT_EQ(h.to_smr, h.conversions_done);
  EXPECT_NE(HybridBlock().at("realmmap").get<std::string>().find('S'), std::string::npos);
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
}

// A device write failing at any step of a conversion (the drain's relocations, their
// commits, the zones given up), then a power cut: after remount nothing is lost, and the
// conversion can be done afterwards.
TEST_F(HybridStoreTest, CrashAtAnyWriteOfAConversionLosesNothing) {
  for (uint64_t i = 0; i < 10; ++i) ASSERT_OK(Put(i, i + 1));
  for (uint64_t i = 0; i < 10; i += 4) ASSERT_OK(Remove(i));
  ASSERT_OK(store_->Close());
  store_.reset();
  bool completed = false;
  for (uint64_t n = 1; n < 64 && !completed; ++n) {
    SCOPED_TRACE("fail write " + std::to_string(n));
    Mount();
    const uint64_t fired_before = fault_->injected_errors();
    fault_->FailNthWrite(n, /*sticky=*/true);
    Status st = store_->ConvertRealm(0, 0, ZoneDomain::kSmr);
    completed = fault_->injected_errors() == fired_before;  // fewer than n writes
    if (completed) {
      ASSERT_OK(st);
    } else {
      EXPECT_FALSE(st.ok()) << "the conversion reported success although write " << n
                            << " failed";
    }
    ASSERT_OK(fault_->PowerCut(FaultInjectionDevice::PowerCutMode::kTornUnflushed, n));
    store_.reset();
    fault_->ClearFaults();
    Mount();
    ASSERT_NO_FATAL_FAILURE(ExpectModel());
    const std::string map = HybridBlock().at("realmmap").get<std::string>();
    if (!completed) {
      EXPECT_EQ(map, "CCCCCC");
      ASSERT_OK(store_->Close());
      store_.reset();
    }
  }
  EXPECT_TRUE(completed) << "a conversion made 63 writes or more";
  EXPECT_EQ(HybridBlock().at("realmmap").get<std::string>(), "SCCCCC");
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
}

// The drive failing the conversion command itself: the realm stays CMR and takes data again;
// the failure is counted and shown; a retry converts it.
TEST_F(HybridStoreTest, TheDriveFailingTheConversionLeavesTheRealmUsable) {
  for (uint64_t i = 0; i < 8; ++i) ASSERT_OK(Put(i, i + 1));
  fault_->FailNthActivate(1);
  Status st = store_->ConvertRealm(0, 0, ZoneDomain::kSmr);
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  const HybridCounters h = store_->Hybrid();
  EXPECT_EQ(h.conversions_failed, 1u);
  const Json block = HybridBlock();
  EXPECT_EQ(block.at("state").get<std::string>(), "stalled");
  EXPECT_FALSE(block.at("stall_reason").is_null());
  EXPECT_EQ(block.at("realmmap").get<std::string>(), "CCCCCC");
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
  ASSERT_OK(store_->ConvertRealm(0, 0, ZoneDomain::kSmr));
  EXPECT_EQ(HybridBlock().at("realmmap").get<std::string>(), "SCCCCC");
  Remount();
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
}

// The process killed at each step inside the drive's conversion (the emulator's hook stops
// it there, as kill -9 would): the store mounts with the realm in its old or its new
// domain, nothing lost, and converts it when asked again.
TEST_F(HybridStoreTest, KilledInsideTheDrivesConversionLosesNothing) {
  for (uint64_t i = 0; i < 8; ++i) ASSERT_OK(Put(i, i + 1));
  ASSERT_OK(store_->Close());
  store_.reset();
  for (int step = 0; step <= 3; ++step) {
    SCOPED_TRACE("stop after step " + std::to_string(step));
    Mount();
    auto* emu = dynamic_cast<EmulatedZonedDevice*>(fault_->base());
    ASSERT_NE(emu, nullptr);
    emu->SetConversionStopAfterStepForTest(step);
    (void)store_->ConvertRealm(0, 0, ZoneDomain::kSmr);
    store_.reset();
    // The "killed" drive file is reopened, as after a crash.
    fault_.reset();
    auto dev = OpenDevice(spec_);
    ASSERT_TRUE(dev.ok()) << dev.status().ToString();
    fault_ = std::make_unique<FaultInjectionDevice>(std::move(*dev));
    Mount();
    ASSERT_NO_FATAL_FAILURE(ExpectModel());
    const std::string map = HybridBlock().at("realmmap").get<std::string>();
    EXPECT_TRUE(map == "CCCCCC" || map == "SCCCCC") << map;
    if (map == "SCCCCC") {
      ASSERT_OK(store_->ConvertRealm(0, 0, ZoneDomain::kCmr));
    }
    ASSERT_OK(store_->Close());
    store_.reset();
  }
  Mount();
  ASSERT_OK(store_->ConvertRealm(0, 0, ZoneDomain::kSmr));
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
}

}  // namespace
}  // namespace smr

namespace smr {
namespace {

}  // namespace
}  // namespace smr

namespace smr {
namespace {

// A quantum's walk stops at half the latency bound: a realm zone of hundreds of dead small
// records is not walked in one quantum once the bound has passed (bound 1 ms: 0.5 ms).
TEST_F(HybridStoreTest, AQuantumsWalkOverDeadRecordsStopsAtHalfTheBound) {
  StoreOptions o = options_;
  o.hybrid_latency_bound_ms = 1;
  ASSERT_NO_FATAL_FAILURE(Refresh(dir_.path() + "/st3", o));
  for (uint64_t i = 0; i < 300; ++i) {
    Transaction t;
    t.Write(kColl, Obj(i), 0, Data(i, 8192));
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  for (uint64_t i = 1; i < 300; ++i) {
    Transaction t;
    t.Remove(kColl, Obj(i));
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  // Hold the walk's first read (object 0's record header, the first in its zone) for 20 ms,
  // far past the 0.5 ms deadline: the quantum must end after that record, and the 299 dead
  // records after it take at least one more quantum. (Without the deadline the first
  // quantum walks the whole zone: object 0's 8 KiB are far below its live-byte budget.)
  const uint64_t payload = DeviceOffsetOf(0);
  fault_->PauseNextRead(payload - 4096, 4096);
  std::thread release([&] {
    fault_->WaitForPausedRead();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    fault_->ResumePausedRead();
  });
  ASSERT_OK(store_->ConvertRealm(0, 0, ZoneDomain::kSmr));
  release.join();
  EXPECT_GE(store_->Hybrid().quanta, 2u) << "the dead records were walked in one quantum";
  auto got = store_->Read(kColl, Obj(0), 0, 0);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, Data(0, 8192));
}

}  // namespace
}  // namespace smr

namespace smr {
namespace {

// H-Buffer: with 2 CMR and 4 SMR realms, small objects go to CMR zones; once at most one
// CMR zone is free, the oldest CMR zone's survivors are evicted into SMR (loop-back), and
// the buffer keeps taking small writes; nothing lost. Off: no eviction.
class HBufferTest : public HybridStoreTest {
 protected:
  // Converts realms 2-5 to SMR, then writes `n` distinct 32 KiB objects.
  void FillSmall(bool hbuffer, uint64_t n) {
    StoreOptions o = options_;
    o.hybrid_hbuffer = hbuffer;
    ASSERT_NO_FATAL_FAILURE(Refresh(dir_.path() + (hbuffer ? "/hb-on" : "/hb-off"), o));
    const std::string map = HybridBlock().at("realmmap").get<std::string>();
    for (uint32_t r = 0; r < kRealms; ++r) {
      const ZoneDomain want = r < 2 ? ZoneDomain::kCmr : ZoneDomain::kSmr;
      if (map[r] != (want == ZoneDomain::kCmr ? 'C' : 'S')) ASSERT_OK(store_->ConvertRealm(0, r, want));
    }
    for (uint64_t i = 0; i < n; ++i) {
      Transaction t;
      t.Write(kColl, Obj(i), 0, Data(i, 32 << 10));
      ASSERT_OK(store_->Apply(std::move(t)));
    }
  }
  void ExpectSmall(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
      auto got = store_->Read(kColl, Obj(i), 0, 0);
      ASSERT_TRUE(got.ok()) << i << ": " << got.status().ToString();
      ASSERT_EQ(*got, Data(i, 32 << 10)) << "object " << i;
    }
    auto f = store_->Fsck(/*deep=*/true, /*repair=*/false);
    ASSERT_TRUE(f.ok());
    EXPECT_TRUE(f->ok()) << (f->errors.empty() ? "" : f->errors.front());
  }
};

TEST_F(HBufferTest, SmallDataFillsCmrAndTheOldestCmrZoneIsEvictedToSmr) {
  constexpr uint64_t kObjects = 900;  // ~32 MiB: the 8 CMR zones of realms 0-1 and more
  ASSERT_NO_FATAL_FAILURE(FillSmall(/*hbuffer=*/true, kObjects));
  const HybridCounters h = store_->Hybrid();
  EXPECT_GE(h.evicted_zones, 1u);
  EXPECT_GT(h.evicted_bytes, 0u);
  EXPECT_EQ(store_->Counters().gc_smr_zones_reset, 0u);
  // What was evicted is in SMR zones of the cold GC stream ('G').
  const std::string streams =
      store_->StatsDocumentJson("t").at("drives").at(0).at("streams").get<std::string>();
  EXPECT_NE(streams.substr(SmrZone(0, 0)).find('G'), std::string::npos) << streams;
  // The first objects (oldest) went to SMR; the last ones are still in the CMR buffer.
  const std::string map = ZoneMap();
  const std::string cmr = map.substr(CmrZone(0, 0), 2 * kCmrPerRealm);
  EXPECT_NE(cmr.find_first_of("ABCDEFGHIJKabcdefghijk"), std::string::npos) << map;
  ASSERT_NO_FATAL_FAILURE(ExpectSmall(kObjects));
  Remount();
  ASSERT_NO_FATAL_FAILURE(ExpectSmall(kObjects));
}

TEST_F(HBufferTest, OffMeansNoEviction) {
  constexpr uint64_t kObjects = 900;
  ASSERT_NO_FATAL_FAILURE(FillSmall(/*hbuffer=*/false, kObjects));
  EXPECT_EQ(store_->Hybrid().evicted_zones, 0u);
  ASSERT_NO_FATAL_FAILURE(ExpectSmall(kObjects));
}

}  // namespace
}  // namespace smr

namespace smr {
namespace {

// The shrink policy (hybrid_shrink_free): on a nearly empty store whose realms are all SMR,
// SMR realms convert back to CMR on their own while the free fraction would stay above the
// watermark; with the policy off (0, the default) none does.
TEST_F(HybridStoreTest, TheShrinkPolicyConvertsEmptySmrRealmsBackToCmr) {
  for (uint32_t r = 0; r < kRealms; ++r) ASSERT_OK(store_->ConvertRealm(0, r, ZoneDomain::kSmr));
  ASSERT_OK(Put(1, 1));
  StoreOptions o = options_;
  o.hybrid_auto = true;
  o.hybrid_shrink_free = 0.6;
  // Reopen with the policy on (options are the store's own: a fresh store on the SMR drive).
  ASSERT_NO_FATAL_FAILURE(Refresh(dir_.path() + "/st-shrink", o));
  model_.clear();
  ASSERT_OK(Put(2, 2));
  for (int i = 0; i < 400 && store_->Hybrid().to_cmr == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    ASSERT_OK(Put(3, static_cast<uint64_t>(i) + 3));  // commit groups drive the policy
  }
  EXPECT_GE(store_->Hybrid().to_cmr, 1u);
  EXPECT_NE(HybridBlock().at("realmmap").get<std::string>().find('C'), std::string::npos);
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
}

}  // namespace
}  // namespace smr

namespace smr {
namespace {

// Zone-Swap: with the CMR buffer roomy, an SMR zone whose data is mostly dead already (it
// holds hot data) has its survivors moved into CMR; with the H-Buffer off nothing is swapped.
TEST_F(HBufferTest, ZoneSwapMovesTheSurvivorsOfAHotSmrZoneIntoCmr) {
  for (bool hbuffer : {true, false}) {
    SCOPED_TRACE(hbuffer ? "H-Buffer on" : "H-Buffer off");
    model_.clear();
    ASSERT_NO_FATAL_FAILURE(FillSmall(hbuffer, 0));
    // 1 MiB objects go to SMR zones first (user stream): objects 0-2 fill one zone.
    for (uint64_t i = 0; i < 6; ++i) ASSERT_OK(Put(i, i + 1));
    const uint64_t zone_size = fault_->info().zone_size;
    const uint32_t before = static_cast<uint32_t>(DeviceOffsetOf(2) / zone_size);
    // (H-Buffer off: no domain preference, the first free zone — a CMR one — takes them)
    if (hbuffer) {
      ASSERT_GE(before, SmrZone(0, 0)) << "object 2 is not in an SMR zone: " << ZoneMap();
    }
    // Objects 0 and 1 overwritten: two thirds of that zone dead -> hot.
    ASSERT_OK(Put(0, 100));
    ASSERT_OK(Put(1, 101));
    // The swap runs one quantum after each commit group (the first of 256 KiB, pieces of
    // object 2's record): more groups until the zone is emptied (or 16 groups, H-Buffer off).
    for (uint64_t g = 0; g < 16 && store_->Hybrid().swapped_zones == 0; ++g) {
      ASSERT_OK(Put(7, 7 + g));
    }
    const uint32_t after = static_cast<uint32_t>(DeviceOffsetOf(2) / zone_size);
    if (hbuffer) {
      EXPECT_GE(store_->Hybrid().swapped_bytes, kMiB);
      EXPECT_LT(after, SmrZone(0, 0)) << "object 2 was not swapped into CMR: " << ZoneMap();
    } else {
      EXPECT_EQ(store_->Hybrid().swapped_bytes, 0u);
      EXPECT_EQ(after, before);
    }
    ASSERT_NO_FATAL_FAILURE(ExpectModel());
  }
}

}  // namespace
}  // namespace smr

namespace smr {
namespace {

// A record larger than the quantum moves in pieces (split_records, store/gc_worker.cc): the first
// quantum is 256 KiB (no rate measured yet), so a realm holding one 1 MiB record and one
// record with two live extents (its middle overwritten) needs several quanta, and every
// byte reads back, after a remount too, with a clean deep fsck. (Moving records whole, one
// quantum empties the realm's zone.)
TEST_F(HybridStoreTest, ARecordLargerThanTheQuantumMovesInPieces) {
  ASSERT_OK(Put(0, 7));
  std::string mixed = Data(8, kMiB);
  {
    Transaction t;
    t.Write(kColl, Obj(1), 0, mixed);
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  const std::string middle = Data(9, kMiB / 2);
  {
    Transaction t;
    t.Write(kColl, Obj(1), kMiB / 4, middle);
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  mixed.replace(kMiB / 4, middle.size(), middle);
  ASSERT_NE(Zones(CmrZone(0, 0), kCmrPerRealm), "....") << "realm 0 holds nothing to move";
  ASSERT_OK(store_->ConvertRealm(0, 0, ZoneDomain::kSmr));
  // The first quantum (256 KiB) met object 0's 1 MiB record: moved whole, it would have
  // overshot by 768 KiB; in pieces, by less than one 64 KiB piece.
  EXPECT_GE(store_->Hybrid().quanta, 2u);
  EXPECT_LT(store_->Hybrid().max_overshoot_bytes, 64 * 1024u) << "records moved whole";
  EXPECT_EQ(HybridBlock().at("realmmap").get<std::string>(), "SCCCCC");
  auto expect = [&] {
    for (uint64_t i : {0, 1}) {
      auto got = store_->Read(kColl, Obj(i), 0, 0);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ASSERT_TRUE(*got == (i == 0 ? Data(7, kMiB) : mixed))
          << "object " << i << " differs after its records moved in pieces";
    }
    auto r = store_->Fsck(/*deep=*/true, /*repair=*/false);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->ok()) << (r->errors.empty() ? "" : r->errors.front());
    EXPECT_EQ(r->objects, 2u);
  };
  ASSERT_NO_FATAL_FAILURE(expect());
  Remount();
  ASSERT_NO_FATAL_FAILURE(expect());
}

}  // namespace
}  // namespace smr

namespace smr {
namespace {

// A realm whose open zone holds only dead data converts (found by the hybrid crash sweep,
// no crash needed): BeginDrain returns the open zone's seal (footer and finish), which the
// store keeps for the next commit group; the drain resets the now-empty zone at once, and
// the kept seal must not then finish the reset zone (the drive would refuse the conversion: a full SMR zone, or
// fail the finish of an inactive zone and stop the store).
TEST_F(HybridStoreTest, ARealmWhoseOpenZoneHoldsOnlyDeadDataConverts) {
  ASSERT_OK(store_->ConvertRealm(0, 0, ZoneDomain::kSmr));
  ASSERT_OK(Put(1, 1));  // large data prefers SMR: realm 0's first zone, left open
  ASSERT_EQ(DeviceOffsetOf(1) / fault_->info().zone_size, SmrZone(0, 0)) << ZoneMap();
  ASSERT_OK(Remove(1));
  ASSERT_OK(store_->ConvertRealm(0, 0, ZoneDomain::kCmr));
  ASSERT_OK(Put(2, 2));  // a commit group after the conversion: no stale seal runs
  EXPECT_EQ(HybridBlock().at("realmmap").get<std::string>(), "CCCCCC");
  ASSERT_OK(store_->ConvertRealm(0, 0, ZoneDomain::kSmr));
  Remount();
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
}

// The other side of that seal: a drain abandoned before any commit group ran leaves the
// zone it sealed sealed (with live data), and the next commit group writes its seal —
// the footer and the finish — so the drive reports the zone full, as the store says it is
// (CommitPipeline::TakeDeferredSeals; a seal left unwritten would leave it open on the
// drive, holding one of its open zones, with no footer for GC).
TEST_F(HybridStoreTest, AZoneSealedByAnAbandonedDrainIsFinishedByTheNextGroup) {
  ASSERT_OK(store_->ConvertRealm(0, 0, ZoneDomain::kSmr));
  ASSERT_OK(Put(1, 1));  // large data prefers SMR: realm 0's first zone, left open
  ASSERT_OK(Put(2, 2));
  ASSERT_EQ(DeviceOffsetOf(1) / fault_->info().zone_size, SmrZone(0, 0)) << ZoneMap();
  auto cond = [this](uint32_t zone) {
    auto zi = fault_->ReportZones(zone, 1);
    EXPECT_TRUE(zi.ok() && zi->size() == 1) << zi.status().ToString();
    return zi.ok() && !zi->empty() ? (*zi)[0].cond : ZoneCondition::kOffline;
  };
  ASSERT_TRUE(cond(SmrZone(0, 0)) == ZoneCondition::kImplicitOpen ||
              cond(SmrZone(0, 0)) == ZoneCondition::kExplicitOpen)
      << static_cast<int>(cond(SmrZone(0, 0)));
  // Back to CMR: BeginDrain seals the open zone, then the drain's first quantum fails on
  // its first read and the conversion is abandoned; nothing was committed in between.
  fault_->FailNthRead(1);
  EXPECT_FALSE(store_->ConvertRealm(0, 0, ZoneDomain::kCmr).ok());
  EXPECT_EQ(fault_->injected_errors(), 1u);
  EXPECT_EQ(HybridBlock().at("realmmap").get<std::string>(), "SCCCCC");
  EXPECT_NE(cond(SmrZone(0, 0)), ZoneCondition::kFull) << "the seal was written early";
  ASSERT_OK(Put(3, 3));  // the next commit group
  EXPECT_EQ(cond(SmrZone(0, 0)), ZoneCondition::kFull)
      << "the zone the abandoned drain sealed is not finished on the drive: " << ZoneMap();
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
  ASSERT_NO_FATAL_FAILURE(Remount());
  ASSERT_NO_FATAL_FAILURE(ExpectModel());
}

}  // namespace
}  // namespace smr
