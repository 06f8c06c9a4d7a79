// Media faults degrade, never corrupt (issue 15 item 3): a zone that a drive reports offline
// loses exactly the objects with data in it (reads of them fail naming the object, fsck
// lists them as lost) while the rest is served and written; an open zone that turns
// read-only under load is retired and the writes go elsewhere; when no zone can be written,
// writes fail naming the faults; a write error no zone fault explains makes the store
// read-only (with the reason) until a remount. Reads go on throughout.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>

#include "common/engine_log.h"
#include "common/pattern.h"
#include "common/testing/test_util.h"
#include "device/device_spec.h"
#include "device/fault_injection_device.h"
#include "device/testing/borrowed_device.h"
#include "device/testing/device_test_backends.h"
#include "store/store.h"

namespace smr {
namespace {

using testing::ScratchDir;

ObjectId Obj(const std::string& name) {
  ObjectId o;
  o.pool = 1;
  o.name = name;
  return o;
}

std::string Pattern(uint64_t seed, size_t n) {
  std::string s(n, '\0');
  FillPattern(seed, 0, s.data(), n);
  return s;
}

bool IsFaulted(ZoneCondition c) {
  return c == ZoneCondition::kOffline || c == ZoneCondition::kReadOnly;
}

// Forwards to a drive; while `*traps` > 0, each data write of 64 KiB or more finds its zone
// turned read-only: the zone is faulted on the drive and the write fails, as a zone that
// goes read-only under a write does. Smaller writes (record headers, the journal) pass.
class ZoneTurnsReadOnlyOnWrite final : public testing::BorrowedDevice {
 public:
  ZoneTurnsReadOnlyOnWrite(FaultInjectionDevice* base, std::atomic<int>* traps)
      : BorrowedDevice(base), fault_(base), traps_(traps) {}
  Status Write(uint64_t o, const void* b, size_t n) override {
    if (n >= (64u << 10)) {
      int left = traps_->load();
      while (left > 0 && !traps_->compare_exchange_weak(left, left - 1)) {
      }
      if (left > 0) {
        const auto zone = static_cast<uint32_t>(o / fault_->info().zone_size);
        fault_->SetZoneFault(zone, ZoneCondition::kReadOnly);
        return Status::IOError("write: zone " + std::to_string(zone) + " turned read-only");
      }
    }
    return BorrowedDevice::Write(o, b, n);
  }

 private:
  FaultInjectionDevice* const fault_;
  std::atomic<int>* const traps_;
};

class MediaFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    specs_ = {"emu:" + dir_.path() + "/d0.img?zones=24&zone_mib=4&conv=1&max_open=8",
              "emu:" + dir_.path() + "/d1.img?zones=24&zone_mib=4&conv=1&max_open=8"};
    ASSERT_OK(Store::Mkfs(dir_.path() + "/store", specs_, StoreOptions{}));
    for (const std::string& spec : specs_) {
      auto dev = OpenDevice(spec);
      ASSERT_TRUE(dev.ok()) << dev.status().ToString();
      drives_.push_back(std::make_unique<FaultInjectionDevice>(std::move(*dev)));
    }
    Mount();
  }
  void TearDown() override {
    if (store_) (void)store_->Close();
  }
  void Mount() {
    size_t next = 0;
    auto s = Store::Open(dir_.path() + "/store", [&](const std::string&) {
      return Result<std::unique_ptr<ZonedDevice>>(
          std::make_unique<testing::BorrowedDevice>(drives_[next++].get()));
    });
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
  }
  void Remount() {
    ASSERT_OK(store_->Close());
    store_.reset();
    Mount();
  }
  void Put(const std::string& name, uint64_t seed, size_t size) {
    Transaction t;
    if (!made_) t.MkColl("c", 0);
    made_ = true;
    t.Write("c", Obj(name), 0, Pattern(seed, size));
    ASSERT_OK(store_->Apply(std::move(t)));
    want_[name] = {seed, size};
  }
  // Sequential zones of drive `d` in condition `cond` holding data.
  std::vector<uint32_t> ZonesIn(size_t d, std::initializer_list<ZoneCondition> conds) {
    std::vector<uint32_t> out;
    auto zones = drives_[d]->ReportZones(0, 0);
    EXPECT_TRUE(zones.ok());
    for (uint32_t z = 0; z < zones->size(); ++z) {
      const ZoneInfo& zi = (*zones)[z];
      if (zi.is_conventional() || zi.wp == zi.start) continue;
      for (ZoneCondition c : conds) {
        if (zi.cond == c) out.push_back(z);
      }
    }
    return out;
  }
  // Reads every object: returns the "c/<oid>" names whose read failed; checks that the
  // others read back exactly and that every failure is an I/O error naming its object.
  std::set<std::string> ReadAll() {
    std::set<std::string> failed;
    for (const auto& [name, w] : want_) {
      auto r = store_->Read("c", Obj(name), 0, 0);
      if (r.ok()) {
        EXPECT_EQ(*r, Pattern(w.first, w.second)) << name << " read back different bytes";
        continue;
      }
      EXPECT_TRUE(r.status().IsIOError()) << name << ": " << r.status().ToString();
      const std::string who = "c/" + Obj(name).ToString();
      EXPECT_NE(r.status().ToString().find(who), std::string::npos)
          << "the error does not name the object " << who << ": " << r.status().ToString();
      failed.insert(who);
    }
    return failed;
  }

  ScratchDir dir_;
  std::vector<std::string> specs_;
  std::vector<std::unique_ptr<FaultInjectionDevice>> drives_;
  std::unique_ptr<Store> store_;
  bool made_ = false;
  std::map<std::string, std::pair<uint64_t, size_t>> want_;  // name -> (seed, size)
};

TEST_F(MediaFaultTest, AnOfflineZoneLosesExactlyItsObjectsAndTheRestIsServed) {
  for (int i = 0; i < 30; ++i) Put("o" + std::to_string(i), i, 1 << 20);
  // Take sealed zones of drive 0 offline, one at a time, until one held object data (the
  // first may hold only metadata journal records).
  std::set<std::string> failed;
  for (uint32_t z : ZonesIn(0, {ZoneCondition::kFull})) {
    drives_[0]->SetZoneFault(z, ZoneCondition::kOffline);
    failed = ReadAll();
    if (!failed.empty()) break;
    drives_[0]->ClearZoneFault(z);
  }
  ASSERT_FALSE(failed.empty()) << "no sealed zone of drive 0 held object data";
  ASSERT_LT(failed.size(), want_.size());

  auto shallow = store_->Fsck(/*deep=*/false, /*repair=*/false);
  ASSERT_TRUE(shallow.ok()) << shallow.status().ToString();
  EXPECT_EQ(std::set<std::string>(shallow->lost.begin(), shallow->lost.end()), failed);
  EXPECT_FALSE(shallow->ok());
  for (const std::string& e : shallow->errors) {
    EXPECT_NE(e.find("offline"), std::string::npos) << "an error that is not the loss: " << e;
  }

  // The store keeps taking writes, and what it wrote reads back.
  for (int i = 30; i < 40; ++i) Put("o" + std::to_string(i), i, 1 << 20);
  EXPECT_EQ(ReadAll(), failed);
  auto deep = store_->Fsck(/*deep=*/true, /*repair=*/false);
  ASSERT_TRUE(deep.ok()) << deep.status().ToString();
  EXPECT_EQ(std::set<std::string>(deep->lost.begin(), deep->lost.end()), failed);
  EXPECT_GE(deep->records_verified, want_.size() - failed.size());

  // A remount with the zone still offline: the same objects lost, the rest served.
  Remount();
  EXPECT_EQ(ReadAll(), failed);
  auto again = store_->Fsck(/*deep=*/false, /*repair=*/false);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(std::set<std::string>(again->lost.begin(), again->lost.end()), failed);
}

// A commit group whose zone turns read-only is planned again elsewhere, and again if that
// zone turns read-only too: up to four times (kMaxFaultRetries), after which the store stops
// taking writes. Four zones failing one after another still commit the group.
TEST_F(MediaFaultTest, ACommitGroupIsRetriedOnAsManyZonesAsTurnReadOnlyUpToFour) {
  Put("first", 1, 300 << 10);
  ASSERT_OK(store_->Close());
  store_.reset();
  std::atomic<int> traps{0};
  size_t next = 0;
  auto opened = Store::Open(dir_.path() + "/store", [&](const std::string&) {
    return Result<std::unique_ptr<ZonedDevice>>(
        std::make_unique<ZoneTurnsReadOnlyOnWrite>(drives_[next++].get(), &traps));
  });
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  store_ = std::move(*opened);

  traps = 4;
  Put("second", 2, 300 << 10);  // four attempts fail, the fifth commits
  EXPECT_EQ(traps.load(), 0) << "fewer zones failed than armed";
  EXPECT_EQ(store_->Counters().zones_retired, 4u);
  EXPECT_EQ(ReadAll(), std::set<std::string>{});

  traps = 5;  // one more than the retries: the group fails, the store turns read-only
  Transaction t;
  t.Write("c", Obj("third"), 0, Pattern(3, 300 << 10));
  Status s = store_->Apply(std::move(t));
  EXPECT_TRUE(s.IsReadOnly()) << s.ToString();
  EXPECT_EQ(traps.load(), 0);
  EXPECT_EQ(ReadAll(), std::set<std::string>{}) << "reads go on";
}

TEST_F(MediaFaultTest, OpenZonesTurningReadOnlyUnderLoadAreRetiredAndWritesGoOn) {
  for (int i = 0; i < 6; ++i) Put("o" + std::to_string(i), i, 300 << 10);
  const std::vector<uint32_t> open =
      ZonesIn(0, {ZoneCondition::kImplicitOpen, ZoneCondition::kExplicitOpen,
                  ZoneCondition::kClosed});
  ASSERT_FALSE(open.empty()) << "drive 0 has no open zone with data";
  for (uint32_t z : open) drives_[0]->SetZoneFault(z, ZoneCondition::kReadOnly);

  // Forty transactions in flight at once (commit groups), while the zones are read-only.
  std::atomic<int> done{0}, failed{0};
  std::string first_error;
  std::mutex mu;
  for (int i = 6; i < 46; ++i) {
    Transaction t;
    t.Write("c", Obj("o" + std::to_string(i)), 0, Pattern(i, 300 << 10));
    want_["o" + std::to_string(i)] = {static_cast<uint64_t>(i), 300 << 10};
    store_->Submit(std::move(t), [&](const Status& s) {
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        if (failed++ == 0) first_error = s.ToString();
      }
      ++done;
    });
  }
  ASSERT_TRUE(testing::WaitUntil([&] { return done.load() == 40; }));
  EXPECT_EQ(failed.load(), 0) << first_error;
  EXPECT_GE(store_->Counters().zones_retired, 1u);
  EXPECT_EQ(ReadAll(), std::set<std::string>{}) << "a read-only zone still reads";
  auto f = store_->Fsck(/*deep=*/true, /*repair=*/false);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(f->ok()) << f->errors.front();
  EXPECT_TRUE(f->lost.empty());
  // The retired zones stay retired after a remount, and writes go on.
  Remount();
  Put("after-remount", 99, 300 << 10);
  EXPECT_EQ(ReadAll(), std::set<std::string>{});
  for (uint32_t z : open) {
    auto zi = drives_[0]->ReportZones(z, 1);
    ASSERT_TRUE(zi.ok());
    EXPECT_TRUE(IsFaulted((*zi)[0].cond));
  }
}

// GC's destination zone turning read-only: the failed slice rolls back, the zone is
// retired, and the next slice relocates elsewhere (not every victim failing on it in turn).
TEST_F(MediaFaultTest, AGcDestinationTurningReadOnlyIsRetiredAndGcGoesOn) {
  store_->SetGcAuto(false);
  for (int i = 0; i < 24; ++i) Put("o" + std::to_string(i), i, 1 << 20);
  for (int i = 0; i < 24; ++i) {  // half of every zone dies (objects alternate drives)
    if (i % 4 >= 2) continue;
    Transaction t;
    t.Remove("c", Obj("o" + std::to_string(i)));
    ASSERT_OK(store_->Apply(std::move(t)));
    want_.erase("o" + std::to_string(i));
  }
  auto first = store_->RunGc(1);  // opens GC destination zones
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->zones_cleaned, 1u);
  ASSERT_GT(first->live_moved, 0u);
  // Every open zone with data (GC's destinations and the journal's among them) and every
  // empty zone but the last four of drive 1 turn read-only: wherever the next slice starts
  // writing, it fails, and only those four zones can take the relocations and the journal.
  size_t faulted = 0;
  std::set<uint32_t> spares;
  for (size_t d = 0; d < drives_.size(); ++d) {
    auto zones = drives_[d]->ReportZones(0, 0);
    ASSERT_TRUE(zones.ok());
    for (uint32_t z = static_cast<uint32_t>(zones->size()); d == 1 && z-- > 0;) {
      if ((*zones)[z].cond == ZoneCondition::kEmpty && spares.size() < 4) spares.insert(z);
    }
    for (uint32_t z = 0; z < zones->size(); ++z) {
      const ZoneInfo& zi = (*zones)[z];
      if (zi.is_conventional() || zi.cond == ZoneCondition::kFull) continue;
      if (d == 1 && spares.count(z)) continue;
      drives_[d]->SetZoneFault(z, ZoneCondition::kReadOnly);
      ++faulted;
    }
  }
  ASSERT_EQ(spares.size(), 4u);
  ASSERT_GT(faulted, 0u);
  uint32_t cleaned = 0;
  uint64_t moved = 0;
  for (int i = 0; i < 4; ++i) {
    auto r = store_->RunGc(1);
    if (r.ok()) {
      cleaned += r->zones_cleaned;
      moved += r->live_moved;
    }
  }
  EXPECT_GE(cleaned, 2u) << "GC kept failing on the read-only destination";
  EXPECT_GT(moved, 0u);
  EXPECT_GE(store_->Counters().zones_retired, 1u);
  EXPECT_EQ(ReadAll(), std::set<std::string>{});
  auto f = store_->Fsck(/*deep=*/true, /*repair=*/false);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(f->ok()) << f->errors.front();
}

// When a failed write makes the store retire more than eight zones at once (every zone
// the drives now report offline or read-only), its warning names eight and counts the rest,
// and the group is written elsewhere.
TEST_F(MediaFaultTest, AWarningOfMoreThanEightRetiredZonesNamesEightAndCountsTheRest) {
  Put("first", 1, 300 << 10);
  ASSERT_OK(store_->Close());
  store_.reset();
  std::atomic<int> traps{0};
  size_t next = 0;
  auto opened = Store::Open(dir_.path() + "/store", [&](const std::string&) {
    return Result<std::unique_ptr<ZonedDevice>>(
        std::make_unique<ZoneTurnsReadOnlyOnWrite>(drives_[next++].get(), &traps));
  });
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  store_ = std::move(*opened);
  // Nine free zones at the end of drive 1 turn read-only where nothing writes yet.
  for (uint32_t z = 15; z < 24; ++z) drives_[1]->SetZoneFault(z, ZoneCondition::kReadOnly);
  std::mutex mu;
  std::vector<std::string> warnings;
  LogSink old = SetLogSink([&](LogLevel l, const std::string& line) {
    std::lock_guard<std::mutex> lock(mu);
    if (l == LogLevel::kWarning && line.find("retired") != std::string::npos) {
      warnings.push_back(line);
    }
  });
  traps = 1;
  Put("second", 2, 300 << 10);  // its zone turns read-only: ten zones retired at once
  SetLogSink(std::move(old));
  EXPECT_EQ(traps.load(), 0);
  EXPECT_EQ(store_->Counters().zones_retired, 10u);
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("drive 1 zone 15, drive 1 zone 16"), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find(" and 2 more reported offline or read-only"), std::string::npos)
      << warnings[0];
  EXPECT_EQ(ReadAll(), std::set<std::string>{});
}

TEST_F(MediaFaultTest, WhenNoZoneCanBeWrittenWritesFailNamingTheFaultsAndReadsGoOn) {
  for (int i = 0; i < 4; ++i) Put("o" + std::to_string(i), i, 300 << 10);
  for (auto& d : drives_) {
    auto zones = d->ReportZones(0, 0);
    ASSERT_TRUE(zones.ok());
    for (uint32_t z = 0; z < zones->size(); ++z) {
      if (!(*zones)[z].is_conventional()) d->SetZoneFault(z, ZoneCondition::kReadOnly);
    }
  }
  for (int attempt = 0; attempt < 2; ++attempt) {  // the second finds them retired already
    Transaction t;
    t.Write("c", Obj("new"), 0, Pattern(7, 300 << 10));
    Status s = store_->Apply(std::move(t));
    EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
    EXPECT_NE(s.ToString().find("46 zones retired: the drives report them offline or read-only"),
              std::string::npos)
        << s.ToString();
    EXPECT_NO(store_->Exists("c", Obj("new")));
    EXPECT_EQ(ReadAll(), std::set<std::string>{});
  }
  EXPECT_EQ(store_->Counters().zones_retired, 46u);
}

TEST_F(MediaFaultTest, AWriteErrorNoZoneFaultExplainsTurnsTheStoreReadOnlyUntilRemount) {
  for (int i = 0; i < 4; ++i) Put("o" + std::to_string(i), i, 300 << 10);
  for (auto& d : drives_) d->FailNthWrite(1, /*sticky=*/true);
  Transaction t;
  t.Write("c", Obj("new"), 0, Pattern(7, 300 << 10));
  Status s = store_->Apply(std::move(t));
  EXPECT_TRUE(s.IsReadOnly()) << s.ToString();
  EXPECT_NE(s.ToString().find("store is read-only after a write error"), std::string::npos)
      << s.ToString();
  EXPECT_NO(store_->Exists("c", Obj("new")));
  // The drives work again, but the store stays read-only (with its reason) until remounted;
  // reads go on meanwhile.
  for (auto& d : drives_) d->ClearFaults();
  Transaction t2;
  t2.Write("c", Obj("o1"), 0, Pattern(8, 4096));
  Status s2 = store_->Apply(std::move(t2));
  EXPECT_TRUE(s2.IsReadOnly()) << s2.ToString();
  EXPECT_NE(s2.ToString().find("store is read-only after a write error"), std::string::npos)
      << s2.ToString();
  EXPECT_EQ(ReadAll(), std::set<std::string>{});
  Status closed = store_->Close();  // the unmount reports why the store stopped writing
  EXPECT_TRUE(closed.IsReadOnly()) << closed.ToString();
  store_.reset();
  Mount();
  Put("after-remount", 9, 300 << 10);
  EXPECT_EQ(ReadAll(), std::set<std::string>{});
  auto f = store_->Fsck(/*deep=*/true, /*repair=*/false);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(f->ok()) << f->errors.front();
}

}  // namespace
}  // namespace smr
