// Store::StatsDocument (doc/stats-schema.md, smrstore.stats/1): the document parses as
// JSON, and its numbers agree with each other and with the store's own counters after
// writes, overwrites, removals and zone GC.
#include "store/stats_document.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/pattern.h"
#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "store/store.h"

namespace smr {
namespace {

using testing::ScratchDir;

// The document read with the project's JSON reader (common/json.h: nlohmann::json, whole
// input one value, no member named twice in an object).
Json ParseOrDie(const std::string& text) {
  auto j = ParseJson(text);
  EXPECT_TRUE(j.ok()) << j.status().ToString() << "\n" << text;
  return j.ok() ? std::move(*j) : Json();
}

// ---------------------------------------------------------------------------------------
// The zone characters.

ZoneStatus Zone(ZoneState state, uint64_t live, StreamId stream = StreamId::kUser,
                ZoneCondition cond = ZoneCondition::kEmpty) {
  ZoneStatus z;
  z.state = state;
  z.capacity = 1000;
  z.live_bytes = live;
  z.stream = stream;
  z.device_cond = cond;
  return z;
}

TEST(StatsDocumentChars, LiveTenthsRoundToNearest) {
  EXPECT_EQ(LiveTenths(0, 1000), 0);
  EXPECT_EQ(LiveTenths(49, 1000), 0);
  EXPECT_EQ(LiveTenths(50, 1000), 1);
  EXPECT_EQ(LiveTenths(549, 1000), 5);
  EXPECT_EQ(LiveTenths(950, 1000), 10);
  EXPECT_EQ(LiveTenths(1000, 1000), 10);
  EXPECT_EQ(LiveTenths(5000, 1000), 10);  // clamped
  EXPECT_EQ(LiveTenths(7, 0), 0);
}

TEST(StatsDocumentChars, EveryZoneKindHasItsCharacter) {
  EXPECT_EQ(ZoneMapChar(Zone(ZoneState::kReserved, 0), ZoneMapRole::kSuperblock), '#');
  EXPECT_EQ(ZoneMapChar(Zone(ZoneState::kReserved, 0), ZoneMapRole::kConventional), '=');
  EXPECT_EQ(ZoneMapChar(Zone(ZoneState::kFree, 0), ZoneMapRole::kData), '.');
  EXPECT_EQ(ZoneMapChar(Zone(ZoneState::kOpen, 0), ZoneMapRole::kData), 'A');
  EXPECT_EQ(ZoneMapChar(Zone(ZoneState::kOpen, 300), ZoneMapRole::kData), 'D');
  EXPECT_EQ(ZoneMapChar(Zone(ZoneState::kOpen, 1000), ZoneMapRole::kData), 'K');
  EXPECT_EQ(ZoneMapChar(Zone(ZoneState::kSealed, 0), ZoneMapRole::kData), 'a');
  EXPECT_EQ(ZoneMapChar(Zone(ZoneState::kSealed, 960), ZoneMapRole::kData), 'k');
  EXPECT_EQ(ZoneMapChar(Zone(ZoneState::kSealed, 500, StreamId::kUser, ZoneCondition::kOffline),
                        ZoneMapRole::kData),
            'X');
  EXPECT_EQ(ZoneMapChar(Zone(ZoneState::kSealed, 500, StreamId::kUser, ZoneCondition::kReadOnly),
                        ZoneMapRole::kData),
            '!');

  EXPECT_EQ(ZoneStreamChar(Zone(ZoneState::kReserved, 0), ZoneMapRole::kSuperblock), '-');
  EXPECT_EQ(ZoneStreamChar(Zone(ZoneState::kReserved, 0), ZoneMapRole::kConventional), '-');
  EXPECT_EQ(ZoneStreamChar(Zone(ZoneState::kFree, 0), ZoneMapRole::kData), '-');
  EXPECT_EQ(ZoneStreamChar(Zone(ZoneState::kOpen, 1, StreamId::kUser), ZoneMapRole::kData), 'u');
  EXPECT_EQ(ZoneStreamChar(Zone(ZoneState::kOpen, 1, StreamId::kSmall), ZoneMapRole::kData), 's');
  EXPECT_EQ(ZoneStreamChar(Zone(ZoneState::kSealed, 1, StreamId::kGc), ZoneMapRole::kData), 'g');
  EXPECT_EQ(ZoneStreamChar(Zone(ZoneState::kSealed, 1, StreamId::kGcCold), ZoneMapRole::kData),
            'G');
  EXPECT_EQ(ZoneStreamChar(Zone(ZoneState::kOpen, 1, StreamId::kUserHot), ZoneMapRole::kData),
            'h');
  EXPECT_EQ(ZoneStreamChar(Zone(ZoneState::kSealed, 1, StreamId::kUser, ZoneCondition::kOffline),
                           ZoneMapRole::kData),
            '-');
  EXPECT_EQ(ZoneStreamChar(Zone(ZoneState::kSealed, 1, StreamId::kSmall, ZoneCondition::kReadOnly),
                           ZoneMapRole::kData),
            's');
}

// ---------------------------------------------------------------------------------------
// The document of a real store.

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

size_t CountIn(const std::string& s, char lo, char hi) {
  size_t n = 0;
  for (char ch : s) n += ch >= lo && ch <= hi;
  return n;
}

class StatsDocumentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Drive 0: one conventional zone (the superblock log takes it); drive 1: three (the
    // log takes two, the third is a conventional zone the store leaves alone).
    specs_ = {"emu:" + dir_.path() + "/d0.img?zones=20&zone_mib=4&conv=1&max_open=8",
              "emu:" + dir_.path() + "/d1.img?zones=16&zone_mib=4&conv=3&max_open=8"};
    StoreOptions options;
    options.gc_auto = false;  // GC runs only when the test asks
    ASSERT_OK(Store::Mkfs(dir_.path() + "/store", specs_, options));
    auto s = Store::Open(dir_.path() + "/store");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
  }

  // Checks every invariant one document must satisfy on its own; returns it parsed.
  Json CheckDocument(const std::string& name) {
    std::vector<DriveZoneMaps> maps;
    const std::string text = store_->StatsDocument(name, {}, &maps);
    EXPECT_EQ(text.find('\n'), std::string::npos) << "one line";
    Json doc = ParseOrDie(text);
    EXPECT_EQ(doc.at("schema").get<std::string>(), "smrstore.stats/1");
    EXPECT_EQ(doc.at("name").get<std::string>(), name);
    EXPECT_GT(doc.at("time").get<double>(), 1.6e9);
    for (const char* k : {"store", "statfs", "io", "gc", "drives"}) {
      EXPECT_TRUE(doc.contains(k)) << k;
    }
    EXPECT_EQ(doc.at("store").at("uuid").get<std::string>().size(), 36u);
    EXPECT_EQ(doc.at("store").at("dir").get<std::string>(), dir_.path() + "/store");
    EXPECT_EQ(doc.at("store").at("gc_policy").get<std::string>(), "lifetime");
    EXPECT_EQ(doc.at("gc").at("auto").is_boolean(), true);

    const Json& drives = doc.at("drives");
    EXPECT_EQ(drives.size(), specs_.size());
    EXPECT_EQ(maps.size(), specs_.size());
    uint64_t capacity = 0, written = 0, live = 0;
    for (size_t d = 0; d < drives.size() && d < maps.size(); ++d) {
      const Json& dr = drives.at(d);
      EXPECT_EQ(dr.at("index").get<uint64_t>(), d);
      EXPECT_EQ(dr.at("spec").get<std::string>(), specs_[d]);
      EXPECT_EQ(dr.at("kind").get<std::string>(), "emulated");
      EXPECT_EQ(dr.at("zone_size").get<uint64_t>(), 4u << 20);
      EXPECT_EQ(dr.at("max_open").get<uint64_t>(), 8u);
      const uint64_t nr = dr.at("nr_zones").get<uint64_t>();
      const Json& z = dr.at("zones");
      uint64_t sum = 0;
      for (const auto& [k, v] : z.items()) sum += v.get<uint64_t>();
      EXPECT_EQ(sum, nr) << "zone counts of drive " << d << " add up to nr_zones";
      const std::string& zm = dr.at("zonemap").get<std::string>();
      const std::string& sm = dr.at("streams").get<std::string>();
      EXPECT_EQ(zm.size(), nr);
      EXPECT_EQ(sm.size(), nr);
      EXPECT_EQ(zm, maps[d].zonemap);
      EXPECT_EQ(sm, maps[d].streams);
      const uint64_t conventional = CountIn(zm, '=', '=');
      const uint64_t sealed = CountIn(zm, 'a', 'k');
      EXPECT_EQ(conventional, z.at("conventional").get<uint64_t>()) << zm << " / " << sm;
      EXPECT_EQ(sealed, z.at("sealed").get<uint64_t>()) << zm << " / " << sm;
      EXPECT_EQ(CountIn(zm, '#', '#'), z.at("reserved").get<uint64_t>());
      EXPECT_EQ(CountIn(zm, '.', '.'), z.at("free").get<uint64_t>());
      EXPECT_EQ(CountIn(zm, 'A', 'K'), z.at("open").get<uint64_t>());
      EXPECT_EQ(CountIn(zm, 'X', 'X'), z.at("offline").get<uint64_t>());
      EXPECT_EQ(CountIn(zm, '!', '!'), z.at("readonly").get<uint64_t>());
      EXPECT_EQ(conventional + sealed + CountIn(zm, '#', '#') + CountIn(zm, '.', '.') +
                    CountIn(zm, 'A', 'K') + CountIn(zm, 'X', 'X') + CountIn(zm, '!', '!'),
                nr)
          << "every zonemap character is a defined one: " << zm;
      for (size_t i = 0; i < zm.size() && i < sm.size(); ++i) {
        const bool holds_data = (zm[i] >= 'A' && zm[i] <= 'K') || (zm[i] >= 'a' && zm[i] <= 'k');
        EXPECT_EQ(sm[i] != '-', holds_data) << "drive " << d << " zone " << i << ": " << zm
                                            << " / " << sm;
        EXPECT_NE(std::string("usgGh-").find(sm[i]), std::string::npos) << sm;
      }
      EXPECT_EQ(dr.at("hybrid").at("supported").get<bool>(), false);
      EXPECT_EQ(dr.at("hybrid").at("state").get<std::string>(), "none");
      EXPECT_EQ(dr.at("hybrid").at("latency_bound_ms").is_null(), true);
      capacity += dr.at("capacity_bytes").get<uint64_t>();
      written += dr.at("written_bytes").get<uint64_t>();
      live += dr.at("live_bytes").get<uint64_t>();
    }
    const Json& st = doc.at("statfs");
    EXPECT_EQ(st.at("total").get<uint64_t>(), capacity);
    EXPECT_EQ(st.at("allocated").get<uint64_t>(), written);
    EXPECT_GE(st.at("stored").get<uint64_t>(), live);  // plus what is inline in RocksDB
    EXPECT_LE(st.at("available").get<uint64_t>(), st.at("total").get<uint64_t>());
    // writable is Store::Statfs's (what an OSD reports to Ceph as available): the store is
    // at rest (gc_auto off), so a Statfs now sees the same zones and counters.
    const StoreStatfs now = store_->Statfs();
    EXPECT_EQ(st.at("writable").get<uint64_t>(), now.writable);
    EXPECT_LE(st.at("writable").get<uint64_t>(), st.at("total").get<uint64_t>());
    EXPECT_GE(st.at("writable").get<uint64_t>(), now.user_available);

    const Json& io = doc.at("io");
    const uint64_t user = io.at("user_bytes").get<uint64_t>(), device = io.at("device_bytes").get<uint64_t>();
    EXPECT_NEAR(io.at("write_amplification").get<double>(),
                user ? static_cast<double>(device) / static_cast<double>(user) : 0.0, 1e-4);
    const uint64_t luser = io.at("lifetime_user_bytes").get<uint64_t>();
    EXPECT_NEAR(io.at("lifetime_write_amplification").get<double>(),
                luser ? static_cast<double>(io.at("lifetime_device_bytes").get<uint64_t>()) / luser : 0.0,
                1e-4);
    // The counters are the store's own.
    const StoreCounters c = store_->Counters();
    EXPECT_EQ(user, c.user_bytes_written);
    EXPECT_EQ(device, c.device_bytes_written);
    EXPECT_EQ(doc.at("gc").at("runs").get<uint64_t>(), c.gc_runs);
    EXPECT_EQ(doc.at("gc").at("zones_reset").get<uint64_t>(), c.gc_zones_reset);
    EXPECT_EQ(doc.at("gc").at("bytes_written").get<uint64_t>(), c.gc_bytes_written);
    EXPECT_EQ(io.at("data_reads").get<uint64_t>(), c.data_reads);
    EXPECT_EQ(io.at("data_read_records").get<uint64_t>(), c.data_read_records);
    EXPECT_LE(io.at("data_reads").get<uint64_t>(), io.at("data_read_records").get<uint64_t>());
    EXPECT_TRUE(doc.at("gc").at("pinned_zones").is_number_unsigned());
    EXPECT_EQ(doc.at("gc").at("read_ahead_bytes").get<uint64_t>(), c.gc_read_ahead_bytes);
    EXPECT_EQ(doc.at("gc").at("read_ahead_yields").get<uint64_t>(), c.gc_read_ahead_yields);
    // The store's GC watermarks and their cap (the defaults: SetUp changes only gc_auto).
    const StoreOptions defaults;
    EXPECT_DOUBLE_EQ(doc.at("store").at("gc_start_free").get<double>(), defaults.gc_start_free);
    EXPECT_DOUBLE_EQ(doc.at("store").at("gc_urgent_free").get<double>(), defaults.gc_urgent_free);
    EXPECT_DOUBLE_EQ(doc.at("store").at("gc_stop_free").get<double>(), defaults.gc_stop_free);
    EXPECT_EQ(doc.at("store").at("gc_free_zones_max").get<uint64_t>(), defaults.gc_free_zones_max);
    return doc;
  }

  ScratchDir dir_;
  std::vector<std::string> specs_;
  std::unique_ptr<Store> store_;
};

TEST_F(StatsDocumentTest, FreshStore) {
  const Json doc = CheckDocument("fresh");
  const Json& d0 = doc.at("drives").at(0);
  const Json& d1 = doc.at("drives").at(1);
  // Nothing but the metadata journal (mkfs wrote the first checkpoint): its open zone on
  // each drive it used (the journal stream rotates over the drives like every stream),
  // the first data zone of each, of the small+metadata stream; all else free.
  EXPECT_TRUE(d0.at("zonemap").get<std::string>() == "#A" + std::string(18, '.') ||
              d0.at("zonemap").get<std::string>() == "#" + std::string(19, '.'))
      << d0.at("zonemap").get<std::string>();
  EXPECT_TRUE(d1.at("zonemap").get<std::string>() == "##=A" + std::string(12, '.') ||
              d1.at("zonemap").get<std::string>() == "##=" + std::string(13, '.'))
      << d1.at("zonemap").get<std::string>();
  const std::string streams = d0.at("streams").get<std::string>() + d1.at("streams").get<std::string>();
  const auto journal = std::count(streams.begin(), streams.end(), 's');
  EXPECT_TRUE(journal == 1 || journal == 2) << streams;
  EXPECT_EQ(std::count(streams.begin(), streams.end(), '-'), 36 - journal) << streams;
  EXPECT_EQ(d1.at("conventional_zones").get<uint64_t>(), 3u);
  EXPECT_EQ(d0.at("capacity_bytes").get<uint64_t>(), 19u * (4u << 20));
  EXPECT_EQ(doc.at("io").at("user_bytes").get<uint64_t>(), 0u);
  EXPECT_EQ(doc.at("io").at("write_amplification").get<double>(), 0.0);
  EXPECT_EQ(doc.at("statfs").at("stored").get<uint64_t>(), 0u);
  EXPECT_EQ(doc.at("statfs").at("reclaimable").get<uint64_t>(), 0u);
  EXPECT_EQ(doc.at("statfs").at("available").get<uint64_t>(),
            doc.at("statfs").at("total").get<uint64_t>() - doc.at("statfs").at("allocated").get<uint64_t>());
  EXPECT_GT(doc.at("statfs").at("allocated").get<uint64_t>(), 0u);
  EXPECT_LE(doc.at("statfs").at("allocated").get<uint64_t>(), 64u << 10);
  // Emulated drives without a timing model are not rotational: `auto` leaves GC's
  // read-ahead off (the rotational test below has it on).
  EXPECT_EQ(doc.at("store").at("gc_read_ahead").get<bool>(), false);
  EXPECT_EQ(doc.at("gc").at("read_ahead_bytes").get<uint64_t>(), 0u);
  EXPECT_EQ(doc.at("gc").at("read_ahead_yields").get<uint64_t>(), 0u);
}

TEST_F(StatsDocumentTest, WritesOverwritesRemovalsAndGc) {
  Transaction mk;
  mk.MkColl("1.0_head", 0);
  ASSERT_OK(store_->Apply(std::move(mk)));
  // 24 objects of 1 MiB over both drives (user stream), then overwrite half of them
  // whole and remove a quarter: sealed zones with dead bytes for GC.
  uint64_t user = 0;
  for (int i = 0; i < 24; ++i) {
    Transaction t;
    t.Write("1.0_head", Obj("o" + std::to_string(i)), 0, Pattern(i, 1 << 20));
    user += 1 << 20;
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  Json before = CheckDocument("w");
  EXPECT_EQ(before.at("io").at("user_bytes").get<uint64_t>(), user);
  EXPECT_GT(before.at("io").at("write_amplification").get<double>(), 1.0);  // record headers
  EXPECT_EQ(before.at("statfs").at("stored").get<uint64_t>(), 24u << 20);
  for (int i = 0; i < 24; i += 2) {
    Transaction t;
    t.Write("1.0_head", Obj("o" + std::to_string(i)), 0, Pattern(100 + i, 1 << 20));
    user += 1 << 20;
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  for (int i = 1; i < 24; i += 4) {
    Transaction t;
    t.Remove("1.0_head", Obj("o" + std::to_string(i)));
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  Json churned = CheckDocument("w");
  EXPECT_EQ(churned.at("io").at("user_bytes").get<uint64_t>(), user);
  EXPECT_EQ(churned.at("statfs").at("stored").get<uint64_t>(), 18u << 20);
  uint64_t sealed = 0;
  for (const Json& d : churned.at("drives")) sealed += d.at("zones").at("sealed").get<uint64_t>();
  ASSERT_GT(sealed, 0u) << "the writes sealed zones";

  const uint64_t journal_before = store_->Counters().journal_bytes_written +
                                  store_->Counters().checkpoint_bytes_written;
  auto gc = store_->RunGc(100);  // every zone with dead bytes: some are partly live
  ASSERT_TRUE(gc.ok()) << gc.status().ToString();
  // GC's commits write journal records too (the relocated extents are metadata changes).
  const uint64_t journal_gc = store_->Counters().journal_bytes_written +
                              store_->Counters().checkpoint_bytes_written - journal_before;
  EXPECT_GT(journal_gc, 0u);
  ASSERT_GT(gc->zones_cleaned, 0u);
  Json after = CheckDocument("w");
  EXPECT_EQ(after.at("gc").at("zones_reset").get<uint64_t>(), gc->zones_cleaned);
  EXPECT_EQ(after.at("gc").at("bytes_written").get<uint64_t>(), gc->bytes_written);
  EXPECT_EQ(after.at("statfs").at("stored").get<uint64_t>(), 18u << 20);  // GC moves, never loses, data
  // GC's relocations count as device bytes, not user bytes.
  EXPECT_EQ(after.at("io").at("user_bytes").get<uint64_t>(), user);
  EXPECT_EQ(after.at("io").at("device_bytes").get<uint64_t>(),
            churned.at("io").at("device_bytes").get<uint64_t>() + gc->bytes_written + journal_gc);
  // The victims were partly live: GC relocated data, into zones of a GC stream.
  ASSERT_GT(gc->live_moved, 0u);
  EXPECT_EQ(after.at("gc").at("live_moved").get<uint64_t>(), gc->live_moved);
  bool gc_zone = false;
  for (const Json& d : after.at("drives")) {
    gc_zone |= d.at("streams").get<std::string>().find_first_of("gG") != std::string::npos;
  }
  EXPECT_TRUE(gc_zone) << "relocated data sits in a GC stream zone";
}

// io.data_reads / io.data_read_records are the store's read counters: on a drive with a head
// an object's records lying together are one device read (records / reads > 1). gc.pinned_zones
// counts the data zones holding journal records newer than the last checkpoint
// (journal_with_data): one per zone a group's data and journal record went to, kept over a
// remount (the pins are persisted), none when the journal has zones of its own.
class StatsDocumentRotationalTest : public ::testing::Test {
 protected:
  std::unique_ptr<Store> Make(const std::string& name, bool journal_with_data) {
    const std::string dir = dir_.path() + "/" + name;
    StoreOptions options;
    options.gc_auto = false;
    options.journal_with_data = journal_with_data;
    options.journal_pinned_zones_max = 1000;  // no checkpoint to unpin them during the test
    const std::vector<std::string> specs = {
        "emu:" + dir_.path() + "/" + name +
        ".img?zones=24&zone_mib=8&conv=1&max_open=8&mbps=100000&seek_ms=0"};
    EXPECT_OK(Store::Mkfs(dir, specs, options));
    auto s = Store::Open(dir);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }
  static Json Doc(Store* store) { return ParseOrDie(store->StatsDocument("rot")); }
  static uint64_t Io(const Json& doc, const char* k) { return doc.at("io").at(k).get<uint64_t>(); }
  static uint64_t Pinned(const Json& doc) {
    return doc.at("gc").at("pinned_zones").get<uint64_t>();
  }
  // Zones holding user data (stream 'u') in the document's stream maps.
  static uint64_t UserZones(const Json& doc) {
    uint64_t n = 0;
    for (const Json& d : doc.at("drives")) {
      n += CountIn(d.at("streams").get<std::string>(), 'u', 'u');
    }
    return n;
  }

  ScratchDir dir_;
};

TEST_F(StatsDocumentRotationalTest, GatheredReadsAndJournalPinnedZones) {
  std::unique_ptr<Store> store = Make("pins", /*journal_with_data=*/true);
  ASSERT_NE(store, nullptr);
  Json fresh = Doc(store.get());
  EXPECT_EQ(Io(fresh, "data_reads"), 0u);
  EXPECT_EQ(Io(fresh, "data_read_records"), 0u);
  EXPECT_EQ(Pinned(fresh), 0u) << "mkfs's checkpoint leaves no pin";
  EXPECT_EQ(fresh.at("store").at("gc_read_ahead").get<bool>(), true)
      << "gc_read_ahead auto: on for a rotational drive";

  // 4 MiB + 100000 bytes in one group: five records lying together, the group's journal
  // record after them in the same zone (pinned).
  const std::string big = Pattern(7, (4u << 20) + 100000);
  Transaction t;
  t.MkColl("c", 0);
  t.Write("c", Obj("big"), 0, big);
  ASSERT_OK(store->Apply(std::move(t)));
  Json written = Doc(store.get());
  EXPECT_EQ(Pinned(written), 1u) << written.dump();
  EXPECT_EQ(UserZones(written), 1u);
  EXPECT_EQ(Io(written, "data_reads"), 0u);

  auto whole = store->Read("c", Obj("big"), 0, 0);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_TRUE(*whole == big);
  Json read = Doc(store.get());
  EXPECT_EQ(Io(read, "data_reads"), 1u) << "the five records are one device read";
  EXPECT_EQ(Io(read, "data_read_records"), 5u);
  const StoreCounters c = store->Counters();
  EXPECT_EQ(Io(read, "data_reads"), c.data_reads);
  EXPECT_EQ(Io(read, "data_read_records"), c.data_read_records);

  // More groups of 1 MiB fill the 8 MiB zone and open the next: each zone a group wrote its
  // data and journal record to is pinned.
  for (int i = 0; i < 6; ++i) {
    Transaction w;
    w.Write("c", Obj("o" + std::to_string(i)), 0, Pattern(20 + i, 1u << 20));
    ASSERT_OK(store->Apply(std::move(w)));
  }
  Json more = Doc(store.get());
  EXPECT_EQ(UserZones(more), 2u) << more.dump();
  EXPECT_EQ(Pinned(more), 2u) << more.dump();
  // statfs.writable is Statfs's with journal records in the data zones too.
  EXPECT_EQ(more.at("statfs").at("writable").get<uint64_t>(), store->Statfs().writable);

  // The pins are persisted: a remount has them (and its counters start again).
  ASSERT_OK(store->Close());
  store.reset();
  auto reopened = Store::Open(dir_.path() + "/pins");
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  Json again = Doc(reopened->get());
  EXPECT_EQ(Pinned(again), 2u) << again.dump();
  EXPECT_EQ(Io(again, "data_reads"), 0u);
  EXPECT_EQ(Io(again, "data_read_records"), 0u);
  ASSERT_OK((*reopened)->Close());

  // Journal records in the journal's own zones: nothing pinned.
  std::unique_ptr<Store> own = Make("own", /*journal_with_data=*/false);
  ASSERT_NE(own, nullptr);
  Transaction o;
  o.MkColl("c", 0);
  o.Write("c", Obj("big"), 0, big);
  ASSERT_OK(own->Apply(std::move(o)));
  EXPECT_EQ(Pinned(Doc(own.get())), 0u);
  ASSERT_OK(own->Close());
}

// statfs.writable is StoreStatfs::writable, not available + reclaimable: it leaves out the
// GC reserve, zone tails and the live records' headers, and counts only the dead bytes GC
// can really give back.
TEST_F(StatsDocumentTest, WritableIsStatfsWritable) {
  auto writable = [](const Json& doc) { return doc.at("statfs").at("writable").get<uint64_t>(); };
  auto field = [](const Json& doc, const char* k) { return doc.at("statfs").at(k).get<uint64_t>(); };
  // Fresh: nothing dead, so writable is what users can surely write (free zones beyond the
  // GC reserve, less a record per zone): below the free zones' bytes.
  Json fresh = CheckDocument("fresh");
  StoreStatfs st = store_->Statfs();
  EXPECT_EQ(writable(fresh), st.writable);
  EXPECT_EQ(writable(fresh), st.user_available);
  EXPECT_LT(writable(fresh), field(fresh, "available"));
  EXPECT_GT(writable(fresh), 0u);

  // Sealed zones with dead records: overwrite half of 24 objects, remove a quarter.
  Transaction mk;
  mk.MkColl("1.0_head", 0);
  ASSERT_OK(store_->Apply(std::move(mk)));
  for (int i = 0; i < 24; ++i) {
    Transaction t;
    t.Write("1.0_head", Obj("o" + std::to_string(i)), 0, Pattern(i, 1 << 20));
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  for (int i = 0; i < 24; i += 2) {
    Transaction t;
    t.Write("1.0_head", Obj("o" + std::to_string(i)), 0, Pattern(100 + i, 1 << 20));
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  for (int i = 1; i < 24; i += 4) {
    Transaction t;
    t.Remove("1.0_head", Obj("o" + std::to_string(i)));
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  Json churned = CheckDocument("churned");
  st = store_->Statfs();
  EXPECT_EQ(writable(churned), st.writable);
  EXPECT_GT(field(churned, "reclaimable"), 0u);
  EXPECT_GT(writable(churned), st.user_available) << "GC can give some dead bytes back";
  EXPECT_LT(writable(churned), field(churned, "available") + field(churned, "reclaimable"))
      << "live headers, zone tails and the GC reserve are not writable";

  // After GC: still Statfs's figure.
  auto gc = store_->RunGc(100);
  ASSERT_TRUE(gc.ok()) << gc.status().ToString();
  Json after = CheckDocument("after");
  EXPECT_EQ(writable(after), store_->Statfs().writable);
}

TEST_F(StatsDocumentTest, CompactFormAndNameEscaping) {
  Transaction t;
  t.MkColl("c", 0);
  t.Write("c", Obj("x"), 0, Pattern(1, 256 << 10));
  ASSERT_OK(store_->Apply(std::move(t)));
  std::vector<DriveZoneMaps> maps;
  StatsDocumentOptions compact;
  compact.zone_maps = false;
  const std::string name = "we\"ird\\name\t1";
  const Json doc = ParseOrDie(store_->StatsDocument(name, compact, &maps));
  EXPECT_EQ(doc.at("name").get<std::string>(), name);
  ASSERT_EQ(doc.at("drives").size(), 2u);
  ASSERT_EQ(maps.size(), 2u);
  for (size_t d = 0; d < 2; ++d) {
    const Json& dr = doc.at("drives").at(d);
    EXPECT_FALSE(dr.contains("zonemap"));
    EXPECT_FALSE(dr.contains("streams"));
    EXPECT_EQ(maps[d].zonemap.size(), dr.at("nr_zones").get<uint64_t>());
  }
  // The one open user zone holding 256 KiB of 4 MiB: 0.06 -> 'B' (rounded to a tenth).
  EXPECT_NE((maps[0].zonemap + maps[1].zonemap).find('B'), std::string::npos)
      << maps[0].zonemap << " " << maps[1].zonemap;
}

}  // namespace
}  // namespace smr
