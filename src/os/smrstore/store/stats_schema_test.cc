// The engine against the normative schema of the stats document,
// mgr-module/smrstore/stats_schema.json (SMRSTORE_STATS_SCHEMA, set by CMake):
//   - ZoneMapChar / ZoneStreamChar give the schema's character for every zone state, device
//     condition, fill and stream, and every schema code is produced by some zone;
//   - DecodeZoneMapChar (what the perf counters count with) decodes every character as the
//     schema says;
//   - a real Store::StatsDocument has exactly the schema's fields, with its JSON types,
//     recursively (drives[] too).
// The mgr module (mgr-module/tests/test_stats_schema.py) and the web console
// (web/scripts/gen-stats-codes.mjs --check) are held to the same file.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/pattern.h"
#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "store/stats_document.h"
#include "store/store.h"

#ifndef SMRSTORE_STATS_SCHEMA
#error "SMRSTORE_STATS_SCHEMA (the path of mgr-module/smrstore/stats_schema.json) must be defined"
#endif

namespace smr {
namespace {

using nlohmann::json;
using testing::ScratchDir;

const json& Schema() {
  static const json schema = [] {
    std::ifstream in(SMRSTORE_STATS_SCHEMA);
    if (!in) {
      ADD_FAILURE() << "cannot open " << SMRSTORE_STATS_SCHEMA;
      return json::object();
    }
    return json::parse(in);
  }();
  return schema;
}

// The schema's zone-map codes: (state, live tenths or -1) -> character, and back.
struct ZoneCodes {
  std::map<std::pair<std::string, int>, char> by_meaning;
  std::map<char, std::pair<std::string, int>> by_char;
};

ZoneCodes SchemaZoneCodes() {
  ZoneCodes codes;
  for (const json& c : Schema().at("x-zonemap-codes")) {
    const std::string ch = c.at("char").get<std::string>();
    EXPECT_EQ(ch.size(), 1u) << c.dump();
    const std::pair<std::string, int> meaning{c.at("state").get<std::string>(),
                                              c.value("live_tenths", -1)};
    EXPECT_TRUE(codes.by_meaning.emplace(meaning, ch[0]).second) << "twice: " << c.dump();
    EXPECT_TRUE(codes.by_char.emplace(ch[0], meaning).second) << "twice: " << c.dump();
  }
  return codes;
}

// The schema's stream codes: stream name -> character.
std::map<std::string, char> SchemaStreamCodes() {
  std::map<std::string, char> codes;
  for (const json& c : Schema().at("x-streams-codes")) {
    const std::string ch = c.at("char").get<std::string>();
    EXPECT_EQ(ch.size(), 1u) << c.dump();
    codes[c.at("stream").get<std::string>()] = ch[0];
  }
  return codes;
}

std::string Show(char c) {
  return "'" + std::string(1, c) + "' (" + std::to_string(static_cast<unsigned char>(c)) + ")";
}

constexpr ZoneMapRole kRoles[] = {ZoneMapRole::kData, ZoneMapRole::kSuperblock,
                                  ZoneMapRole::kConventional, ZoneMapRole::kInactive};
constexpr ZoneState kStates[] = {ZoneState::kReserved, ZoneState::kFree, ZoneState::kOpen,
                                 ZoneState::kSealed, ZoneState::kInactive};
constexpr ZoneCondition kConditions[] = {
    ZoneCondition::kNotWritePointer, ZoneCondition::kEmpty,  ZoneCondition::kImplicitOpen,
    ZoneCondition::kExplicitOpen,    ZoneCondition::kClosed, ZoneCondition::kFull,
    ZoneCondition::kReadOnly,        ZoneCondition::kOffline, ZoneCondition::kInactive};
constexpr StreamId kStreams[] = {StreamId::kUser,   StreamId::kSmall,   StreamId::kGc,
                                 StreamId::kGcCold, StreamId::kUserHot, StreamId::kJournal};
constexpr uint64_t kCapacity = 1000;

// Every zone the zone map can describe: role x state x device condition x stream x live
// bytes 0..capacity (and past it), in steps of 5 so each rounding boundary is hit.
template <typename F>
void ForEveryZone(F f) {
  for (ZoneMapRole role : kRoles) {
    for (ZoneState state : kStates) {
      for (ZoneCondition cond : kConditions) {
        for (StreamId stream : kStreams) {
          for (uint64_t live = 0; live <= kCapacity + 10; live += 5) {
            ZoneStatus z;
            z.state = state;
            z.device_cond = cond;
            z.stream = stream;
            z.capacity = kCapacity;
            z.live_bytes = live;
            f(z, role);
          }
        }
      }
    }
  }
}

// What the schema says a zone is, from the engine's view of it (doc/stats-schema.md).
std::pair<std::string, int> ZoneMeaning(const ZoneStatus& z, ZoneMapRole role) {
  if (role == ZoneMapRole::kSuperblock) return {"reserved", -1};
  if (role == ZoneMapRole::kConventional) return {"conventional", -1};
  if (role == ZoneMapRole::kInactive) return {"inactive", -1};
  if (z.device_cond == ZoneCondition::kOffline) return {"offline", -1};
  if (z.device_cond == ZoneCondition::kReadOnly) return {"readonly", -1};
  // Live data rounded to the nearest tenth of the capacity (halves up), at most 10:
  // floor(10 * live / capacity + 1/2) in integers.
  const uint64_t live = std::min(z.live_bytes, z.capacity);
  const int tenths = static_cast<int>((20 * live + z.capacity) / (2 * z.capacity));
  switch (z.state) {
    case ZoneState::kFree:
      return {"free", -1};
    case ZoneState::kOpen:
      return {"open", tenths};
    case ZoneState::kSealed:
      return {"sealed", tenths};
    case ZoneState::kReserved:
      return {"reserved", -1};
    case ZoneState::kInactive:
      return {"inactive", -1};
  }
  return {"?", -1};
}

// The schema's stream of a zone: none unless a data zone holding data, not offline.
std::string StreamMeaning(const ZoneStatus& z, ZoneMapRole role) {
  if (role != ZoneMapRole::kData || z.device_cond == ZoneCondition::kOffline ||
      (z.state != ZoneState::kOpen && z.state != ZoneState::kSealed)) {
    return "none";
  }
  // The journal (metadata) is shown with the small+metadata stream; the others by the
  // zone layer's own names.
  return z.stream == StreamId::kJournal ? "small" : StreamName(z.stream);
}

TEST(StatsSchemaCodes, ZoneMapCharIsTheSchemasForEveryZone) {
  const ZoneCodes codes = SchemaZoneCodes();
  ASSERT_FALSE(codes.by_char.empty());
  std::set<char> produced;
  int mismatches = 0;
  ForEveryZone([&](const ZoneStatus& z, ZoneMapRole role) {
    const auto meaning = ZoneMeaning(z, role);
    const auto it = codes.by_meaning.find(meaning);
    ASSERT_NE(it, codes.by_meaning.end())
        << "the schema has no code for " << meaning.first << " " << meaning.second;
    const char got = ZoneMapChar(z, role);
    produced.insert(got);
    if (got != it->second && ++mismatches <= 5) {
      ADD_FAILURE() << "ZoneMapChar gives " << Show(got) << " for zone state " << meaning.first
                    << " (live tenths " << meaning.second << "); the schema says "
                    << Show(it->second);
    }
  });
  EXPECT_EQ(mismatches, 0);
  std::set<char> schema_chars;
  for (const auto& [c, meaning] : codes.by_char) schema_chars.insert(c);
  EXPECT_EQ(produced, schema_chars) << "every schema code, and only those, is produced";
}

TEST(StatsSchemaCodes, ZoneStreamCharIsTheSchemasForEveryZone) {
  const std::map<std::string, char> codes = SchemaStreamCodes();
  ASSERT_FALSE(codes.empty());
  std::set<char> produced;
  int mismatches = 0;
  ForEveryZone([&](const ZoneStatus& z, ZoneMapRole role) {
    const std::string stream = StreamMeaning(z, role);
    const auto it = codes.find(stream);
    ASSERT_NE(it, codes.end()) << "the schema has no code for stream " << stream;
    const char got = ZoneStreamChar(z, role);
    produced.insert(got);
    if (got != it->second && ++mismatches <= 5) {
      ADD_FAILURE() << "ZoneStreamChar gives " << Show(got) << " for stream " << stream
                    << "; the schema says " << Show(it->second);
    }
  });
  EXPECT_EQ(mismatches, 0);
  std::set<char> schema_chars;
  for (const auto& [name, c] : codes) schema_chars.insert(c);
  EXPECT_EQ(produced, schema_chars) << "every schema stream code, and only those, is produced";
}

TEST(StatsSchemaCodes, DecodeZoneMapCharIsTheSchemasForEveryCharacter) {
  const ZoneCodes codes = SchemaZoneCodes();
  ASSERT_FALSE(codes.by_char.empty());
  for (int i = 0; i < 256; ++i) {
    const char c = static_cast<char>(i);
    const ZoneMapCode got = DecodeZoneMapChar(c);
    const auto it = codes.by_char.find(c);
    if (it == codes.by_char.end()) {
      EXPECT_STREQ(ZoneMapStateName(got.state), "unknown") << Show(c) << " is no schema code";
      continue;
    }
    EXPECT_EQ(ZoneMapStateName(got.state), it->second.first)
        << "DecodeZoneMapChar(" << Show(c) << "); the schema says " << it->second.first;
    EXPECT_EQ(got.live_tenths, it->second.second) << Show(c);
  }
}

TEST(StatsSchemaCodes, StateNamesAreTheSchemasAndTheDrivesZoneCounts) {
  std::vector<std::string> engine;
  for (ZoneMapState s : {ZoneMapState::kReserved, ZoneMapState::kFree, ZoneMapState::kOpen,
                         ZoneMapState::kSealed, ZoneMapState::kOffline, ZoneMapState::kReadOnly,
                         ZoneMapState::kConventional, ZoneMapState::kInactive}) {
    engine.push_back(ZoneMapStateName(s));
  }
  std::vector<std::string> schema;
  for (const json& s : Schema().at("x-zonemap-states")) {
    schema.push_back(s.at("state").get<std::string>());
  }
  EXPECT_EQ(engine, schema);
  std::vector<std::string> counts;
  for (const auto& [k, v] : Schema().at("$defs").at("drive").at("properties").at("zones")
                                .at("properties").items()) {
    counts.push_back(k);
  }
  std::vector<std::string> sorted_schema = schema;
  std::sort(sorted_schema.begin(), sorted_schema.end());
  EXPECT_EQ(counts, sorted_schema);  // nlohmann::json keeps object keys sorted
  EXPECT_STREQ(ZoneMapStateName(ZoneMapState::kUnknown), "unknown");
}

// ---------------------------------------------------------------------------------------
// The document against the schema: every object has exactly the schema's properties (none
// missing — the schema requires every field — and none the schema lacks),
// every value the schema's JSON type, const, enum, bounds and pattern.

class SchemaChecker {
 public:
  // Fields the status map carries under keys of its own (x-in-status-map) are left out of
  // the compact document; `compact` expects them absent.
  explicit SchemaChecker(bool compact) : compact_(compact) {}

  std::vector<std::string> Check(const json& doc) {
    errors_.clear();
    Node(Schema(), doc, "$");
    return errors_;
  }

 private:
  const json& Resolve(const json& node) {
    if (node.contains("$ref")) {
      const std::string ref = node.at("$ref").get<std::string>();
      const std::string prefix = "#/$defs/";
      if (ref.rfind(prefix, 0) == 0) return Schema().at("$defs").at(ref.substr(prefix.size()));
      Error("schema", "unsupported $ref " + ref);
    }
    return node;
  }

  void Error(const std::string& path, const std::string& what) {
    errors_.push_back(path + ": " + what);
  }

  static bool TypeIs(const json& v, const std::string& type) {
    if (type == "integer") return v.is_number_integer();
    if (type == "number") return v.is_number();
    if (type == "string") return v.is_string();
    if (type == "boolean") return v.is_boolean();
    if (type == "null") return v.is_null();
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    return false;
  }

  void Node(const json& schema_node, const json& v, const std::string& path) {
    const json& s = Resolve(schema_node);
    if (s.contains("type")) {
      std::vector<std::string> types;
      if (s.at("type").is_array()) {
        for (const json& t : s.at("type")) types.push_back(t.get<std::string>());
      } else {
        types.push_back(s.at("type").get<std::string>());
      }
      bool ok = false;
      for (const std::string& t : types) ok |= TypeIs(v, t);
      if (!ok) {
        Error(path, "is " + std::string(v.type_name()) + " (" + v.dump() + "), the schema says " +
                        s.at("type").dump());
        return;
      }
    }
    if (s.contains("const") && v != s.at("const")) {
      Error(path, v.dump() + " is not " + s.at("const").dump());
    }
    if (s.contains("enum")) {
      bool found = false;
      for (const json& e : s.at("enum")) found |= v == e;
      if (!found) Error(path, v.dump() + " is not one of " + s.at("enum").dump());
    }
    if (v.is_number() && s.contains("minimum") && v.get<double>() < s.at("minimum").get<double>()) {
      Error(path, v.dump() + " < minimum " + s.at("minimum").dump());
    }
    if (v.is_number() && s.contains("maximum") && v.get<double>() > s.at("maximum").get<double>()) {
      Error(path, v.dump() + " > maximum " + s.at("maximum").dump());
    }
    if (v.is_string() && s.contains("pattern")) {
      // JSON Schema patterns are ECMA-262 regular expressions: std::regex's default grammar.
      const std::regex re(s.at("pattern").get<std::string>());
      if (!std::regex_search(v.get<std::string>(), re)) {
        Error(path, v.dump() + " does not match " + s.at("pattern").dump());
      }
    }
    if (v.is_object()) {
      const json& props = s.contains("properties") ? s.at("properties") : json::object();
      for (const auto& [key, sub] : props.items()) {
        const bool status_only = compact_ && sub.contains("x-in-status-map");
        if (!v.contains(key)) {
          if (!status_only) Error(path, "the document lacks '" + key + "'");
        } else if (status_only) {
          Error(path + "." + key, "is in the compact document");
        } else {
          Node(sub, v.at(key), path + "." + key);
        }
      }
      for (const auto& [key, value] : v.items()) {
        if (!props.contains(key)) Error(path, "'" + key + "' is not in the schema");
      }
      if (s.contains("required")) {
        for (const json& r : s.at("required")) {
          if (!props.contains(r.get<std::string>())) {
            Error("schema " + path, "requires '" + r.get<std::string>() + "' it does not define");
          }
        }
      }
    }
    if (v.is_array() && s.contains("items")) {
      for (size_t i = 0; i < v.size(); ++i) {
        Node(s.at("items"), v.at(i), path + "[" + std::to_string(i) + "]");
      }
    }
  }

  bool compact_;
  std::vector<std::string> errors_;
};

std::string Lines(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += "\n  " + s;
  return out;
}

class StatsSchemaDocumentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Drive 0: one conventional zone (the superblock log takes it); drive 1: three (the
    // log takes two, the third is a conventional zone the store leaves alone).
    const std::vector<std::string> specs = {
        "emu:" + dir_.path() + "/d0.img?zones=20&zone_mib=4&conv=1&max_open=8",
        "emu:" + dir_.path() + "/d1.img?zones=16&zone_mib=4&conv=3&max_open=8"};
    StoreOptions options;
    options.gc_auto = false;
    ASSERT_OK(Store::Mkfs(dir_.path() + "/store", specs, options));
    auto s = Store::Open(dir_.path() + "/store");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
    // Open and sealed zones, an overwrite (dead bytes), an inline object.
    Transaction mk;
    mk.MkColl("1.0_head", 0);
    ASSERT_OK(store_->Apply(std::move(mk)));
    for (int i = 0; i < 12; ++i) {
      Transaction t;
      ObjectId o;
      o.pool = 1;
      o.name = i == 11 ? "inline" : "o" + std::to_string(i % 8);
      std::string data(i == 11 ? 100 : (1 << 20), '\0');
      FillPattern(i, 0, data.data(), data.size());
      t.Write("1.0_head", o, 0, data);
      ASSERT_OK(store_->Apply(std::move(t)));
    }
  }

  json Document(bool zone_maps) {
    StatsDocumentOptions options;
    options.zone_maps = zone_maps;
    const std::string text = store_->StatsDocument("schema-test", options);
    json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(doc.is_discarded()) << text;
    return doc;
  }

  ScratchDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(StatsSchemaDocumentTest, TheDocumentHasExactlyTheSchemasFieldsAndTypes) {
  const json doc = Document(true);
  ASSERT_EQ(doc.at("drives").size(), 2u);
  EXPECT_EQ(SchemaChecker(false).Check(doc), std::vector<std::string>{})
      << Lines(SchemaChecker(false).Check(doc)) << "\n" << doc.dump();
  // The store holds open and sealed zones: the maps exercise more than '#', '=' and '.'.
  const std::string maps = doc["drives"][0]["zonemap"].get<std::string>() +
                           doc["drives"][1]["zonemap"].get<std::string>();
  EXPECT_NE(maps.find_first_of("abcdefghijk"), std::string::npos) << maps;
  EXPECT_NE(maps.find('='), std::string::npos) << maps;
}

TEST_F(StatsSchemaDocumentTest, TheCompactDocumentLacksOnlyTheStatusMapFields) {
  const json doc = Document(false);
  EXPECT_EQ(SchemaChecker(true).Check(doc), std::vector<std::string>{})
      << Lines(SchemaChecker(true).Check(doc)) << "\n" << doc.dump();
  EXPECT_FALSE(SchemaChecker(false).Check(doc).empty()) << "zonemap/streams are required";
}

TEST_F(StatsSchemaDocumentTest, TheCheckerFindsEachKindOfDrift) {
  const json good = Document(true);
  ASSERT_TRUE(SchemaChecker(false).Check(good).empty());
  struct Case {
    const char* what;
    void (*mutate)(json&);
    const char* expect;  // a substring of one error
  };
  const Case cases[] = {
      {"missing field", [](json& d) { d["statfs"].erase("reclaimable"); },
       "$.statfs: the document lacks 'reclaimable'"},
      {"unknown field", [](json& d) { d["gc"]["surplus"] = 1; }, "'surplus' is not in the schema"},
      {"unknown drive field", [](json& d) { d["drives"][1]["extra"] = "x"; },
       "$.drives[1]: 'extra' is not in the schema"},
      {"float for integer", [](json& d) { d["io"]["crc_errors"] = 1.5; }, "$.io.crc_errors: is"},
      {"string for number", [](json& d) { d["time"] = "now"; }, "$.time: is string"},
      {"bad zone-map code", [](json& d) { d["drives"][0]["zonemap"] = "#Y."; },
       "$.drives[0].zonemap: \"#Y.\" does not match"},
      {"bad stream code", [](json& d) { d["drives"][1]["streams"] = "-x"; },
       "$.drives[1].streams"},
      {"wrong schema id", [](json& d) { d["schema"] = "smrstore.stats/2"; }, "$.schema:"},
      {"unknown hybrid state", [](json& d) { d["drives"][0]["hybrid"]["state"] = "melting"; },
       "$.drives[0].hybrid.state"},
      {"negative count", [](json& d) { d["drives"][0]["zones"]["free"] = -1; },
       "$.drives[0].zones.free: -1 < minimum"},
  };
  for (const Case& c : cases) {
    json doc = good;
    c.mutate(doc);
    const std::vector<std::string> errors = SchemaChecker(false).Check(doc);
    bool found = false;
    for (const std::string& e : errors) found |= e.find(c.expect) != std::string::npos;
    EXPECT_TRUE(found) << c.what << ": expected an error containing \"" << c.expect << "\", got"
                       << Lines(errors);
  }
}

}  // namespace
}  // namespace smr
