// Background zone GC (store/testing/gc_test_fixture.h lists the GC tests' files): it
// sustains churn of twice the capacity without NoSpace; idle GC cleans, slice after slice,
// until the stop watermark and no further, and yields to a transaction that arrives; a
// zone is cleaned in slices of bounded live bytes (the idle slice as configured, refused
// out of range); under load GC runs one slice per paced commit group, not two.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/engine_log.h"
#include "format/record.h"
#include "store/store.h"
#include "store/testing/gc_test_fixture.h"

namespace smr::gc_test {
namespace {

TEST_F(GcTest, BackgroundGcSustainsChurnWithoutNoSpace) {
  Transaction t;
  t.MkColl(kColl, 0);
  ASSERT_OK(store_->Apply(std::move(t)));
  store_->SetGcAuto(true);
  std::mt19937_64 rng(7);
  // ~52 MiB of live data on ~80 MiB of data zones, one or two of which hold the metadata
  // journal (store/metadata_journal.cc); write about twice the capacity.
  for (uint64_t i = 0; i < 52; ++i) ASSERT_OK(Put(i, i));
  for (uint64_t round = 0; round < 160; ++round) {
    auto it = model_.begin();
    std::advance(it, rng() % model_.size());
    const uint64_t victim = it->first;
    ASSERT_OK(Remove(victim));
    Status s = Put(1000 + round, round + 77);
    ASSERT_TRUE(s.ok()) << "round " << round << ": " << s.ToString();
  }
  const StoreCounters c = store_->Counters();
  EXPECT_GT(c.gc_runs, 0u);
  EXPECT_GT(c.gc_zones_reset, 0u);
  ExpectModel();
  Remount();
  ExpectModel();
}

// Byte pacing with slices sized by time (gc_slice_ms) keeps up with the same churn:
// twice the capacity written, never NoSpace, the store equal to its model before and
// after a remount.
TEST_F(GcTest, GcPacedByBytesSustainsChurnWithoutNoSpace) {
  StoreOptions o = options_;
  o.gc_slice_ms = 10;
  ASSERT_NO_FATAL_FAILURE(ReplaceStore("sliced", o));
  store_->SetGcAuto(true);
  std::mt19937_64 rng(11);
  for (uint64_t i = 0; i < 52; ++i) ASSERT_OK(Put(i, i));
  for (uint64_t round = 0; round < 160; ++round) {
    auto it = model_.begin();
    std::advance(it, rng() % model_.size());
    ASSERT_OK(Remove(it->first));
    Status s = Put(1000 + round, round + 77);
    ASSERT_TRUE(s.ok()) << "round " << round << ": " << s.ToString();
  }
  const StoreCounters c = store_->Counters();
  EXPECT_GT(c.gc_zones_reset, 0u);
  ExpectModel();
  Remount();
  ExpectModel();
}

// A store in `dir` on one emulated drive of `zones` zones x `zone_mib` MiB (1
// conventional) with `options`, mounted with auto GC off, collection kColl made.
void MkfsAndOpen(const ScratchDir& dir, int zones, int zone_mib, const StoreOptions& options,
                 std::unique_ptr<Store>* out, const std::string& timing = "") {
  const std::string spec = "emu:" + dir.path() + "/d0.img?zones=" + std::to_string(zones) +
                           "&zone_mib=" + std::to_string(zone_mib) + "&conv=1&max_open=8" +
                           timing;
  ASSERT_OK(Store::Mkfs(dir.path() + "/st", {spec}, options));
  auto opened = Store::Open(dir.path() + "/st");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  (*opened)->SetGcAuto(false);
  Transaction mk;
  mk.MkColl(kColl, 0);
  ASSERT_OK((*opened)->Apply(std::move(mk)));
  *out = std::move(*opened);
}

// One drive of 26 zones x 4 MiB (24 but for the journal's reserve) with GC watermarks at 30 % (start) and 35 % (stop), auto
// GC off, 60 objects of 1 MiB written and every other one removed: half of every zone is
// dead and free space is far below the start watermark. The caller turns GC on.
void MakeHalfDeadStore(const ScratchDir& dir, std::unique_ptr<Store>* out,
                       uint32_t free_zones_max = StoreOptions{}.gc_free_zones_max) {
  StoreOptions options;
  options.gc_start_free = 0.30;
  options.gc_stop_free = 0.35;
  options.gc_free_zones_max = free_zones_max;
  std::unique_ptr<Store> opened;
  ASSERT_NO_FATAL_FAILURE(MkfsAndOpen(dir, /*zones=*/26, /*zone_mib=*/4, options, &opened));
  Store& store = *opened;
  for (uint64_t i = 0; i < 60; ++i) {
    Transaction t;
    t.Write(kColl, Obj(i), 0, Data(i, kMiB));
    ASSERT_OK(store.Apply(std::move(t)));
  }
  for (uint64_t i = 0; i < 60; i += 2) {
    Transaction t;
    t.Remove(kColl, Obj(i));
    ASSERT_OK(store.Apply(std::move(t)));
  }
  *out = std::move(opened);
}

// Idle background GC keeps cleaning, slice after slice, until the free space is above the
// stop watermark (not one slice per commit group): one small transaction on an idle store
// far below its watermarks is enough to start it.
TEST(GcIdleTest, IdleGcCleansUntilTheStopWatermark) {
  ScratchDir dir;
  std::unique_ptr<Store> opened;
  ASSERT_NO_FATAL_FAILURE(MakeHalfDeadStore(dir, &opened));
  Store& store = *opened;
  const StoreStatfs before = store.Statfs();
  // Below the 30 % start watermark (Statfs counts the journal's 2 reserve zones free).
  ASSERT_LT(static_cast<double>(before.available) / static_cast<double>(before.total), 0.25);
  store.SetGcAuto(true);
  Transaction poke;
  poke.SetAttr(kColl, Obj(1), "k", "v");
  ASSERT_OK(store.Apply(std::move(poke)));
  // One slice moves at most 4 MiB of live data (about three of these half-dead zones);
  // reaching 35 % free takes several.
  EXPECT_TRUE(smr::testing::WaitUntil(
      [&] {
        const StoreStatfs st = store.Statfs();
        // It stops near 31 % here; one slice alone reaches 23 %.
        return static_cast<double>(st.available) / static_cast<double>(st.total) >= 0.27;
      },
      std::chrono::seconds(30)))
      << "idle GC stopped at " << store.Statfs().available << " of " << store.Statfs().total
      << " bytes available after " << store.Counters().gc_zones_reset << " zones";
  // And it stops at the stop watermark (35 % of the 21 data zones beyond the GC reserve
  // free: 8 + 2 free zones), rather than cleaning every dead byte it can.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const Json stats = store.Stats();
  ASSERT_TRUE(stats.at("zones").contains("free")) << stats.dump();
  const uint64_t free_zones = stats.at("zones").at("free").get<uint64_t>();
  std::printf("idle GC settled with %llu free zones\n",
              static_cast<unsigned long long>(free_zones));
  EXPECT_LE(free_zones, 13u) << "idle GC went on past the stop watermark";  // + 2 journal
  std::printf("idle GC: %llu zones cleaned, %llu of %llu bytes available (before: %llu)\n",
              static_cast<unsigned long long>(store.Counters().gc_zones_reset),
              static_cast<unsigned long long>(store.Statfs().available),
              static_cast<unsigned long long>(store.Statfs().total),
              static_cast<unsigned long long>(before.available));
  ASSERT_OK(store.Close());
}

// With gc_free_zones_max the watermarks keep at most that many zones free per drive: the
// same half-dead store whose 35 % stop watermark keeps 8 zones free (beyond the 2 of the
// GC reserve) with a cap of 2 zones stops idle cleaning once 2 are free — one slice
// (about 3 zones' live data) may go past it — with dead bytes left for later.
TEST(GcIdleTest, IdleGcStopsAtTheCapOnFreeZones) {
  ScratchDir dir;
  std::unique_ptr<Store> opened;
  ASSERT_NO_FATAL_FAILURE(MakeHalfDeadStore(dir, &opened, /*free_zones_max=*/2));
  Store& store = *opened;
  auto free_zones = [&] { return store.Stats().at("zones").at("free").get<uint64_t>(); };
  // The reserves' 4 (GC 2, journal 2), perhaps 1 more: below the start watermark.
  ASSERT_LE(free_zones(), 5u);
  store.SetGcAuto(true);
  Transaction poke;
  poke.SetAttr(kColl, Obj(1), "k", "v");
  ASSERT_OK(store.Apply(std::move(poke)));
  EXPECT_TRUE(smr::testing::WaitUntil([&] { return free_zones() >= 6; },
                                      std::chrono::seconds(30)))
      << "idle GC stopped with " << free_zones() << " free zones";
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const uint64_t settled = free_zones();
  std::printf("idle GC with a cap of 2 free zones settled with %llu (4 of them the reserves)\n",
              static_cast<unsigned long long>(settled));
  EXPECT_LE(settled, 8u) << "idle GC went on past the capped stop watermark";
  EXPECT_GT(store.Statfs().reclaimable, 8u * kMiB) << "dead bytes are left for later";
  // The stats document reports the store's watermarks and their cap.
  const Json doc = store.StatsDocumentJson("cap");
  EXPECT_EQ(doc.at("store").at("gc_free_zones_max").get<uint64_t>(), 2u);
  EXPECT_DOUBLE_EQ(doc.at("store").at("gc_start_free").get<double>(), 0.30);
  EXPECT_DOUBLE_EQ(doc.at("store").at("gc_stop_free").get<double>(), 0.35);
  ASSERT_OK(store.Close());
  // The cap is a mkfs-time option: it is kept over a remount.
  opened.reset();  // releases the store's lock
  auto again = Store::Open(dir.path() + "/st");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)->options().gc_free_zones_max, 2u);
  ASSERT_OK((*again)->Close());
}

// Idle GC yields to foreground work: a transaction that arrives while it cleans commits
// after at most the slice in hand, not after every zone down to the stop watermark.
TEST(GcIdleTest, IdleGcYieldsToATransactionThatArrives) {
  ScratchDir dir;
  std::unique_ptr<Store> opened;
  ASSERT_NO_FATAL_FAILURE(MakeHalfDeadStore(dir, &opened));
  Store& store = *opened;
  store.SetGcAuto(true);
  std::atomic<uint64_t> zones_at_commit{UINT64_MAX};
  Transaction poke;
  poke.SetAttr(kColl, Obj(1), "k", "v");
  ASSERT_OK(store.Apply(std::move(poke)));  // idle GC starts after this group
  Transaction next;
  next.SetAttr(kColl, Obj(3), "k", "v");
  store.Submit(std::move(next), [&](const Status& s) {
    EXPECT_OK(s);
    zones_at_commit = store.Counters().gc_zones_reset;
  });
  ASSERT_TRUE(smr::testing::WaitUntil([&] { return zones_at_commit.load() != UINT64_MAX; }));
  ASSERT_TRUE(smr::testing::WaitUntil([&] {
    const StoreStatfs st = store.Statfs();
    return static_cast<double>(st.available) / static_cast<double>(st.total) >= 0.27;
  }));
  std::this_thread::sleep_for(std::chrono::seconds(1));  // idle GC reaches its watermark
  const uint64_t zones_total = store.Counters().gc_zones_reset;
  EXPECT_LT(zones_at_commit.load() + 2, zones_total)
      << "the transaction waited for the whole idle cleaning (" << zones_at_commit.load()
      << " of " << zones_total << " zones)";
  ASSERT_OK(store.Close());
}

// A store of 12 zones x 16 MiB (drive `timing` appended to its spec) filled with objects of
// 1.25 MiB (records of 1 MiB and 256 KiB), every other one removed, then idle GC from a
// poke until `zones` more zones are reset: the live bytes idle GC moved and its slices.
struct IdleRun {
  uint64_t moved = 0, slices = 0;
  uint64_t moved_with_poke = 0;  // counted from before the poke (its group's slice too)
};
void RunIdleGc(const StoreOptions& options, const std::string& timing, uint64_t zones,
               IdleRun* out) {
  ScratchDir dir;
  std::unique_ptr<Store> opened;
  ASSERT_NO_FATAL_FAILURE(
      MkfsAndOpen(dir, /*zones=*/12, /*zone_mib=*/16, options, &opened, timing));
  Store& store = *opened;
  const size_t size = 5 * kMiB / 4;
  for (uint64_t i = 0; i < 200; ++i) {  // until full
    Transaction t;
    t.Write(kColl, Obj(i), 0, Data(i, size));
    Status s = store.Apply(std::move(t));
    if (s.IsNoSpace()) break;
    ASSERT_OK(s);
  }
  for (uint64_t i = 0; i < 200; i += 2) {
    Transaction t;
    t.Remove(kColl, Obj(i));
    (void)store.Apply(std::move(t));  // NotFound past the last object written
  }
  store.SetGcAuto(true);
  const StoreCounters before_poke = store.Counters();
  Transaction poke;
  poke.SetAttr(kColl, Obj(1), "k", "v");
  ASSERT_OK(store.Apply(std::move(poke)));
  // The poke's own group may carry a paced slice of 4 MiB (8 below the urgent watermark,
  // where this full store is); idle cleaning starts after it: count from here.
  const StoreCounters at_poke = store.Counters();
  ASSERT_TRUE(smr::testing::WaitUntil(
      [&] { return store.Counters().gc_zones_reset >= at_poke.gc_zones_reset + zones; },
      std::chrono::seconds(60)));
  ASSERT_OK(store.Close());  // waits for the GC loop
  const StoreCounters c = store.Counters();
  out->slices = c.gc_slices - at_poke.gc_slices;
  out->moved = c.gc_live_moved - at_poke.gc_live_moved;
  out->moved_with_poke = c.gc_live_moved - before_poke.gc_live_moved;
  // Zones of ~8 MiB live each, cleaned while idle: several slices of real work.
  ASSERT_GE(out->moved, zones * 4 * kMiB) << "idle GC moved too little to tell its slices";
  ASSERT_GE(out->slices, 2u);
}

// The commit thread's slow-step line for an idle GC round says what the round did
// (GcWorker::RoundTrace): its slices, the live bytes they moved, where its time went. On a
// drive of 100 MB/s the one idle round after the poke (no other transaction arrives until
// Close) cleans two zones of ~8 MiB live: far over the 250 ms that make a step slow. Its
// bytes are at least what the counters saw moved after the poke returned (the round may
// have begun just before) and at most what they saw from before the poke.
TEST(GcIdleTest, TheSlowStepLineSaysWhatAnIdleRoundDid) {
  std::mutex mu;
  std::vector<std::string> lines;
  LogSink old = SetLogSink([&](LogLevel, const std::string& line) {
    std::lock_guard<std::mutex> l(mu);
    if (line.find("an idle GC round took") != std::string::npos) lines.push_back(line);
  });
  StoreOptions options;
  options.gc_start_free = 0.30;
  options.gc_stop_free = 0.35;
  options.gc_slice_ms = 0;
  IdleRun run;
  RunIdleGc(options, "&mbps=100&seek_ms=2", 2, &run);
  SetLogSink(std::move(old));
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  ASSERT_EQ(lines.size(), 1u) << "one slow idle round expected";
  unsigned slices = 0, done = 0;
  double mib = 0;
  const size_t at = lines[0].find('[');
  ASSERT_NE(at, std::string::npos) << lines[0];
  ASSERT_EQ(std::sscanf(lines[0].c_str() + at, "[%u slices, %u victims done, %lf MiB moved",
                        &slices, &done, &mib),
            3)
      << lines[0];
  std::printf("%s\n", lines[0].c_str());
  EXPECT_GE(done, 2u) << lines[0];
  EXPECT_GE(slices, run.slices) << lines[0];
  EXPECT_GE(mib + 0.05, static_cast<double>(run.moved) / kMiB) << lines[0];
  EXPECT_LE(mib - 0.05, static_cast<double>(run.moved_with_poke) / kMiB) << lines[0];
}

// Idle background GC works in slices of about `idle_slice` live bytes (a bound on how long
// an arriving transaction waits behind it: StoreOptions::gc_idle_slice), not a whole zone at
// a time.
void ExpectIdleGcCleansInSlicesOf(uint32_t idle_slice) {
  StoreOptions options;
  options.gc_start_free = 0.30;
  options.gc_stop_free = 0.35;
  options.gc_idle_slice = idle_slice;
  options.gc_slice_ms = 0;  // the configured size, not sized by time
  IdleRun run;
  ASSERT_NO_FATAL_FAILURE(RunIdleGc(options, "", 2, &run));
  // A slice stops at the first record that takes it past the slice (records are <= 1 MiB).
  EXPECT_LE(run.moved, run.slices * (idle_slice + kMiB))
      << run.moved << " bytes in " << run.slices << " idle slices: a slice moved more than "
      << idle_slice << " bytes and one record";
}

TEST(GcIdleTest, BackgroundGcCleansAZoneInBoundedSlices) {
  ExpectIdleGcCleansInSlicesOf(4 * kMiB);
}

TEST(GcIdleTest, IdleGcSlicesFollowTheConfiguredSize) {
  ExpectIdleGcCleansInSlicesOf(512 * 1024);
}

// With gc_idle_slice 0, idle slices follow how far ahead cleaning is (gc/pacer.h,
// IdleSlice). Far below the midpoint of the watermarks (free from ~0 towards 0.35, the
// midpoint 0.325) they are the full 4 MiB, so each slice's fixed cost buys more: zones of
// ~8 MiB live take two slices or so, over 2 MiB a slice on average (1 MiB slices: under).
TEST(GcIdleTest, SizedIdleSlicesAreFullWhileCleaningIsBehind) {
  StoreOptions options;
  options.gc_start_free = 0.30;
  options.gc_stop_free = 0.35;
  options.gc_idle_slice = 0;
  options.gc_slice_ms = 0;  // the pacer's IdleSlice, not sized by time
  IdleRun run;
  ASSERT_NO_FATAL_FAILURE(RunIdleGc(options, "", 4, &run));
  std::printf("behind: %llu bytes in %llu idle slices\n",
              static_cast<unsigned long long>(run.moved),
              static_cast<unsigned long long>(run.slices));
  EXPECT_GE(run.moved, run.slices * (2 * kMiB))
      << run.moved << " bytes in " << run.slices << " idle slices";
  EXPECT_LE(run.moved, run.slices * (5 * kMiB));  // 4 MiB and a record
}

// gc_slice_ms: idle slices sized by time, from the fit of the slices measured so far. On a
// drive of 50 MB/s a slice costs at least 20 ms per MiB written (40 with its reads), so 30
// ms leaves room for about a record per slice (a slice moves at least its first record:
// 1 MiB or the 256 KiB tail of these objects); the same store on a drive of 1,000 MB/s with
// 200 ms per slice gets the full 4 MiB (gc_idle_slice), so the size follows the drive's
// time and is not a fixed cut. A slow host only makes the first case's slices smaller.
TEST(GcIdleTest, SlicesSizedByTimeFollowTheDrivesSpeed) {
  StoreOptions options;
  options.gc_start_free = 0.30;
  options.gc_stop_free = 0.35;
  options.gc_slice_ms = 30;
  IdleRun slow;
  ASSERT_NO_FATAL_FAILURE(RunIdleGc(options, "&mbps=50&seek_ms=2", 4, &slow));
  options.gc_slice_ms = 200;
  IdleRun fast;
  ASSERT_NO_FATAL_FAILURE(RunIdleGc(options, "&mbps=1000&seek_ms=0", 4, &fast));
  std::printf("sized by time: 50 MB/s, 30 ms: %llu bytes in %llu slices; 1000 MB/s, 200 ms: "
              "%llu bytes in %llu slices\n",
              static_cast<unsigned long long>(slow.moved),
              static_cast<unsigned long long>(slow.slices),
              static_cast<unsigned long long>(fast.moved),
              static_cast<unsigned long long>(fast.slices));
  EXPECT_LE(slow.moved, slow.slices * (3 * kMiB / 2))
      << slow.moved << " bytes in " << slow.slices << " slices of a 30 ms budget at 50 MB/s";
  EXPECT_GE(fast.moved, fast.slices * (2 * kMiB))
      << fast.moved << " bytes in " << fast.slices << " slices of a 200 ms budget at 1000 MB/s";
}

// ... and 1 MiB while it is ahead. Watermarks start 0.10, stop 0.90 (midpoint 0.50), a full
// store of which 3 objects in 4 are removed: idle cleaning runs from ~0 free on (it never
// reaches the stop watermark); counted from the moment statfs shows 60 % available (the
// store's own measure, of the user zones beyond the GC reserve, is then above 0.50), the
// slices move at most 1 MiB and a record each (4 MiB slices would move each zone's ~4 MiB
// of live data in one).
TEST(GcIdleTest, SizedIdleSlicesAreShortWhileCleaningIsAhead) {
  ScratchDir dir;
  StoreOptions options;
  options.gc_start_free = 0.10;
  options.gc_urgent_free = 0.01;
  options.gc_stop_free = 0.90;
  options.gc_idle_slice = 0;
  options.gc_slice_ms = 0;  // the pacer's IdleSlice, not sized by time
  std::unique_ptr<Store> opened;
  ASSERT_NO_FATAL_FAILURE(MkfsAndOpen(dir, /*zones=*/40, /*zone_mib=*/16, options, &opened));
  Store& store = *opened;
  const size_t size = 5 * kMiB / 4;
  uint64_t n = 0;
  for (; n < 1000; ++n) {  // until full
    Transaction t;
    t.Write(kColl, Obj(n), 0, Data(n, size));
    Status s = store.Apply(std::move(t));
    if (s.IsNoSpace()) break;
    ASSERT_OK(s);
  }
  for (uint64_t i = 0; i < n; ++i) {
    if (i % 4 == 0) continue;
    Transaction t;
    t.Remove(kColl, Obj(i));
    ASSERT_OK(store.Apply(std::move(t)));
  }
  store.SetGcAuto(true);
  Transaction poke;
  poke.SetAttr(kColl, Obj(0), "k", "v");
  ASSERT_OK(store.Apply(std::move(poke)));
  auto available = [&] {
    const StoreStatfs st = store.Statfs();
    return static_cast<double>(st.available) / static_cast<double>(st.total);
  };
  ASSERT_TRUE(smr::testing::WaitUntil([&] { return available() >= 0.60; }))
      << "idle GC stopped at " << available();
  const StoreCounters ahead = store.Counters();
  ASSERT_TRUE(smr::testing::WaitUntil(
      [&] { return store.Counters().gc_zones_reset >= ahead.gc_zones_reset + 4; }))
      << "idle GC stopped at " << available();
  ASSERT_OK(store.Close());
  const StoreCounters c = store.Counters();
  const uint64_t slices = c.gc_slices - ahead.gc_slices;
  const uint64_t moved = c.gc_live_moved - ahead.gc_live_moved;
  std::printf("ahead: %llu bytes in %llu idle slices\n", static_cast<unsigned long long>(moved),
              static_cast<unsigned long long>(slices));
  ASSERT_GE(moved, 4 * kMiB) << "too little moved to tell the slices";
  EXPECT_LE(moved, slices * (2 * kMiB)) << moved << " bytes in " << slices << " idle slices";
}

// Out-of-range idle slices are refused at mkfs with a message naming the option.
TEST(GcIdleTest, AnIdleSliceOutOfRangeIsRefused) {
  for (uint32_t bad : {4096u, (64u << 10) - 1, 65u << 20}) {
    ScratchDir dir;
    StoreOptions options;
    options.gc_idle_slice = bad;
    Status s = Store::Mkfs(dir.path() + "/st",
                           {"emu:" + dir.path() + "/d0.img?zones=16&zone_mib=4&conv=1&max_open=8"},
                           options);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
    EXPECT_NE(s.message().find("gc_idle_slice"), std::string::npos) << s.ToString();
  }
}

// StoreOptions::gc_idle_yield: an idle slice (64 MiB here: a whole zone's live data)
// cleans the one zone with dead bytes — objects 0, 1, 2 of 1 MiB each, in that order, 1
// removed — and a transaction arrives while the slice reads the zone's first record. With
// yield the slice ends at the next record: the transaction commits after object 0 moved
// and before object 2 (the next slice moves it); without, the slice runs to its size (the
// zone's end) first. What GC moved is read in the transaction's callback (on the commit
// thread, before the next slice). Watermarks: start 0.95 (GC runs: free is ~0.85), urgent
// 0 (a debt of ~0.1, so none of the test's few commit groups is paced), stop 0.98.
TEST_F(GcTest, AnIdleSliceEndsAtTheNextRecordWhenATransactionArrivesOnlyWithYield) {
  for (const bool yield : {true, false}) {
    SCOPED_TRACE(yield ? "gc_idle_yield" : "no yield");
    (void)store_->Close();  // the drive is free for a fresh store
    store_.reset();
    model_.clear();
    StoreOptions options;
    options.gc_auto = false;
    options.gc_start_free = 0.95;
    options.gc_urgent_free = 0;
    options.gc_stop_free = 0.98;
    options.gc_idle_slice = 64u << 20;
    options.gc_slice_ms = 0;  // the idle slice as configured, not sized by time
    options.gc_idle_yield = yield;
    // Reading ahead, an arrival stops GC before any slice (the test after this one); this
    // drive has no timing model, so it is off by default, and off here whatever that is.
    options.gc_read_ahead = false;
    ASSERT_NO_FATAL_FAILURE(
        MkfsAndMountFresh(dir_.path() + (yield ? "/yield" : "/no-yield"), options));
    for (uint64_t i = 0; i < 6; ++i) ASSERT_OK(Put(i, i + 1));
    ASSERT_OK(Remove(1));
    const StoreCounters before = store_->Counters();

    // The next device read is idle GC's first: the victim's zone footer (this mount sealed
    // the zone) or the header of its first record.
    // GC starts on the commit thread's next idle wakeup, or once the poke committed (so the
    // poke may still be queued when the read is held: an arrival too, ending the slice
    // with the one below).
    fault_->PauseNextRead(0, fault_->info().capacity_bytes());
    store_->SetGcAuto(true);
    std::promise<Status> poked;
    Transaction poke;
    poke.SetAttr(kColl, Obj(3), "k", "v");
    store_->Submit(std::move(poke), [&](const Status& s) { poked.set_value(s); });
    const uint64_t held = fault_->WaitForPausedRead();
    if (held % fault_->info().zone_size != 0) {  // read here while GC's read is held
      std::string block(4096, '\0');
      EXPECT_OK(fault_->Read(held, block.data(), block.size()));
      auto h = DecodeRecordHeader(block.data());
      EXPECT_TRUE(h.ok() && h->type == RecordType::kZoneFooter)
          << "GC's first read is neither a zone's start nor its footer";
    }

    std::promise<uint64_t> moved;
    Transaction arrival;
    arrival.SetAttr(kColl, Obj(4), "k", "v");
    store_->Submit(std::move(arrival), [&](const Status& s) {
      EXPECT_OK(s);
      moved.set_value(store_->Counters().gc_live_moved - before.gc_live_moved);
    });
    fault_->ResumePausedRead();
    EXPECT_EQ(moved.get_future().get(), yield ? kMiB : 2 * kMiB);
    EXPECT_OK(poked.get_future().get());
    EXPECT_TRUE(smr::testing::WaitUntil(
        [&] { return store_->Counters().gc_zones_reset > before.gc_zones_reset; }))
        << "idle GC did not finish the zone";
    ASSERT_OK(store_->Close());
    const StoreCounters after = store_->Counters();
    EXPECT_EQ(after.gc_live_moved - before.gc_live_moved, 2 * kMiB);  // objects 0 and 2
    EXPECT_EQ(after.gc_slices - before.gc_slices, yield ? 2u : 1u);
    store_.reset();  // releases the store's lock
    ASSERT_NO_FATAL_FAILURE(Mount());
    ExpectModel();
  }
}

// Idle GC reads its slice's records ahead in pieces of at most 512 KiB and looks for an
// arrival before each (StoreOptions::gc_read_ahead): a transaction that arrives while one
// piece is being read commits right after that piece — no further read, nothing moved —
// and the slices that follow move the victim's live records from what was read ahead.
// The arrival's callback is where the reads are counted, so the commit is not pipelined:
// pipelined, the callback runs on the sync thread after the WAL sync, while the commit
// thread already reads on for idle GC (the commit itself still came after one piece).
TEST_F(GcTest, AnArrivalWaitsBehindOneReadAheadPieceNotASlice) {
  StoreOptions o = ReadAheadOptions(64u << 20);
  o.commit_pipeline = false;
  ASSERT_NO_FATAL_FAILURE(ReplaceStore("read-ahead", o));
  for (uint64_t i = 0; i < 6; ++i) ASSERT_OK(Put(i, i + 1));
  const uint64_t zone_size = fault_->info().zone_size;
  const uint64_t first = DeviceOffsetOf(0);
  const uint64_t victim = first / zone_size * zone_size;
  ASSERT_EQ(DeviceOffsetOf(2) / zone_size * zone_size, victim) << "objects 0-2 share a zone";
  ASSERT_OK(Remove(1));
  const StoreCounters before = store_->Counters();
  const uint64_t reads_before = fault_->reads();

  // The first read of the victim's first record (object 0's, 1 MiB + its header): the
  // read-ahead's first piece (the footer, at the zone's end, is read before it).
  fault_->PauseNextRead(victim, first + 1 - victim);
  store_->SetGcAuto(true);
  std::promise<Status> poked;
  Transaction poke;
  poke.SetAttr(kColl, Obj(3), "k", "v");
  store_->Submit(std::move(poke), [&](const Status& s) { poked.set_value(s); });
  EXPECT_LE(fault_->WaitForPausedRead(), first);
  const uint64_t reads_held = fault_->reads();  // the held read is counted when it ends

  struct AtCommit {
    uint64_t moved, reads;
  };
  std::promise<AtCommit> at_commit;
  Transaction arrival;
  arrival.SetAttr(kColl, Obj(4), "k", "v");
  store_->Submit(std::move(arrival), [&](const Status& s) {
    EXPECT_OK(s);
    const StoreCounters c = store_->Counters();
    at_commit.set_value({c.gc_live_moved - before.gc_live_moved, fault_->reads()});
  });
  fault_->ResumePausedRead();
  const AtCommit seen = at_commit.get_future().get();
  EXPECT_EQ(seen.moved, 0u) << "a slice ran before the arrival";
  EXPECT_EQ(seen.reads, reads_held + 1) << "GC read on after the arrival, before it committed";
  EXPECT_OK(poked.get_future().get());

  EXPECT_TRUE(smr::testing::WaitUntil(
      [&] { return store_->Counters().gc_zones_reset > before.gc_zones_reset; }))
      << "idle GC did not finish the zone";
  // GC's reads: the footer, then each live record (1 MiB + 4 KiB) in pieces of at most
  // 512 KiB (three each); the slices read nothing themselves.
  EXPECT_EQ(fault_->reads() - reads_before, 1u + 2 * 3);
  ASSERT_OK(store_->Close());
  const StoreCounters after = store_->Counters();
  EXPECT_EQ(after.gc_live_moved - before.gc_live_moved, 2 * kMiB);  // objects 0 and 2
  EXPECT_GE(after.gc_read_ahead_yields - before.gc_read_ahead_yields, 1u);
  // Objects 0 and 2 read ahead (each 1 MiB + a 4 KiB header), object 1's dead record not.
  EXPECT_EQ(after.gc_read_ahead_bytes - before.gc_read_ahead_bytes, 2 * (kMiB + 4096));
  store_.reset();  // releases the store's lock
  ASSERT_NO_FATAL_FAILURE(Mount());
  ExpectModel();
}

// Slices shorter than a paced slice's 4 MiB share one read-ahead: with 1 MiB idle slices,
// the victim's second live record is read before the first slice commits (one trip of the
// head to the victim for both), and the second slice reads nothing.
TEST_F(GcTest, ShortIdleSlicesWriteWhatOneReadAheadBroughtIn) {
  ASSERT_NO_FATAL_FAILURE(ReplaceStore("short-slices", ReadAheadOptions(1u << 20)));
  for (uint64_t i = 0; i < 6; ++i) ASSERT_OK(Put(i, i + 1));
  const uint64_t zone_size = fault_->info().zone_size;
  const uint64_t second = DeviceOffsetOf(2);
  ASSERT_EQ(DeviceOffsetOf(0) / zone_size, second / zone_size) << "objects 0-2 share a zone";
  ASSERT_OK(Remove(1));
  const StoreCounters before = store_->Counters();

  fault_->PauseNextRead(second, 1);  // the first read of object 2's record
  store_->SetGcAuto(true);
  Transaction poke;
  poke.SetAttr(kColl, Obj(3), "k", "v");
  store_->Submit(std::move(poke), [](const Status& s) { EXPECT_OK(s); });
  fault_->WaitForPausedRead();
  EXPECT_EQ(store_->Counters().gc_live_moved, before.gc_live_moved)
      << "object 2 was read after a slice had moved object 0: a trip to the victim per slice";
  fault_->ResumePausedRead();

  EXPECT_TRUE(smr::testing::WaitUntil(
      [&] { return store_->Counters().gc_zones_reset > before.gc_zones_reset; }))
      << "idle GC did not finish the zone";
  ASSERT_OK(store_->Close());
  const StoreCounters after = store_->Counters();
  EXPECT_EQ(after.gc_live_moved - before.gc_live_moved, 2 * kMiB);
  EXPECT_EQ(after.gc_slices - before.gc_slices, 2u);
  EXPECT_EQ(after.gc_read_ahead_bytes - before.gc_read_ahead_bytes, 2 * (kMiB + 4096));
  // The stats document reports the setting and the counters (gc.read_ahead_*).
  const Json doc = store_->StatsDocumentJson("short-slices");
  EXPECT_EQ(doc.at("store").at("gc_read_ahead").get<bool>(), true);
  EXPECT_EQ(doc.at("gc").at("read_ahead_bytes").get<uint64_t>(), after.gc_read_ahead_bytes);
  EXPECT_EQ(doc.at("gc").at("read_ahead_yields").get<uint64_t>(), after.gc_read_ahead_yields);
  store_.reset();
  ASSERT_NO_FATAL_FAILURE(Mount());
  ExpectModel();
}

// The read-ahead is not topped up while what the next slice needs is held: on a victim of
// seven live records with 1 MiB idle slices, the first read-ahead brings in four (4 MiB),
// four slices write them, and only then is the fifth read — one trip of the head to the
// victim per 4 MiB, not one per slice.
TEST_F(GcTest, TheReadAheadIsToppedUpOnlyWhenTheNextSliceNeedsIt) {
  spec_ = "emu:" + dir_.path() + "/d16.img?zones=10&zone_mib=16&conv=1&max_open=8";
  ASSERT_NO_FATAL_FAILURE(ReplaceStore("top-up", ReadAheadOptions(1u << 20)));
  const uint64_t zone_size = fault_->info().zone_size;
  std::vector<std::pair<uint64_t, uint64_t>> first_zone;  // (device offset, object)
  for (uint64_t i = 0; i < 20; ++i) {
    ASSERT_OK(Put(i, i + 1));
    const uint64_t at = DeviceOffsetOf(i);
    if (first_zone.empty() || at / zone_size == first_zone.front().first / zone_size) {
      first_zone.emplace_back(at, i);
    }
  }
  ASSERT_GE(first_zone.size(), 13u) << "a 16 MiB zone holds about 15 records of 1 MiB";
  std::vector<uint64_t> live;  // device offsets of the victim's live records, in order
  for (size_t k = 0; k < first_zone.size(); ++k) {
    if (k % 2 == 1) {
      ASSERT_OK(Remove(first_zone[k].second));
    } else {
      live.push_back(first_zone[k].first);
    }
  }
  ASSERT_GE(live.size(), 7u);
  const StoreCounters before = store_->Counters();

  fault_->PauseNextRead(live[4], 1);  // the first read of the fifth live record
  store_->SetGcAuto(true);
  Transaction poke;
  poke.SetAttr(kColl, Obj(first_zone[0].second), "k", "v");
  store_->Submit(std::move(poke), [](const Status& s) { EXPECT_OK(s); });
  fault_->WaitForPausedRead();
  EXPECT_EQ(store_->Counters().gc_live_moved - before.gc_live_moved, 4 * kMiB)
      << "the read-ahead was topped up before the slices had written what it held";
  fault_->ResumePausedRead();
  EXPECT_TRUE(smr::testing::WaitUntil(
      [&] { return store_->Counters().gc_zones_reset > before.gc_zones_reset; }))
      << "idle GC did not finish the zone";
  ASSERT_OK(store_->Close());
  EXPECT_EQ(store_->Counters().gc_live_moved - before.gc_live_moved, live.size() * kMiB);
  store_.reset();
  ASSERT_NO_FATAL_FAILURE(Mount());
  ExpectModel();
}

// A read-ahead that fails (a media error on one of its pieces) is the slice's failure: the
// victim is quarantined, nothing moved, nothing lost, and the store keeps taking writes.
TEST_F(GcTest, AReadAheadThatFailsQuarantinesItsVictimAndLosesNothing) {
  ASSERT_NO_FATAL_FAILURE(ReplaceStore("read-ahead-fails", ReadAheadOptions(4u << 20)));
  for (uint64_t i = 0; i < 6; ++i) ASSERT_OK(Put(i, i + 1));
  ASSERT_OK(Remove(1));
  const StoreCounters before = store_->Counters();

  fault_->FailNthRead(2);  // the footer reads; the first piece of object 0's record fails
  store_->SetGcAuto(true);
  Transaction poke;
  poke.SetAttr(kColl, Obj(3), "k", "v");
  ASSERT_OK(store_->Apply(std::move(poke)));
  EXPECT_TRUE(smr::testing::WaitUntil(
      [&] { return store_->Counters().gc_failures > before.gc_failures; }))
      << "the failed read-ahead was not counted as a GC failure";
  const StoreCounters c = store_->Counters();
  EXPECT_EQ(fault_->injected_errors(), 1u);
  EXPECT_EQ(c.gc_quarantined_zones, 1u);
  EXPECT_EQ(c.gc_live_moved, before.gc_live_moved);
  EXPECT_EQ(c.gc_zones_reset, before.gc_zones_reset);
  ASSERT_OK(Put(6, 7));  // still taking writes
  ExpectModel();
}

// One drive of 40 zones x 16 MiB with `options`, filled with 1 MiB objects until full,
// every other one removed; then background GC on: idle GC cleans to the stop watermark
// (5 %), and puts take the free zones down to one beyond the GC and journal reserves
// (2.7 % of the user zones: a little below the 3 % start watermark, a debt of 0.15).
// `live` (if given): the objects left, each holding Data(i, kMiB).
void MakeStoreJustBelowTheStartWatermark(const ScratchDir& dir, const StoreOptions& options,
                                         std::unique_ptr<Store>* out,
                                         std::map<uint64_t, bool>* live) {
  std::unique_ptr<Store> opened;
  ASSERT_NO_FATAL_FAILURE(MkfsAndOpen(dir, /*zones=*/40, /*zone_mib=*/16, options, &opened));
  Store& store = *opened;
  std::map<uint64_t, bool> objects;
  uint64_t n = 0;
  for (;; ++n) {  // until full
    Transaction t;
    t.Write(kColl, Obj(n), 0, Data(n, kMiB));
    Status s = store.Apply(std::move(t));
    if (s.IsNoSpace()) break;
    ASSERT_OK(s);
    objects[n] = true;
  }
  for (uint64_t i = 0; i < n; i += 2) {
    Transaction t;
    t.Remove(kColl, Obj(i));
    ASSERT_OK(store.Apply(std::move(t)));
    objects.erase(i);
  }
  store.SetGcAuto(true);
  auto free_zones = [&] {
    const Json zones = store.Stats().at("zones");
    return zones.contains("free") ? zones.at("free").get<uint64_t>() : 0;
  };
  Transaction poke;
  poke.SetAttr(kColl, Obj(1), "k", "v");
  ASSERT_OK(store.Apply(std::move(poke)));
  // Free zones counted here include the GC reserve (2) and the journal's (2).
  ASSERT_TRUE(smr::testing::WaitUntil([&] { return free_zones() >= 6; }));
  for (uint64_t i = n; free_zones() > 5; ++i) {
    Transaction t;
    t.Write(kColl, Obj(i), 0, Data(i, kMiB));
    ASSERT_OK(store.Apply(std::move(t)));
    objects[i] = true;
  }
  if (live != nullptr) *live = std::move(objects);
  *out = std::move(opened);
}

// Submits `txns` behind a gate (a first transaction whose callback waits until all of them
// are queued), so every commit group but the last has foreground work behind it; waits for
// all of them. `on_done(k)` runs in the k-th callback (1-based), on the thread that runs the
// callbacks, before the next callback and before any idle GC after the last.
void SubmitBehindAGate(Store& store, std::vector<Transaction> txns,
                       const std::function<void(int)>& on_done) {
  std::atomic<int> done{0};
  std::promise<void> all_queued;
  std::shared_future<void> queued_gate = all_queued.get_future().share();
  {
    Transaction t;
    t.SetAttr(kColl, Obj(1), "gate", "v");
    store.Submit(std::move(t), [queued_gate](const Status&) { queued_gate.wait(); });
  }
  const int n = static_cast<int>(txns.size());
  for (Transaction& t : txns) {
    store.Submit(std::move(t), [&](const Status& s) {
      EXPECT_OK(s);
      const int k = done.load() + 1;
      on_done(k);
      done = k;  // after on_done: the test thread never reads its figures unset
    });
  }
  all_queued.set_value();
  ASSERT_TRUE(smr::testing::WaitUntil([&] { return done.load() == n; }));
}

// Under load, a little below the start watermark, background GC runs one slice per paced
// commit group (two only when urgent): 40 queued groups need 4 slices here, a GC that ran
// two per group ran 9. (Most of these 4 come from the commit thread making room for a
// group, EnsureSpace; the pacing's 1/debt spacing itself is not pinned by this test.)
TEST(GcIdleTest, GcUnderLoadRunsOneSlicePerPacedGroupNotTwo) {
  ScratchDir dir;
  StoreOptions options;
  options.max_group = 1;  // one commit group per transaction
  options.gc_slice_ms = 0;  // fixed slices paced by groups (byte pacing: the test below)
  std::unique_ptr<Store> opened;
  ASSERT_NO_FATAL_FAILURE(MakeStoreJustBelowTheStartWatermark(dir, options, &opened, nullptr));
  Store& store = *opened;
  // 40 small transactions queued at once: 40 groups, each preceded by the paced check.
  const uint64_t slices_before = store.Counters().gc_slices;
  std::atomic<int> done{0};
  std::atomic<uint64_t> slices_at_end{0};
  std::vector<uint64_t> slices_after(41, 0);  // written by the commit thread only
  // The commit thread waits in the first callback until all 40 are queued: every group
  // but the last then has foreground work behind it.
  std::promise<void> all_queued;
  std::shared_future<void> queued_gate = all_queued.get_future().share();
  {
    Transaction t;
    t.SetAttr(kColl, Obj(1), "gate", "v");
    store.Submit(std::move(t), [queued_gate](const Status&) { queued_gate.wait(); });
  }
  for (int i = 0; i < 40; ++i) {
    Transaction t;
    t.SetAttr(kColl, Obj(1), "k" + std::to_string(i), "v");
    store.Submit(std::move(t), [&](const Status& s) {
      EXPECT_OK(s);
      // Callbacks run one at a time on the commit thread; `done` is advanced only after
      // the figures are stored, so the test thread never reads them unset.
      const int k = done.load() + 1;
      slices_after[k] = store.Counters().gc_slices - slices_before;
      // The last group's callback runs before the idle GC after it.
      if (k == 40) slices_at_end = store.Counters().gc_slices;
      done = k;
    });
  }
  all_queued.set_value();
  ASSERT_TRUE(smr::testing::WaitUntil([&] { return done.load() == 40; }));
  const uint64_t slices = slices_at_end.load() - slices_before;
  std::printf("GC under load: %llu slices during 40 commit groups (after 5, 10, 20: %llu, %llu, "
              "%llu)\n",
              static_cast<unsigned long long>(slices),
              static_cast<unsigned long long>(slices_after[5]),
              static_cast<unsigned long long>(slices_after[10]),
              static_cast<unsigned long long>(slices_after[20]));
  EXPECT_GE(slices, 1u) << "no GC at all below the start watermark";
  EXPECT_LE(slices, 6u) << "more slices than the cleaning needed: two per paced group?";
  ASSERT_OK(store.Close());
}

// Byte pacing (gc_slice_ms): commit groups earn GC credit by the zone bytes they write. The
// store just below the start watermark (not urgent), 40 queued groups: metadata-only
// groups (an xattr each) earn nothing and carry no slice; overwrites of 1 MiB earn a
// slice's worth within a few groups (the budget's first probes are 256 and 512 KiB).
TEST(GcIdleTest, BytePacedSlicesRideOnlyWithGroupsThatWriteToTheZones) {
  for (const bool data : {false, true}) {
    SCOPED_TRACE(data ? "1 MiB overwrites" : "xattrs only");
    ScratchDir dir;
    StoreOptions options;
    options.max_group = 1;  // one commit group per transaction
    options.gc_slice_ms = 150;
    // No urgent watermark: below it every group carries a slice whatever it wrote, and
    // the set-up sometimes leaves the store there (a third of the runs failed so).
    options.gc_urgent_free = 0;
    // Callbacks on the commit thread: the gate holds it until all 40 are queued, so no
    // idle GC runs between them.
    options.commit_pipeline = false;
    std::unique_ptr<Store> opened;
    std::map<uint64_t, bool> live;
    ASSERT_NO_FATAL_FAILURE(MakeStoreJustBelowTheStartWatermark(dir, options, &opened, &live));
    Store& store = *opened;
    std::vector<Transaction> txns;
    for (auto it = live.begin(); it != live.end() && txns.size() < 40; ++it) {
      Transaction t;
      if (data) {
        t.Write(kColl, Obj(it->first), 0, Data(it->first + 5000, kMiB));
      } else {
        t.SetAttr(kColl, Obj(it->first), "k", "v");
      }
      txns.push_back(std::move(t));
    }
    ASSERT_EQ(txns.size(), 40u);
    // Counted from the third group's answer: the set-up's own writes leave credit, which
    // the first groups may spend (the sizer's first two probes, 256 and 512 KiB; a third
    // of the runs rode one or two so), and the idle cleaning it left running may end a
    // slice after the gate.
    std::atomic<uint64_t> slices_at_3{0}, slices_at_end{0};
    ASSERT_NO_FATAL_FAILURE(SubmitBehindAGate(store, std::move(txns), [&](int k) {
      if (k == 3) slices_at_3 = store.Counters().gc_slices;
      if (k == 40) slices_at_end = store.Counters().gc_slices;
    }));
    const uint64_t slices = slices_at_end.load() - slices_at_3.load();
    std::printf("%s: %llu GC slices in the last 37 of 40 queued groups\n",
                data ? "overwrites" : "xattrs",
                static_cast<unsigned long long>(slices));
    if (data) {
      EXPECT_GE(slices, 1u) << "groups that wrote 40 MiB below the start watermark earned no slice";
    } else {
      EXPECT_EQ(slices, 0u) << "metadata-only groups earned GC slices";
    }
    ASSERT_OK(store.Close());
  }
}

// Paced GC slices under load ride in the commit group they are paced against
// (StoreOptions::gc_in_groups): they add no commit of their own. The same 40 queued groups
// as above, once with riding and once without: without, every slice is one more commit
// group (groups = 41 + slices); with it, the paced ones are not (fewer groups than that).
// Every object still reads back and deep fsck is clean.
TEST(GcIdleTest, PacedSlicesRideInTheForegroundGroupsInsteadOfCommittingAlone) {
  for (const bool ride : {false, true}) {
    SCOPED_TRACE(ride ? "gc_in_groups" : "separate commits");
    ScratchDir dir;
    StoreOptions options;
    options.max_group = 1;  // one commit group per transaction
    options.gc_in_groups = ride;
    std::unique_ptr<Store> opened;
    std::map<uint64_t, bool> live;
    ASSERT_NO_FATAL_FAILURE(MakeStoreJustBelowTheStartWatermark(dir, options, &opened, &live));
    Store& store = *opened;
    const StoreCounters before = store.Counters();
    std::atomic<int> done{0};
    std::atomic<uint64_t> groups_at_end{0}, slices_at_end{0}, resets_at_end{0};
    std::promise<void> all_queued;
    std::shared_future<void> queued_gate = all_queued.get_future().share();
    {
      Transaction t;
      t.SetAttr(kColl, Obj(1), "gate", "v");
      store.Submit(std::move(t), [queued_gate](const Status&) { queued_gate.wait(); });
    }
    // 40 overwrites of live objects, queued behind the gate: 40 groups with work behind
    // them (but the last), each preceded by the paced check.
    std::vector<uint64_t> rewritten;
    for (auto it = live.begin(); it != live.end() && rewritten.size() < 40; ++it) {
      rewritten.push_back(it->first);
    }
    for (uint64_t i : rewritten) {
      Transaction t;
      t.Write(kColl, Obj(i), 0, Data(i + 5000, kMiB));
      store.Submit(std::move(t), [&](const Status& s) {
        EXPECT_OK(s);
        // Callbacks run one at a time on the commit thread; `done` is advanced only after
        // the end figures are stored, so the test thread never reads them unset.
        const int k = done.load() + 1;
        if (k == static_cast<int>(rewritten.size())) {
          // The last group's callback runs before the idle GC after it.
          groups_at_end = store.Counters().groups_committed;
          slices_at_end = store.Counters().gc_slices;
          resets_at_end = store.Counters().gc_zones_reset;
        }
        done = k;
      });
    }
    all_queued.set_value();
    ASSERT_TRUE(smr::testing::WaitUntil([&] { return done.load() == static_cast<int>(rewritten.size()); }));
    const uint64_t groups = groups_at_end.load() - before.groups_committed;
    const uint64_t slices = slices_at_end.load() - before.gc_slices;
    const uint64_t foreground = rewritten.size() + 1;
    std::printf("%s: %llu commit groups, %llu GC slices for %llu foreground groups\n",
                ride ? "riding" : "separate", static_cast<unsigned long long>(groups),
                static_cast<unsigned long long>(slices),
                static_cast<unsigned long long>(foreground));
    EXPECT_GE(slices, 1u) << "no GC at all below the start watermark";
    if (ride) {
      EXPECT_LT(groups, foreground + slices) << "no slice rode in a foreground group";
    } else {
      // Every slice is a commit group of its own, but a victim's last slice that found
      // nothing left to move (what remained died meanwhile) commits none: at most one per
      // zone reset.
      const uint64_t resets = resets_at_end.load() - before.gc_zones_reset;
      EXPECT_LE(groups, foreground + slices);
      EXPECT_GE(groups + resets, foreground + slices);
    }
    for (const auto& [i, unused] : live) {
      const bool again = std::find(rewritten.begin(), rewritten.end(), i) != rewritten.end();
      auto got = store.Read(kColl, Obj(i), 0, 0);
      ASSERT_TRUE(got.ok()) << i << ": " << got.status().ToString();
      EXPECT_TRUE(*got == Data(again ? i + 5000 : i, kMiB)) << "object " << i;
    }
    auto f = store.Fsck(/*deep=*/true, /*repair=*/false);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    EXPECT_TRUE(f->ok()) << f->errors.front();
    ASSERT_OK(store.Close());
  }
}

}  // namespace
}  // namespace smr::gc_test
