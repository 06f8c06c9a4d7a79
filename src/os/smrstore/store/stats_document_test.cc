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

#include "common/pattern.h"
#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "store/store.h"

namespace smr {
namespace {

using testing::ScratchDir;

// ---------------------------------------------------------------------------------------
// A strict little JSON reader (RFC 8259 subset: no surrogate pairs), enough to check the
// document's syntax and read its values.

struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject } type = Type::kNull;
  bool b = false;
  double num = 0;
  std::string text;  // string value, or a number's literal text
  std::vector<Json> items;
  std::map<std::string, Json> fields;

  bool Has(const std::string& k) const { return fields.count(k) > 0; }
  const Json& operator[](const std::string& k) const {
    static const Json kMissing;
    auto it = fields.find(k);
    return it == fields.end() ? kMissing : it->second;
  }
  uint64_t U64() const { return std::strtoull(text.c_str(), nullptr, 10); }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& s) : s_(s) {}
  // False (with error()) unless `s` is exactly one JSON value.
  bool Parse(Json* out) {
    if (!Value(out, 0)) return false;
    Ws();
    if (i_ != s_.size()) return Fail("trailing characters");
    return true;
  }
  const std::string& error() const { return error_; }

 private:
  bool Fail(const std::string& why) {
    if (error_.empty()) error_ = why + " at byte " + std::to_string(i_);
    return false;
  }
  void Ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t'))
      ++i_;
  }
  bool Lit(const char* word) {
    const std::string w(word);
    if (s_.compare(i_, w.size(), w) != 0) return Fail("bad literal");
    i_ += w.size();
    return true;
  }
  bool String(std::string* out) {
    if (s_[i_] != '"') return Fail("expected a string");
    ++i_;
    while (i_ < s_.size() && s_[i_] != '"') {
      const unsigned char ch = static_cast<unsigned char>(s_[i_]);
      if (ch < 0x20) return Fail("control character in a string");
      if (ch != '\\') {
        out->push_back(s_[i_++]);
        continue;
      }
      if (++i_ >= s_.size()) return Fail("unterminated escape");
      const char e = s_[i_++];
      switch (e) {
        case '"': out->push_back('"'); break;
        case '\\': out->push_back('\\'); break;
        case '/': out->push_back('/'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          if (i_ + 4 > s_.size()) return Fail("short \\u escape");
          for (size_t k = 0; k < 4; ++k) {
            if (!std::isxdigit(static_cast<unsigned char>(s_[i_ + k]))) return Fail("bad \\u");
          }
          const unsigned v = std::stoul(s_.substr(i_, 4), nullptr, 16);
          i_ += 4;
          if (v >= 0x80) return Fail("non-ASCII \\u escape (not needed here)");
          out->push_back(static_cast<char>(v));
          break;
        }
        default:
          return Fail("bad escape");
      }
    }
    if (i_ >= s_.size()) return Fail("unterminated string");
    ++i_;
    return true;
  }
  bool Number(Json* out) {
    const size_t b = i_;
    if (s_[i_] == '-') ++i_;
    auto digits = [&] {
      const size_t d = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      return i_ > d;
    };
    if (!digits()) return Fail("bad number");
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (!digits()) return Fail("bad fraction");
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (!digits()) return Fail("bad exponent");
    }
    out->type = Json::Type::kNumber;
    out->text = s_.substr(b, i_ - b);
    out->num = std::strtod(out->text.c_str(), nullptr);
    return true;
  }
  bool Value(Json* out, int depth) {
    if (depth > 32) return Fail("nested too deep");
    Ws();
    if (i_ >= s_.size()) return Fail("unexpected end");
    const char ch = s_[i_];
    if (ch == '{') {
      ++i_;
      out->type = Json::Type::kObject;
      Ws();
      if (i_ < s_.size() && s_[i_] == '}') return ++i_, true;
      for (;;) {
        Ws();
        std::string key;
        if (i_ >= s_.size() || !String(&key)) return Fail("expected a key");
        if (out->fields.count(key)) return Fail("duplicate key " + key);
        Ws();
        if (i_ >= s_.size() || s_[i_++] != ':') return Fail("expected ':'");
        if (!Value(&out->fields[key], depth + 1)) return false;
        Ws();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (i_ < s_.size() && s_[i_] == '}') return ++i_, true;
        return Fail("expected ',' or '}'");
      }
    }
    if (ch == '[') {
      ++i_;
      out->type = Json::Type::kArray;
      Ws();
      if (i_ < s_.size() && s_[i_] == ']') return ++i_, true;
      for (;;) {
        out->items.emplace_back();
        if (!Value(&out->items.back(), depth + 1)) return false;
        Ws();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (i_ < s_.size() && s_[i_] == ']') return ++i_, true;
        return Fail("expected ',' or ']'");
      }
    }
    if (ch == '"') {
      out->type = Json::Type::kString;
      return String(&out->text);
    }
    if (ch == 't' || ch == 'f') {
      out->type = Json::Type::kBool;
      out->b = ch == 't';
      return Lit(ch == 't' ? "true" : "false");
    }
    if (ch == 'n') return Lit("null");
    return Number(out);
  }

  const std::string& s_;
  size_t i_ = 0;
  std::string error_;
};

Json ParseOrDie(const std::string& text) {
  Json j;
  JsonReader r(text);
  EXPECT_TRUE(r.Parse(&j)) << r.error() << "\n" << text;
  return j;
}

TEST(JsonReaderTest, RejectsMalformedDocuments) {
  for (const char* bad : {"{", "{\"a\": }", "{\"a\": 1,}", "[1 2]", "{\"a\": nan}",
                          "{\"a\": 1} x", "\"tab\there\"", "{\"a\": 1, \"a\": 2}"}) {
    Json j;
    EXPECT_FALSE(JsonReader(bad).Parse(&j)) << bad;
  }
  Json j;
  ASSERT_TRUE(JsonReader("{\"k\": [1, -2.5e3, true, null, \"q\\\"\"]}").Parse(&j));
  EXPECT_EQ(j["k"].items.size(), 5u);
  EXPECT_EQ(j["k"].items[1].num, -2500);
  EXPECT_EQ(j["k"].items[4].text, "q\"");
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
    EXPECT_EQ(doc["schema"].text, "smrstore.stats/1");
    EXPECT_EQ(doc["name"].text, name);
    EXPECT_GT(doc["time"].num, 1.6e9);
    for (const char* k : {"store", "statfs", "io", "gc", "drives"}) {
      EXPECT_TRUE(doc.Has(k)) << k;
    }
    EXPECT_EQ(doc["store"]["uuid"].text.size(), 36u);
    EXPECT_EQ(doc["store"]["dir"].text, dir_.path() + "/store");
    EXPECT_EQ(doc["store"]["gc_policy"].text, "lifetime");
    EXPECT_EQ(doc["gc"]["auto"].type, Json::Type::kBool);

    const Json& drives = doc["drives"];
    EXPECT_EQ(drives.items.size(), specs_.size());
    EXPECT_EQ(maps.size(), specs_.size());
    uint64_t capacity = 0, written = 0, live = 0;
    for (size_t d = 0; d < drives.items.size() && d < maps.size(); ++d) {
      const Json& dr = drives.items[d];
      EXPECT_EQ(dr["index"].U64(), d);
      EXPECT_EQ(dr["spec"].text, specs_[d]);
      EXPECT_EQ(dr["kind"].text, "emulated");
      EXPECT_EQ(dr["zone_size"].U64(), 4u << 20);
      EXPECT_EQ(dr["max_open"].U64(), 8u);
      const uint64_t nr = dr["nr_zones"].U64();
      const Json& z = dr["zones"];
      uint64_t sum = 0;
      for (const auto& [k, v] : z.fields) sum += v.U64();
      EXPECT_EQ(sum, nr) << "zone counts of drive " << d << " add up to nr_zones";
      const std::string& zm = dr["zonemap"].text;
      const std::string& sm = dr["streams"].text;
      EXPECT_EQ(zm.size(), nr);
      EXPECT_EQ(sm.size(), nr);
      EXPECT_EQ(zm, maps[d].zonemap);
      EXPECT_EQ(sm, maps[d].streams);
      const uint64_t conventional = CountIn(zm, '=', '=');
      const uint64_t sealed = CountIn(zm, 'a', 'k');
      EXPECT_EQ(conventional, z["conventional"].U64()) << zm << " / " << sm;
      EXPECT_EQ(sealed, z["sealed"].U64()) << zm << " / " << sm;
      EXPECT_EQ(CountIn(zm, '#', '#'), z["reserved"].U64());
      EXPECT_EQ(CountIn(zm, '.', '.'), z["free"].U64());
      EXPECT_EQ(CountIn(zm, 'A', 'K'), z["open"].U64());
      EXPECT_EQ(CountIn(zm, 'X', 'X'), z["offline"].U64());
      EXPECT_EQ(CountIn(zm, '!', '!'), z["readonly"].U64());
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
      EXPECT_EQ(dr["hybrid"]["supported"].b, false);
      EXPECT_EQ(dr["hybrid"]["state"].text, "none");
      EXPECT_EQ(dr["hybrid"]["latency_bound_ms"].type, Json::Type::kNull);
      capacity += dr["capacity_bytes"].U64();
      written += dr["written_bytes"].U64();
      live += dr["live_bytes"].U64();
    }
    const Json& st = doc["statfs"];
    EXPECT_EQ(st["total"].U64(), capacity);
    EXPECT_EQ(st["allocated"].U64(), written);
    EXPECT_GE(st["stored"].U64(), live);  // plus what is inline in RocksDB
    EXPECT_LE(st["available"].U64(), st["total"].U64());

    const Json& io = doc["io"];
    const uint64_t user = io["user_bytes"].U64(), device = io["device_bytes"].U64();
    EXPECT_NEAR(io["write_amplification"].num,
                user ? static_cast<double>(device) / static_cast<double>(user) : 0.0, 1e-4);
    const uint64_t luser = io["lifetime_user_bytes"].U64();
    EXPECT_NEAR(io["lifetime_write_amplification"].num,
                luser ? static_cast<double>(io["lifetime_device_bytes"].U64()) / luser : 0.0,
                1e-4);
    // The counters are the store's own.
    const StoreCounters c = store_->Counters();
    EXPECT_EQ(user, c.user_bytes_written);
    EXPECT_EQ(device, c.device_bytes_written);
    EXPECT_EQ(doc["gc"]["runs"].U64(), c.gc_runs);
    EXPECT_EQ(doc["gc"]["zones_reset"].U64(), c.gc_zones_reset);
    EXPECT_EQ(doc["gc"]["bytes_written"].U64(), c.gc_bytes_written);
    return doc;
  }

  ScratchDir dir_;
  std::vector<std::string> specs_;
  std::unique_ptr<Store> store_;
};

TEST_F(StatsDocumentTest, FreshStore) {
  const Json doc = CheckDocument("fresh");
  const Json& d0 = doc["drives"].items.at(0);
  const Json& d1 = doc["drives"].items.at(1);
  // Nothing but the metadata journal (mkfs wrote the first checkpoint): its open zone on
  // each drive it used (the journal stream rotates over the drives like every stream),
  // the first data zone of each, of the small+metadata stream; all else free.
  EXPECT_TRUE(d0["zonemap"].text == "#A" + std::string(18, '.') ||
              d0["zonemap"].text == "#" + std::string(19, '.'))
      << d0["zonemap"].text;
  EXPECT_TRUE(d1["zonemap"].text == "##=A" + std::string(12, '.') ||
              d1["zonemap"].text == "##=" + std::string(13, '.'))
      << d1["zonemap"].text;
  const std::string streams = d0["streams"].text + d1["streams"].text;
  const auto journal = std::count(streams.begin(), streams.end(), 's');
  EXPECT_TRUE(journal == 1 || journal == 2) << streams;
  EXPECT_EQ(std::count(streams.begin(), streams.end(), '-'), 36 - journal) << streams;
  EXPECT_EQ(d1["conventional_zones"].U64(), 3u);
  EXPECT_EQ(d0["capacity_bytes"].U64(), 19u * (4u << 20));
  EXPECT_EQ(doc["io"]["user_bytes"].U64(), 0u);
  EXPECT_EQ(doc["io"]["write_amplification"].num, 0.0);
  EXPECT_EQ(doc["statfs"]["stored"].U64(), 0u);
  EXPECT_EQ(doc["statfs"]["reclaimable"].U64(), 0u);
  EXPECT_EQ(doc["statfs"]["available"].U64(),
            doc["statfs"]["total"].U64() - doc["statfs"]["allocated"].U64());
  EXPECT_GT(doc["statfs"]["allocated"].U64(), 0u);
  EXPECT_LE(doc["statfs"]["allocated"].U64(), 64u << 10);
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
  EXPECT_EQ(before["io"]["user_bytes"].U64(), user);
  EXPECT_GT(before["io"]["write_amplification"].num, 1.0);  // record headers
  EXPECT_EQ(before["statfs"]["stored"].U64(), 24u << 20);
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
  EXPECT_EQ(churned["io"]["user_bytes"].U64(), user);
  EXPECT_EQ(churned["statfs"]["stored"].U64(), 18u << 20);
  uint64_t sealed = 0;
  for (const Json& d : churned["drives"].items) sealed += d["zones"]["sealed"].U64();
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
  EXPECT_EQ(after["gc"]["zones_reset"].U64(), gc->zones_cleaned);
  EXPECT_EQ(after["gc"]["bytes_written"].U64(), gc->bytes_written);
  EXPECT_EQ(after["statfs"]["stored"].U64(), 18u << 20);  // GC moves, never loses, data
  // GC's relocations count as device bytes, not user bytes.
  EXPECT_EQ(after["io"]["user_bytes"].U64(), user);
  EXPECT_EQ(after["io"]["device_bytes"].U64(),
            churned["io"]["device_bytes"].U64() + gc->bytes_written + journal_gc);
  // The victims were partly live: GC relocated data, into zones of a GC stream.
  ASSERT_GT(gc->live_moved, 0u);
  EXPECT_EQ(after["gc"]["live_moved"].U64(), gc->live_moved);
  bool gc_zone = false;
  for (const Json& d : after["drives"].items) {
    gc_zone |= d["streams"].text.find_first_of("gG") != std::string::npos;
  }
  EXPECT_TRUE(gc_zone) << "relocated data sits in a GC stream zone";
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
  EXPECT_EQ(doc["name"].text, name);
  ASSERT_EQ(doc["drives"].items.size(), 2u);
  ASSERT_EQ(maps.size(), 2u);
  for (size_t d = 0; d < 2; ++d) {
    const Json& dr = doc["drives"].items[d];
    EXPECT_FALSE(dr.Has("zonemap"));
    EXPECT_FALSE(dr.Has("streams"));
    EXPECT_EQ(maps[d].zonemap.size(), dr["nr_zones"].U64());
  }
  // The one open user zone holding 256 KiB of 4 MiB: 0.06 -> 'B' (rounded to a tenth).
  EXPECT_NE((maps[0].zonemap + maps[1].zonemap).find('B'), std::string::npos)
      << maps[0].zonemap << " " << maps[1].zonemap;
}

}  // namespace
}  // namespace smr
