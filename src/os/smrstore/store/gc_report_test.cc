// Zone GC seen from outside: what RunGc reports, and its safety check — a victim whose
// live-byte counter is still non-zero after every extent in it moved is not reset (the
// accounting disagrees with the extents: fsck's job), and no data is lost.
#include <gtest/gtest.h>

#include <chrono>

#include <map>
#include <memory>
#include <string>

#include "common/pattern.h"
#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "meta/meta_store.h"
#include "store/store.h"
#include "store/transaction.h"

namespace smr {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kZoneBytes = 4 * kMiB;
const char* const kColl = "1.0_head";

ObjectId Obj(uint64_t i) {
  ObjectId o;
  o.pool = 1;
  o.name = "g" + std::to_string(i);
  return o;
}

std::string Data(uint64_t seed) {
  std::string s(kMiB, '\0');
  FillPattern(seed, 0, s.data(), s.size());
  return s;
}

class GcReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions o = Options();
    o.gc_auto = false;
    o.gc_reserve_zones = 2;
    ASSERT_OK(Store::Mkfs(dir_.path() + "/st",
                          {"emu:" + dir_.path() + "/d0.img?zones=16&zone_mib=4&conv=1&max_open=8"}, o));
    Mount();
    Transaction t;
    t.MkColl(kColl, 0);
    for (uint64_t i = 0; i < 24; ++i) t.Write(kColl, Obj(i), 0, Data(i));
    ASSERT_OK(store_->Apply(std::move(t)));
    Transaction punch;
    for (uint64_t i = 0; i < 24; i += 2) punch.Remove(kColl, Obj(i));
    ASSERT_OK(store_->Apply(std::move(punch)));
  }
  virtual StoreOptions Options() { return StoreOptions(); }
  void TearDown() override {
    if (store_) (void)store_->Close();
  }
  void Mount() {
    auto s = Store::Open(dir_.path() + "/st");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
  }
  void ExpectOddObjects() {
    for (uint64_t i = 1; i < 24; i += 2) {
      auto r = store_->Read(kColl, Obj(i), 0, 0);
      ASSERT_TRUE(r.ok()) << i << ": " << r.status().ToString();
      EXPECT_TRUE(*r == Data(i)) << "object " << i;
    }
  }

  smr::testing::ScratchDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(GcReportTest, RunGcReportsWhatItCleaned) {
  auto r = store_->RunGc(2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_GT(r->zones_cleaned, 0u);
  EXPECT_EQ(r->bytes_freed, r->zones_cleaned * kZoneBytes);
  EXPECT_GT(r->live_moved, 0u);
  EXPECT_GE(r->bytes_written, r->live_moved);
  ExpectOddObjects();
}

// A GC request leaves the commit queue when it has run: nothing of it is committed again as
// a transaction (a transaction queued behind it is the only one counted).
TEST_F(GcReportTest, AGcRequestIsNotAlsoCommittedAsATransaction) {
  const StoreCounters before = store_->Counters();
  auto r = store_->RunGc(1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Transaction t;
  t.SetAttr(kColl, Obj(1), "k", "v");
  ASSERT_OK(store_->Apply(std::move(t)));
  const StoreCounters after = store_->Counters();
  EXPECT_EQ(after.txns_committed, before.txns_committed + 1);
  EXPECT_EQ(after.txns_failed, before.txns_failed);
}

TEST_F(GcReportTest, AVictimWithLiveBytesLeftIsNotReset) {
  ASSERT_OK(store_->Close());
  store_.reset();
  {
    // Every data zone's counter claims 4 KiB more than its extents hold.
    auto meta = MetaStore::Open(dir_.path() + "/st/meta");
    ASSERT_TRUE(meta.ok()) << meta.status().ToString();
    auto zones = (*meta)->LoadZones(nullptr);
    ASSERT_TRUE(zones.ok());
    auto batch = (*meta)->NewBatch();
    for (auto [addr, zm] : *zones) {
      if (zm.stream == 0) continue;
      zm.live_bytes += 4096;
      batch->PutZone(addr.first, addr.second, zm);
    }
    ASSERT_OK((*meta)->Commit(batch.get(), true));
  }
  Mount();
  const StoreCounters before = store_->Counters();
  auto r = store_->RunGc(1);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.status().code() == Status::Code::kCorruption) << r.status().ToString();
  EXPECT_EQ(store_->Counters().gc_zones_reset, before.gc_zones_reset);
  ExpectOddObjects();
  auto fsck = store_->Fsck(/*deep=*/true, /*repair=*/false);
  ASSERT_TRUE(fsck.ok()) << fsck.status().ToString();
  EXPECT_FALSE(fsck->errors.empty());  // the counters, not the data
}

// Watermarks so high that the store is always below the urgent one: background GC runs
// in the commit path, and the time commits waited for it is counted.
class GcThrottleTest : public GcReportTest {
 protected:
  StoreOptions Options() override {
    StoreOptions o;
    o.gc_urgent_free = 0.97;
    o.gc_start_free = 0.98;
    o.gc_stop_free = 0.99;
    return o;
  }
};

TEST_F(GcThrottleTest, CommitsWaitingForGcAreCounted) {
  EXPECT_EQ(store_->Counters().gc_throttle_ns, 0u);
  store_->SetGcAuto(true);
  Transaction t;
  t.Write(kColl, Obj(100), 0, Data(100));
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_OK(store_->Apply(std::move(t)));
  const uint64_t waited_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count());
  const StoreCounters c = store_->Counters();
  EXPECT_GT(c.gc_live_moved + c.gc_zones_reset, 0u) << "GC did not run in the commit path";
  // The time the commit spent behind GC: real time, not more than the Apply took. (Not a
  // lower bound beyond > 0: a slice riding in the group whose victim has only its footer
  // left plans without a device read, in a few microseconds.)
  EXPECT_GT(c.gc_throttle_ns, 0u);
  EXPECT_LE(c.gc_throttle_ns, waited_ns);
  ExpectOddObjects();
}

// Greedy GC takes the zone with the fewest live bytes first.
class GcGreedyTest : public ::testing::Test {
 protected:
  smr::testing::ScratchDir dir_;
};

TEST_F(GcGreedyTest, TheZoneWithTheMostDeadBytesIsCleanedFirst) {
  StoreOptions o;
  o.gc_auto = false;
  o.gc_policy = VictimPolicy::kGreedy;
  ASSERT_OK(Store::Mkfs(dir_.path() + "/st",
                        {"emu:" + dir_.path() + "/d0.img?zones=16&zone_mib=4&conv=1&max_open=8"}, o));
  auto s = Store::Open(dir_.path() + "/st");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  Store& store = **s;
  Transaction t;
  t.MkColl(kColl, 0);
  ASSERT_OK(store.Apply(std::move(t)));
  // One object per transaction: 3 objects of 1 MiB fill a 4 MiB zone (with headers).
  for (uint64_t i = 0; i < 9; ++i) {
    Transaction w;
    w.Write(kColl, Obj(i), 0, Data(i));
    ASSERT_OK(store.Apply(std::move(w)));
  }
  // Zone of objects 0-2: one live; zone of 3-5: two live.
  Transaction rm;
  rm.Remove(kColl, Obj(0));
  rm.Remove(kColl, Obj(1));
  rm.Remove(kColl, Obj(3));
  ASSERT_OK(store.Apply(std::move(rm)));
  auto r = store.RunGc(1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->zones_cleaned, 1u);
  EXPECT_EQ(r->live_moved, kMiB);  // object 2 only
  for (uint64_t i : {2, 4, 5, 6, 7, 8}) {
    auto d = store.Read(kColl, Obj(i), 0, 0);
    ASSERT_TRUE(d.ok()) << i;
    EXPECT_TRUE(*d == Data(i)) << i;
  }
  EXPECT_OK(store.Close());
}

}  // namespace
}  // namespace smr
