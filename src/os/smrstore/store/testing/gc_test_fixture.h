// The fixture of the store's zone GC tests: one drive of 26 zones x 4 MiB (1 conventional)
// under a FaultInjectionDevice that survives remounts, objects of 1 MiB written with a seed
// and checked against a model (ExpectModel: every object's data, a clean deep fsck), helpers
// to find where an object's data is, to report the zones and to make a fresh store on the
// drive. The GC tests' files (in store/):
//   gc_test.cc        victim cleaning and relocation: dead space reclaimed, records of
//                     every padding moved intact, the walk of a victim, readers never
//                     seeing a reset zone, lifetime-aware placement (hot/cold streams)
//   gc_space_test.cc  GC for space (the commit thread making room for a group), NoSpace
//                     only when really full, victims cleaned in several slices
//   gc_idle_test.cc   background GC: sustaining churn, idle cleaning to the stop
//                     watermark, yielding to foreground work, bounded slices, pacing
//   gc_fault_test.cc  faults: crashes and I/O errors at any step of GC, records failing
//                     their crc, quarantine, slices rolled back
//
// Everything here is in the named namespace smr::gc_test, not an anonymous one: gtest
// requires every test of a suite to use the one GcTest class, across translation units.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/pattern.h"
#include "common/testing/test_util.h"
#include "device/device_spec.h"
#include "device/fault_injection_device.h"
#include "device/testing/borrowed_device.h"
#include "device/testing/device_test_backends.h"
#include "store/store.h"
#include "store/testing/store_on_faulty_drive.h"

namespace smr::gc_test {

using testing::Data;
using testing::kColl;
using testing::kMiB;
using testing::Obj;
using testing::ScratchDir;

// One drive of 26 zones x 4 MiB (1 conventional; 2 of them the journal's reserve), objects of 1 MiB, over fault-injecting
// devices that survive remounts.
class GcTest : public testing::StoreOnFaultyDrive {
 protected:
  void SetUp() override {
    spec_ = "emu:" + dir_.path() + "/d0.img?zones=26&zone_mib=4&conv=1&max_open=8";
    options_.gc_auto = false;
    options_.gc_reserve_zones = 2;
    ASSERT_NO_FATAL_FAILURE(MkfsAndMount(dir_.path() + "/st", options_));
  }
  // A new store in `dir` with `options` on the same drive (whose store must be closed:
  // the drive is then free), mounted, with collection kColl made.
  void MkfsAndMountFresh(const std::string& dir, const StoreOptions& options) {
    ASSERT_NO_FATAL_FAILURE(MkfsAndMount(dir, options, /*force=*/true));
    Transaction t;
    t.MkColl(kColl, 0);
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  // Closes the store and makes a fresh one with `options` in dir_/`name` on the fixture's
  // drive (spec_), its model empty.
  void ReplaceStore(const std::string& name, const StoreOptions& options) {
    (void)store_->Close();  // the drive is free for a fresh store
    store_.reset();
    model_.clear();
    ASSERT_NO_FATAL_FAILURE(MkfsAndMountFresh(dir_.path() + "/" + name, options));
  }
  // Options of the read-ahead tests: GC off until the test turns it on, watermarks so high
  // that idle GC cleans every zone with dead bytes, the read-ahead on (the fixture's drive
  // has no timing model, so `auto` would leave it off), idle slices of `idle_slice` bytes.
  static StoreOptions ReadAheadOptions(uint32_t idle_slice) {
    StoreOptions o;
    o.gc_auto = false;
    o.gc_start_free = 0.95;
    o.gc_urgent_free = 0;
    o.gc_stop_free = 0.98;
    o.gc_idle_slice = idle_slice;
    o.gc_slice_ms = 0;  // idle slices of idle_slice, not sized by time
    o.gc_read_ahead = true;
    return o;
  }
  // Objects 0-7 of 1 MiB, then 0, 2, 3 and 5 removed: two sealed zones, half of each dead.
  void PunchTwoZones() {
    for (uint64_t i = 0; i < 8; ++i) ASSERT_OK(Put(i, i + 1));
    for (uint64_t i : {0, 2, 3, 5}) ASSERT_OK(Remove(i));
  }
  // GC of two zones: it moves data, all of it into the young GC stream (none into gc-cold).
  void ExpectGcToTheYoungStream() {
    auto r = store_->RunGc(2);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_GT(r->live_moved, 0u);
    const std::string stats = store_->StatsJson();
    EXPECT_NE(stats.find("_gc\""), std::string::npos) << stats;
    EXPECT_EQ(stats.find("_gc-cold\""), std::string::npos) << stats;
  }
  // Every zone's write pointer and condition.
  std::vector<std::pair<uint64_t, ZoneCondition>> ZoneReport() {
    auto zi = fault_->ReportZones(0, 0);
    EXPECT_TRUE(zi.ok());
    std::vector<std::pair<uint64_t, ZoneCondition>> out;
    if (zi.ok()) {
      for (const ZoneInfo& z : *zi) out.emplace_back(z.wp, z.cond);
    }
    return out;
  }
  // A fresh store in `dir` with the journal records after the data, objects 0-5 put and
  // 0-2 removed: the zone of objects 0-2 is all dead and pinned by their commits' journal
  // records (StoreOptions::journal_with_data).
  void MakeAPinnedAllDeadZone(const std::string& dir) {
    StoreOptions o = options_;
    o.journal_with_data = true;
    ASSERT_OK(store_->Close());
    store_.reset();
    ASSERT_NO_FATAL_FAILURE(MkfsAndMountFresh(dir, o));
    for (uint64_t i = 0; i < 6; ++i) ASSERT_OK(Put(i, i + 1));
    for (uint64_t i = 0; i < 3; ++i) ASSERT_OK(Remove(i));
  }
  // Fills to about 80 % of the data zones, then deletes every other object.
  void FillAndPunch() {
    Transaction t;
    t.MkColl(kColl, 0);
    ASSERT_OK(store_->Apply(std::move(t)));
    for (uint64_t i = 0; i < 60; ++i) ASSERT_OK(Put(i, i + 1));
    for (uint64_t i = 0; i < 60; i += 2) ASSERT_OK(Remove(i));
  }
};

}  // namespace smr::gc_test
