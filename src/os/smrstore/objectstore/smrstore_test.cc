// SMRStore through Ceph's ObjectStore interface: mkfs/mount from the meta key, callbacks,
// read-after-queue, omap iteration, listing bounds, errors as Ceph's errnos, statfs,
// remount + fsck, perf counters and admin-socket commands answered to Ceph's own CLI.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <chrono>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.h"
#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "objectstore/SMRStore.h"
#include "objectstore/standalone_context.h"

namespace smr::ceph_adapter {
namespace {

using Transaction = ObjectStore::Transaction;

ceph::buffer::list Bl(const std::string& s) {
  ceph::buffer::list bl;
  bl.append(s.data(), s.size());
  return bl;
}

std::string Str(ceph::buffer::list& bl) { return std::string(bl.c_str(), bl.length()); }

ghobject_t Obj(const std::string& name, uint32_t hash, int64_t pool = 2) {
  return ghobject_t(hobject_t(object_t(name), "", snapid_t(CEPH_NOSNAP), hash, pool, ""));
}

// Queues `t` and waits for its on_commit; returns the commit result.
int Commit(ObjectStore* store, ObjectStore::CollectionHandle& ch, Transaction&& t) {
  std::promise<int> done;
  t.register_on_commit(make_lambda_context([&done](int r) { done.set_value(r); }));
  const int q = store->queue_transaction(ch, std::move(t));
  if (q < 0) return q;
  return done.get_future().get();
}

std::string RunCommand(const std::string& cmd) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return "<popen failed>";
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  pclose(p);
  return out;
}

class SMRStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/osd";
    ASSERT_EQ(::mkdir(path_.c_str(), 0755), 0);
    asok_ = dir_.path() + "/osd.asok";
    ctx_ = std::make_unique<StandaloneCephContext>(asok_);
    store_ = std::make_unique<SMRStore>(ctx_->get(), path_);
    const std::string specs = "emu:" + dir_.path() + "/d0.img?zones=24&zone_mib=4&conv=1 emu:" +
                              dir_.path() + "/d1.img?zones=24&zone_mib=4&conv=1";
    ASSERT_EQ(store_->write_meta("smrstore_devices", specs), 0);
    // These cases check the errnos a refused transaction returns; an OSD's default is
    // on_transaction_error = abort (ErrorPolicyAbortsByDefault).
    ASSERT_EQ(store_->write_meta("smrstore.conf", "on_transaction_error = report"), 0);
    ASSERT_EQ(store_->mkfs(), 0);
    ASSERT_EQ(store_->mount(), 0);
  }
  void TearDown() override {
    if (store_) {
      EXPECT_EQ(store_->umount(), 0);
    }
  }

  // A second store, not yet made, in dir_/NAME on one drive of 24 x 4 MiB zones, with
  // smrstore.conf holding `conf`.
  std::unique_ptr<SMRStore> MakeWithConf(const std::string& name, const std::string& conf) {
    const std::string dir = dir_.path() + "/" + name;
    EXPECT_EQ(::mkdir(dir.c_str(), 0755), 0);
    auto s = std::make_unique<SMRStore>(ctx_->get(), dir);
    EXPECT_EQ(s->write_meta("smrstore_devices", "emu:" + dir + "/d0.img?zones=24&zone_mib=4&conv=1"), 0);
    EXPECT_EQ(s->write_meta("smrstore.conf", conf), 0);
    return s;
  }

  // Unmounts store_ and replaces it with a new store, made and mounted, in dir_/NAME on one
  // rotational drive (the emulator's timing model, at a speed that costs nothing) of 24 x
  // 4 MiB zones, with smrstore.conf holding `conf` when it is not empty.
  void RemakeOnARotationalDrive(const std::string& name, const std::string& conf = "") {
    ASSERT_EQ(store_->umount(), 0);
    const std::string dir = dir_.path() + "/" + name;
    ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
    store_ = std::make_unique<SMRStore>(ctx_->get(), dir);
    ASSERT_EQ(store_->write_meta("smrstore_devices",
                                 "emu:" + dir + "/d0.img?zones=24&zone_mib=4&conv=1&mbps=100000&seek_ms=0"),
              0);
    if (!conf.empty()) ASSERT_EQ(store_->write_meta("smrstore.conf", conf), 0);
    ASSERT_EQ(store_->mkfs(), 0);
    ASSERT_EQ(store_->mount(), 0);
  }

  smr::testing::ScratchDir dir_;
  std::string path_, asok_;
  std::unique_ptr<StandaloneCephContext> ctx_;
  std::unique_ptr<SMRStore> store_;
};

TEST_F(SMRStoreTest, TypeJournalAndMkfsErrors) {
  EXPECT_EQ(store_->get_type(), "smrstore");
  EXPECT_FALSE(store_->needs_journal());
  EXPECT_TRUE(store_->test_mount_in_use());
  // A second mkfs/mount of a mounted or existing store is refused with a Ceph errno.
  SMRStore other(ctx_->get(), path_);
  EXPECT_LT(other.mount(), 0);
  // No drives configured: a clear -EINVAL, nothing created.
  const std::string empty = dir_.path() + "/empty";
  ASSERT_EQ(::mkdir(empty.c_str(), 0755), 0);
  SMRStore none(ctx_->get(), empty);
  EXPECT_EQ(none.mkfs(), -EINVAL);
}

// The GC watermarks are mkfs-time keys of smrstore.conf: a store is made with them, a later
// file that disagrees refuses the mount, and an order that cannot work refuses the mkfs.
TEST_F(SMRStoreTest, GcWatermarksAreMadeFromTheSettingsFile) {
  auto bad = MakeWithConf("bad", "gc_start_free = 0.2\ngc_stop_free = 0.1");  // start above stop
  EXPECT_EQ(bad->mkfs(), -EINVAL);
  auto low = MakeWithConf("low", "gc_start_free = 0.015\ngc_urgent_free = 0.005\ngc_stop_free = 0.025");
  ASSERT_EQ(low->mkfs(), 0);
  ASSERT_EQ(low->mount(), 0);
  ASSERT_EQ(low->umount(), 0);
  ASSERT_EQ(low->write_meta("smrstore.conf", "gc_start_free = 0.03"), 0);  // the default
  EXPECT_EQ(low->mount(), -EINVAL);
  ASSERT_EQ(low->write_meta("smrstore.conf", "gc_start_free = 0.015"), 0);
  ASSERT_EQ(low->mount(), 0);
  ASSERT_EQ(low->umount(), 0);
}

// So are the idle GC slice, gc_idle_yield, gc_read_ahead, journal_with_data and gc_free_zones_max: a bad value refuses the mkfs; a store keeps
// the one it was made with, and a file that disagrees later refuses the mount.
TEST_F(SMRStoreTest, TheIdleGcSliceAndYieldAreMadeFromTheSettingsFile) {
  // `bad` refuses the mkfs; a store made with `made` mounts, refuses a file saying
  // `differs`, and mounts again with `again`.
  auto expect_kept = [&](const std::string& key, const std::string& bad, const std::string& made,
                         const std::string& differs, const std::string& again) {
    SCOPED_TRACE(key);
    auto refused = MakeWithConf(key + "-bad", key + " = " + bad);
    EXPECT_EQ(refused->mkfs(), -EINVAL);
    auto st = MakeWithConf(key, key + " = " + made);
    ASSERT_EQ(st->mkfs(), 0);
    ASSERT_EQ(st->mount(), 0);
    ASSERT_EQ(st->umount(), 0);
    ASSERT_EQ(st->write_meta("smrstore.conf", key + " = " + differs), 0);
    EXPECT_EQ(st->mount(), -EINVAL);
    ASSERT_EQ(st->write_meta("smrstore.conf", again), 0);
    ASSERT_EQ(st->mount(), 0);
    ASSERT_EQ(st->umount(), 0);
  };
  // For the slice, a file without the key: the store's own value.
  expect_kept("gc_idle_slice", "4096", "2097152", "262144", "");
  expect_kept("gc_idle_yield", "maybe", "false", "true", "gc_idle_yield = false");
  expect_kept("gc_read_ahead", "sometimes", "true", "auto", "gc_read_ahead = true");
  expect_kept("journal_with_data", "sometimes", "true", "auto", "journal_with_data = true");
  expect_kept("gc_free_zones_max", "-3", "16", "64", "gc_free_zones_max = 16");
}

TEST_F(SMRStoreTest, TransactionsCallbacksAndReads) {
  const coll_t cid = coll_t::pg(spg_t(pg_t(3, 2)));
  auto ch = store_->create_new_collection(cid);
  {
    Transaction t;
    t.create_collection(cid, 4);
    ASSERT_EQ(Commit(store_.get(), ch, std::move(t)), 0);
  }
  EXPECT_TRUE(store_->collection_exists(cid));
  EXPECT_EQ(store_->collection_bits(ch), 4);

  // Queue without waiting, then read: the read sees the write (read-after-queue).
  std::atomic<int> applied{0}, committed{0};
  {
    Transaction t;
    ceph::buffer::list data = Bl(std::string(100000, 'x'));
    t.write(cid, Obj("a", 0x3), 0, data.length(), data);
    std::map<std::string, ceph::buffer::list> attrs = {{"_", Bl("oi")}, {"snapset", Bl("ss")}};
    t.setattrs(cid, Obj("a", 0x3), attrs);
    std::map<std::string, ceph::buffer::list> omap;
    for (int i = 0; i < 600; ++i) omap["key" + std::to_string(1000 + i)] = Bl(std::to_string(i));
    t.omap_setkeys(cid, Obj("a", 0x3), omap);
    t.omap_setheader(cid, Obj("a", 0x3), Bl("hdr"));
    t.register_on_applied(make_lambda_context([&](int r) { applied += (r == 0); }));
    t.register_on_commit(make_lambda_context([&](int r) { committed += (r == 0); }));
    ASSERT_EQ(store_->queue_transaction(ch, std::move(t)), 0);
  }
  ceph::buffer::list got;
  EXPECT_EQ(store_->read(ch, Obj("a", 0x3), 0, 0, got), 100000);
  EXPECT_EQ(Str(got), std::string(100000, 'x'));
  ch->flush();
  EXPECT_TRUE(smr::testing::WaitUntil([&] { return committed.load() > 0; }));
  EXPECT_EQ(committed.load(), 1);
  EXPECT_EQ(applied.load(), 1);

  struct stat st;
  EXPECT_EQ(store_->stat(ch, Obj("a", 0x3), &st), 0);
  EXPECT_EQ(st.st_size, 100000);
  ceph::buffer::ptr v;
  EXPECT_EQ(store_->getattr(ch, Obj("a", 0x3), "snapset", v), 0);
  EXPECT_EQ(std::string(v.c_str(), v.length()), "ss");
  EXPECT_EQ(store_->getattr(ch, Obj("a", 0x3), "nope", v), -ENODATA);
  EXPECT_EQ(store_->stat(ch, Obj("missing", 0x3), &st), -ENOENT);
  EXPECT_FALSE(store_->exists(ch, Obj("missing", 0x3)));

  // The omap iterator walks every key in order, across engine pages, and bounds work.
  auto it = store_->get_omap_iterator(ch, Obj("a", 0x3));
  ASSERT_TRUE(it);
  int n = 0;
  std::string prev;
  for (it->seek_to_first(); it->valid(); it->next(), ++n) {
    EXPECT_LT(prev, it->key());
    prev = it->key();
  }
  EXPECT_EQ(n, 600);
  it->lower_bound("key1500");
  ASSERT_TRUE(it->valid());
  EXPECT_EQ(it->key(), "key1500");
  it->upper_bound("key1500");
  ASSERT_TRUE(it->valid());
  EXPECT_EQ(it->key(), "key1501");
  ceph::buffer::list val = it->value();
  EXPECT_EQ(Str(val), "501");
  EXPECT_FALSE(store_->get_omap_iterator(ch, Obj("missing", 0x3)));
  ceph::buffer::list hdr;
  EXPECT_EQ(store_->omap_get_header(ch, Obj("a", 0x3), &hdr), 0);
  EXPECT_EQ(Str(hdr), "hdr");
  std::set<std::string> present;
  EXPECT_EQ(store_->omap_check_keys(ch, Obj("a", 0x3), {"key1000", "zzz"}, &present), 0);
  EXPECT_EQ(present, (std::set<std::string>{"key1000"}));

  // A transaction the engine refuses (setattr on a missing object) fails as a whole with
  // Ceph's errno and changes nothing.
  {
    Transaction t;
    ceph::buffer::list d = Bl("new");
    t.write(cid, Obj("b", 0x13), 0, d.length(), d);
    ceph::buffer::list a = Bl("v");
    t.setattr(cid, Obj("ghost", 0x23), "k", a);
    EXPECT_EQ(Commit(store_.get(), ch, std::move(t)), -ENOENT);
  }
  EXPECT_FALSE(store_->exists(ch, Obj("b", 0x13)));
}

TEST_F(SMRStoreTest, ListingOrderBoundsAndRemount) {
  const coll_t cid = coll_t::pg(spg_t(pg_t(0, 2)));
  auto ch = store_->create_new_collection(cid);
  std::vector<ghobject_t> objs;
  {
    Transaction t;
    t.create_collection(cid, 0);
    for (uint32_t i = 0; i < 50; ++i) {
      objs.push_back(Obj("o" + std::to_string(i), i * 0x05000001u));
      t.touch(cid, objs.back());
    }
    ASSERT_EQ(Commit(store_.get(), ch, std::move(t)), 0);
  }
  std::sort(objs.begin(), objs.end());  // Ceph's real order (cmp from libceph-common)
  std::vector<ghobject_t> listed;
  ghobject_t next;
  ghobject_t start;
  for (;;) {
    std::vector<ghobject_t> page;
    ASSERT_EQ(store_->collection_list(ch, start, ghobject_t::get_max(), 7, &page, &next), 0);
    listed.insert(listed.end(), page.begin(), page.end());
    if (next.is_max()) break;
    start = next;
  }
  ASSERT_EQ(listed.size(), objs.size());
  for (size_t i = 0; i < objs.size(); ++i) EXPECT_EQ(cmp(listed[i], objs[i]), 0) << i;


  store_statfs_t sf;
  ASSERT_EQ(store_->statfs(&sf), 0);
  EXPECT_GT(sf.total, 0);
  EXPECT_GT(sf.available, 0);
  // max <= 0 lists nothing and points at the first object (as BlueStore does).
  std::vector<ghobject_t> none;
  ASSERT_EQ(store_->collection_list(ch, ghobject_t(), ghobject_t::get_max(), 0, &none, &next), 0);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(cmp(next, objs.front()), 0);
  bool per_pool = true;
  EXPECT_EQ(store_->pool_statfs(2, &sf, &per_pool), -ENOTSUP);

  ch.reset();
  ASSERT_EQ(store_->umount(), 0);
  EXPECT_EQ(store_->fsck(true), 0);
  ASSERT_EQ(store_->mount(), 0);
  std::vector<coll_t> colls;
  ASSERT_EQ(store_->list_collections(colls), 0);
  ASSERT_EQ(colls.size(), 1u);
  EXPECT_EQ(colls[0].to_str(), "2.0_head");
  auto ch2 = store_->open_collection(cid);
  ASSERT_TRUE(ch2);
  bool empty = true;
  EXPECT_EQ(store_->collection_empty(ch2, &empty), 0);
  EXPECT_FALSE(empty);
  EXPECT_FALSE(store_->open_collection(coll_t::pg(spg_t(pg_t(9, 2)))));
}

TEST_F(SMRStoreTest, PerfCountersAndAdminSocketThroughCephCli) {
  if (::access("/usr/bin/ceph", X_OK) != 0) GTEST_SKIP() << "ceph CLI not installed";
  const coll_t cid = coll_t::pg(spg_t(pg_t(1, 2)));
  auto ch = store_->create_new_collection(cid);
  {
    Transaction t;
    t.create_collection(cid, 0);
    ceph::buffer::list d = Bl(std::string(300000, 'z'));
    t.write(cid, Obj("p", 7), 0, d.length(), d);
    // A small object (above inline_max, at most pack_max): a pack entry.
    ceph::buffer::list small = Bl(std::string(20000, 's'));
    t.write(cid, Obj("s", 8), 0, small.length(), small);
    ASSERT_EQ(Commit(store_.get(), ch, std::move(t)), 0);
  }
  ASSERT_NE(store_->get_perf_counters(), nullptr);
  const std::string cli = "/usr/bin/ceph --admin-daemon " + asok_ + " ";
  // The real `ceph` CLI talks to the real AdminSocket of libceph-common, which calls our hook.
  const std::string stats = RunCommand(cli + "smrstore stats");
  auto stats_doc = smr::ParseJson(stats);
  ASSERT_TRUE(stats_doc.ok()) << stats_doc.status().ToString() << ": " << stats;
  EXPECT_EQ(stats_doc->value("schema", ""), "smrstore.stats/1") << stats;
  ASSERT_TRUE(stats_doc->contains("drives") && !stats_doc->at("drives").empty()) << stats;
  EXPECT_TRUE(stats_doc->at("drives").at(0).contains("zonemap")) << stats;
  const std::string zones = RunCommand(cli + "smrstore zones");
  auto zones_doc = smr::ParseJson(zones);
  ASSERT_TRUE(zones_doc.ok()) << zones_doc.status().ToString() << ": " << zones;
  EXPECT_TRUE(zones_doc->contains("drives") && zones_doc->at("drives").is_array()) << zones;
  EXPECT_FALSE(zones_doc->contains("io")) << zones;
  const std::string stop = RunCommand(cli + "smrstore gc stop");
  auto stop_doc = smr::ParseJson(stop);
  ASSERT_TRUE(stop_doc.ok()) << stop;
  EXPECT_EQ(stop_doc->value("gc_auto", true), false) << stop;
  const std::string perf = RunCommand(cli + "perf dump smrstore");
  EXPECT_NE(perf.find("\"smrstore_user_bytes\": 320000"), std::string::npos) << perf;
  // One pack record of one entry: a header block and 20000 bytes padded to 5 blocks.
  EXPECT_NE(perf.find("\"smrstore_pack_records\": 1,"), std::string::npos) << perf;
  EXPECT_NE(perf.find("\"smrstore_pack_entries\": 1,"), std::string::npos) << perf;
  EXPECT_NE(perf.find("\"smrstore_pack_payload_bytes\": 20000,"), std::string::npos) << perf;
  EXPECT_NE(perf.find("\"smrstore_pack_record_bytes\": 24576"), std::string::npos) << perf;
  EXPECT_NE(perf.find("\"smrstore_gc_auto\": 0"), std::string::npos) << perf;
  const std::string drive = RunCommand(cli + "perf dump smrstore-drive.1");
  EXPECT_NE(drive.find("\"smrstore_zones_free\""), std::string::npos) << drive;
  auto start_doc = smr::ParseJson(RunCommand(cli + "smrstore gc start"));
  ASSERT_TRUE(start_doc.ok());
  EXPECT_EQ(start_doc->value("gc_auto", false), true);
}

// On a drive with a head (the emulator's timing model, at a speed that costs nothing) the
// journal records go after the data and pin its zone, and an object's records lying together
// are read in one device read: smrstore_data_reads / _data_read_records and
// smrstore_gc_pinned_zones in the Ceph CLI's perf dump, as the stats document has them.
TEST_F(SMRStoreTest, DataReadsAndJournalPinnedZonesInThePerfDump) {
  if (::access("/usr/bin/ceph", X_OK) != 0) GTEST_SKIP() << "ceph CLI not installed";
  ASSERT_NO_FATAL_FAILURE(RemakeOnARotationalDrive("rot"));
  const std::string cli = "/usr/bin/ceph --admin-daemon " + asok_ + " ";
  auto dump = [&] { return RunCommand(cli + "perf dump smrstore"); };
  // Nothing read, nothing pinned yet (mkfs's checkpoint).
  std::string perf = dump();
  EXPECT_NE(perf.find("\"smrstore_data_reads\": 0,"), std::string::npos) << perf;
  EXPECT_NE(perf.find("\"smrstore_data_read_records\": 0,"), std::string::npos) << perf;
  EXPECT_NE(perf.find("\"smrstore_gc_pinned_zones\": 0"), std::string::npos) << perf;

  const coll_t cid = coll_t::pg(spg_t(pg_t(1, 2)));
  auto ch = store_->create_new_collection(cid);
  const uint64_t size = (2u << 20) + 100000;  // three records, written together
  {
    Transaction t;
    t.create_collection(cid, 0);
    ceph::buffer::list g = Bl(std::string(size, 'g'));
    t.write(cid, Obj("g", 9), 0, g.length(), g);
    ASSERT_EQ(Commit(store_.get(), ch, std::move(t)), 0);
  }
  ceph::buffer::list out;
  ASSERT_EQ(store_->read(ch, Obj("g", 9), 0, 0, out), static_cast<int>(size));
  // The admin command refreshes the counters; its document is what they mirror.
  auto doc = smr::ParseJson(RunCommand(cli + "smrstore stats"));
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  perf = dump();
  EXPECT_NE(perf.find("\"smrstore_data_reads\": 1,"), std::string::npos) << perf;
  EXPECT_NE(perf.find("\"smrstore_data_read_records\": 3,"), std::string::npos) << perf;
  // The one zone the group wrote its data and its journal record to.
  EXPECT_NE(perf.find("\"smrstore_gc_pinned_zones\": 1"), std::string::npos) << perf;
  EXPECT_EQ(doc->at("io").at("data_reads").get<uint64_t>(), 1u);
  EXPECT_EQ(doc->at("io").at("data_read_records").get<uint64_t>(), 3u);
  EXPECT_EQ(doc->at("gc").at("pinned_zones").get<uint64_t>(), 1u);
}

// Idle GC's read-ahead reaches the perf counters: a rotational store whose watermarks keep
// idle GC cleaning reads the live records of a half-dead zone ahead (each 1 MiB + a 4 KiB
// header) and reports the bytes as smrstore_gc_read_ahead_bytes, as its document does.
TEST_F(SMRStoreTest, GcReadAheadInThePerfDump) {
  if (::access("/usr/bin/ceph", X_OK) != 0) GTEST_SKIP() << "ceph CLI not installed";
  // Idle GC cleans whatever has dead bytes; journal records in zones of their own (a data
  // zone holding them would wait for a checkpoint before GC may take it).
  ASSERT_NO_FATAL_FAILURE(RemakeOnARotationalDrive(
      "ra", "gc_start_free = 0.95\ngc_urgent_free = 0\ngc_stop_free = 0.98\n"
            "journal_with_data = false\npack_max = 0"));
  const std::string cli = "/usr/bin/ceph --admin-daemon " + asok_ + " ";
  std::string perf = RunCommand(cli + "perf dump smrstore");
  EXPECT_NE(perf.find("\"smrstore_gc_read_ahead_bytes\": 0,"), std::string::npos) << perf;
  EXPECT_NE(perf.find("\"smrstore_gc_read_ahead_yields\": 0"), std::string::npos) << perf;
  RunCommand(cli + "smrstore gc stop");
  const coll_t cid = coll_t::pg(spg_t(pg_t(1, 2)));
  auto ch = store_->create_new_collection(cid);
  {
    Transaction t;
    t.create_collection(cid, 0);
    ASSERT_EQ(Commit(store_.get(), ch, std::move(t)), 0);
  }
  // Six objects of 1 MiB, one commit each: three to a 4 MiB zone; then the second goes.
  for (uint32_t i = 0; i < 6; ++i) {
    Transaction t;
    ceph::buffer::list b = Bl(std::string(1u << 20, static_cast<char>('a' + i)));
    t.write(cid, Obj("o" + std::to_string(i), i), 0, b.length(), b);
    ASSERT_EQ(Commit(store_.get(), ch, std::move(t)), 0);
  }
  {
    Transaction t;
    t.remove(cid, Obj("o1", 1));
    ASSERT_EQ(Commit(store_.get(), ch, std::move(t)), 0);
  }
  RunCommand(cli + "smrstore gc start");
  {
    Transaction t;  // a commit wakes idle GC
    t.touch(cid, Obj("poke", 99));
    ASSERT_EQ(Commit(store_.get(), ch, std::move(t)), 0);
  }
  uint64_t bytes = 0;
  for (int i = 0; i < 200 && bytes == 0; ++i) {
    auto doc = smr::ParseJson(RunCommand(cli + "smrstore stats"));
    ASSERT_TRUE(doc.ok()) << doc.status().ToString();
    EXPECT_EQ(doc->at("store").at("gc_read_ahead").get<bool>(), true);
    bytes = doc->at("gc").at("read_ahead_bytes").get<uint64_t>();
    if (bytes == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // The first zone's two live objects (o0, o2), each a 1 MiB record with its 4 KiB header;
  // o1's dead record is not read.
  EXPECT_EQ(bytes, 2u * ((1u << 20) + 4096));
  perf = RunCommand(cli + "perf dump smrstore");
  EXPECT_NE(perf.find("\"smrstore_gc_read_ahead_bytes\": " + std::to_string(bytes) + ","),
            std::string::npos)
      << perf;
  ceph::buffer::list out;
  ASSERT_EQ(store_->read(ch, Obj("o2", 2), 0, 0, out), 1 << 20);
  EXPECT_EQ(out.to_str(), std::string(1u << 20, 'c'));
}

// statfs.writable reaches Ceph three ways that agree on a store at rest (GC stopped): the
// stats document (`smrstore stats`), the perf counter smrstore_statfs_writable in the Ceph
// CLI's perf dump, and statfs()'s available. With dead records it is less than available +
// reclaimable (the live records' headers, zone tails and the GC reserve are not writable).
TEST_F(SMRStoreTest, StatfsWritableInTheDocumentThePerfDumpAndStatfs) {
  if (::access("/usr/bin/ceph", X_OK) != 0) GTEST_SKIP() << "ceph CLI not installed";
  const std::string cli = "/usr/bin/ceph --admin-daemon " + asok_ + " ";
  RunCommand(cli + "smrstore gc stop");
  const coll_t cid = coll_t::pg(spg_t(pg_t(1, 2)));
  auto ch = store_->create_new_collection(cid);
  {
    Transaction t;
    t.create_collection(cid, 0);
    ASSERT_EQ(Commit(store_.get(), ch, std::move(t)), 0);
  }
  // Six objects of 1 MiB, then two of them overwritten: dead records in the user zones.
  for (uint32_t i = 0; i < 8; ++i) {
    Transaction t;
    const uint32_t o = i < 6 ? i : (i - 6) * 2 + 1;
    ceph::buffer::list b = Bl(std::string(1u << 20, static_cast<char>('a' + i)));
    t.write(cid, Obj("o" + std::to_string(o), o), 0, b.length(), b);
    ASSERT_EQ(Commit(store_.get(), ch, std::move(t)), 0);
  }
  // The admin command refreshes the counters from the document it answers.
  auto doc = smr::ParseJson(RunCommand(cli + "smrstore stats"));
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  const smr::Json& st = doc->at("statfs");
  const uint64_t writable = st.at("writable").get<uint64_t>();
  const std::string dump = RunCommand(cli + "perf dump smrstore");
  auto perf = smr::ParseJson(dump);
  ASSERT_TRUE(perf.ok()) << perf.status().ToString() << ": " << dump;
  EXPECT_EQ(perf->at("smrstore").at("smrstore_statfs_writable").get<uint64_t>(), writable)
      << dump;
  store_statfs_t sf;
  ASSERT_EQ(store_->statfs(&sf), 0);
  EXPECT_EQ(static_cast<uint64_t>(sf.available), writable);
  EXPECT_GT(st.at("reclaimable").get<uint64_t>(), 0u);
  EXPECT_LT(writable, st.at("available").get<uint64_t>() + st.at("reclaimable").get<uint64_t>());
  RunCommand(cli + "smrstore gc start");
}

// Ceph's statfs: total never changes; dead records GC can reclaim are available; what is
// neither live nor available (the GC reserve) is internally reserved.
TEST_F(SMRStoreTest, StatfsCountsReclaimableSpaceAsAvailable) {
  store_statfs_t before;
  ASSERT_EQ(store_->statfs(&before), 0);
  EXPECT_GT(before.total, 0u);
  EXPECT_GT(before.internally_reserved, 0u) << "the GC reserve zones are not available to users";
  const coll_t cid = coll_t::pg(spg_t(pg_t(1, 2)));
  auto ch = store_->create_new_collection(cid);
  {
    Transaction t;
    t.create_collection(cid, 0);
    ASSERT_EQ(Commit(store_.get(), ch, std::move(t)), 0);
  }
  const std::string data(3 << 20, 'd');
  for (int round = 0; round < 4; ++round) {  // 3 overwrites: 9 MiB of dead records
    Transaction t;
    t.write(cid, Obj("big", 1), 0, data.size(), Bl(data));
    ASSERT_EQ(Commit(store_.get(), ch, std::move(t)), 0);
  }
  store_statfs_t after;
  ASSERT_EQ(store_->statfs(&after), 0);
  EXPECT_EQ(after.total, before.total);
  EXPECT_EQ(after.total, after.available + after.allocated + after.internally_reserved);
  // Only the live copy (plus record headers) is used; the overwritten copies are available.
  EXPECT_GE(after.allocated, static_cast<int64_t>(data.size()));
  EXPECT_LT(after.allocated, static_cast<int64_t>(data.size() + (1 << 20)));
  // 12 MiB written, 9 MiB of it dead: available drops by the 3 MiB live plus, for each zone
  // holding dead bytes, a record's tail (1 MiB records in these 4 MiB zones) that the
  // relocated records may leave unusable — not by the 12 MiB written.
  EXPECT_GT(after.available + (8 << 20), before.available)
      << "12 MiB written, 9 MiB of it dead: available dropped by "
      << before.available - after.available;
  EXPECT_EQ(after.data_stored, static_cast<int64_t>(data.size()));
}

// A counting heartbeat handle, as the OSD's op thread passes one.
class CountingHandle : public ThreadPool::TPHandle {
 public:
  std::atomic<int> resets{0};
  void reset_tp_timeout() override { ++resets; }
  void suspend_tp_timeout() override {}
};

TEST_F(SMRStoreTest, ThrottleWaitsKeepTheHeartbeatAlive) {
  ASSERT_EQ(store_->umount(), 0);
  ASSERT_EQ(store_->write_meta("smrstore.conf",
                               "on_transaction_error = report\nthrottle_bytes = 4096"), 0);
  ASSERT_EQ(store_->mount(), 0);
  const coll_t cid = coll_t::pg(spg_t(pg_t(2, 2)));
  auto ch = store_->create_new_collection(cid);
  CountingHandle hb;
  std::atomic<int> committed{0};
  for (int i = 0; i < 20; ++i) {
    Transaction t;
    if (i == 0) t.create_collection(cid, 0);
    const std::string data(256 << 10, static_cast<char>('a' + i));
    t.write(cid, Obj("o" + std::to_string(i), i), 0, data.size(), Bl(data));
    t.register_on_commit(make_lambda_context([&](int r) { committed += (r == 0); }));
    std::vector<Transaction> tls;
    tls.push_back(std::move(t));
    ASSERT_EQ(store_->queue_transactions(ch, tls, TrackedOpRef(), &hb), 0);
  }
  ch->flush();
  EXPECT_TRUE(smr::testing::WaitUntil([&] { return committed.load() >= 20; }));
  EXPECT_EQ(committed.load(), 20);
  // Each 256 KiB transaction is over the 4 KiB budget: it waits for the one before to commit.
  EXPECT_GE(hb.resets.load(), 1) << "queue_transactions waited without resetting the heartbeat";
}

TEST_F(SMRStoreTest, SettingsFileErrorsRefuseTheMountNamingTheLine) {
  ASSERT_EQ(store_->umount(), 0);
  ASSERT_EQ(store_->write_meta("smrstore.conf", "on_transaction_error = report\ngc_polcy = greedy"), 0);
  EXPECT_EQ(store_->mount(), -EINVAL);
  ASSERT_EQ(store_->write_meta("smrstore.conf", "on_transaction_error = sometimes"), 0);
  EXPECT_EQ(store_->mount(), -EINVAL);
  // A mkfs-time key that disagrees with how the store was made.
  ASSERT_EQ(store_->write_meta("smrstore.conf", "gc_policy = greedy"), 0);
  EXPECT_EQ(store_->mount(), -EINVAL);
  ASSERT_EQ(store_->write_meta("smrstore.conf", "pack_max = 0"), 0);
  EXPECT_EQ(store_->mount(), -EINVAL);
  ASSERT_EQ(store_->write_meta("smrstore.conf", "pack_max = 2000000"), 0);  // above 1 MiB
  EXPECT_EQ(store_->mount(), -EINVAL);
  ASSERT_EQ(store_->write_meta("smrstore.conf", "gc_start_free = 0.015"), 0);  // made with 0.03
  EXPECT_EQ(store_->mount(), -EINVAL);
  ASSERT_EQ(store_->write_meta("smrstore.conf", "gc_stop_free = 1.5"), 0);
  EXPECT_EQ(store_->mount(), -EINVAL);
  ASSERT_EQ(store_->write_meta("smrstore.conf", "gc_urgent_free = 1%"), 0);
  EXPECT_EQ(store_->mount(), -EINVAL);
  ASSERT_EQ(store_->write_meta("smrstore.conf",
                               "# mkfs defaults, restated\ngc_policy = lifetime\npack_max = 32768\n"
                               "gc_start_free = 0.03\ngc_urgent_free = 0.01\ngc_stop_free = 0.05\n"
                               "on_transaction_error = report\ndevice_class = smr"), 0);
  ASSERT_EQ(store_->mount(), 0);
  EXPECT_EQ(store_->get_default_device_class(), "smr");
  std::map<std::string, std::string> md;
  store_->collect_metadata(&md);
  EXPECT_EQ(md["smrstore_gc_policy"], "lifetime");
  EXPECT_EQ(md["smrstore_on_transaction_error"], "report");
  EXPECT_EQ(md["smrstore_drives"], "2");
  EXPECT_NE(md["smrstore_devices"].find("d0.img"), std::string::npos);
  EXPECT_FALSE(md["smrstore_version"].empty());
}

// The OSD default: a transaction the engine refuses aborts the process after logging why
// (Ceph ignores the result passed to commit callbacks).
TEST_F(SMRStoreTest, ErrorPolicyAbortsByDefault) {
  ASSERT_EQ(store_->umount(), 0);
  ASSERT_EQ(store_->write_meta("smrstore.conf", "device_class = hdd"), 0);
  ASSERT_EQ(store_->mount(), 0);
  const coll_t cid = coll_t::pg(spg_t(pg_t(4, 2)));
  auto ch = store_->create_new_collection(cid);
  {
    Transaction t;
    t.create_collection(cid, 0);
    ASSERT_EQ(Commit(store_.get(), ch, std::move(t)), 0);
  }
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  auto refused = [&] {
    Transaction t;
    std::map<std::string, ceph::buffer::list> kv = {{"k", Bl("v")}};
    t.omap_setkeys(cid, Obj("never-created", 9), kv);  // kNotFound: not tolerated
    (void)Commit(store_.get(), ch, std::move(t));
  };
  EXPECT_DEATH(refused(), "never-created.*does not exist.*aborting");
}


// Bit rot on the drive, end to end through Ceph's interface: a byte flipped in an object's
// record on the drive (the emulated drive's file, as a media error the drive did not
// catch) makes read() fail with -EIO instead of returning the bytes; other objects still
// read; fsck --deep counts the bad record.
TEST_F(SMRStoreTest, FlippedByteOnTheDriveReadsAsEioNeverAsData) {
  const coll_t cid = coll_t::pg(spg_t(pg_t(3, 5)));
  auto ch = store_->create_new_collection(cid);
  std::string victim(300000, '\0'), other(300000, '\0');
  for (size_t i = 0; i < victim.size(); ++i) {
    victim[i] = static_cast<char>((i * 131 + 7) >> 3);
    other[i] = static_cast<char>((i * 37 + 11) >> 2);
  }
  {
    Transaction t;
    t.create_collection(cid, 0);
    ceph::buffer::list a = Bl(victim), b = Bl(other);
    t.write(cid, Obj("victim", 1), 0, a.length(), a);
    t.write(cid, Obj("other", 2), 0, b.length(), b);
    ASSERT_EQ(Commit(store_.get(), ch, std::move(t)), 0);
  }
  ch.reset();
  ASSERT_EQ(store_->umount(), 0);

  // Find the victim's payload in the drive files and flip one byte of it.
  const std::string needle = victim.substr(4096, 64);
  int flipped = 0;
  for (const char* name : {"/d0.img", "/d1.img"}) {
    std::fstream f(dir_.path() + name, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.good()) << name;
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const size_t at = bytes.find(needle);
    if (at == std::string::npos) continue;
    f.clear();
    f.seekp(static_cast<std::streamoff>(at + 10));
    f.put(static_cast<char>(bytes[at + 10] ^ 0x01));
    ASSERT_TRUE(f.good());
    ++flipped;
  }
  ASSERT_EQ(flipped, 1) << "the victim's payload was not found exactly once on the drives";

  ASSERT_EQ(store_->mount(), 0);
  ch = store_->open_collection(cid);
  ASSERT_TRUE(ch);
  ceph::buffer::list got;
  EXPECT_EQ(store_->read(ch, Obj("victim", 1), 0, 0, got), -EIO);
  EXPECT_EQ(got.length(), 0u) << "bytes of a record that fails its crc were returned";
  ceph::buffer::list part;
  EXPECT_EQ(store_->read(ch, Obj("victim", 1), 4096, 4096, part), -EIO) << "a partial read";
  ceph::buffer::list ok;
  ASSERT_EQ(store_->read(ch, Obj("other", 2), 0, 0, ok), static_cast<int>(other.size()));
  EXPECT_TRUE(Str(ok) == other);
  ch.reset();
  EXPECT_EQ(store_->fsck(/*deep=*/true), 1);
  EXPECT_EQ(store_->fsck(/*deep=*/false), 0);
}

}  // namespace
}  // namespace smr::ceph_adapter
