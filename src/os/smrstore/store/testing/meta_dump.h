// A store's metadata database as values a test can compare: every journaled key with its
// value (byte for byte), every zone's accounting, the counters a rebuild recomputes, and
// the journal pins. Used to check that `rebuild-meta` (Store::RebuildMeta) gives the
// database the store had (store/rebuild_test.cc, store/store_matrix_test.cc).
// Opens the database read-only: the store must be unmounted. Thread safety: functions of
// their arguments only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "common/testing/test_util.h"
#include "format/zone_meta.h"
#include "meta/meta_store.h"

namespace smr::testing {

struct MetaDump {
  std::map<std::string, std::string> journaled;
  std::map<std::pair<uint16_t, uint32_t>, ZoneMeta> zones;
  std::map<std::string, uint64_t> counters;
  std::string journal_pins;  // data zones pinned by journal records ("" = none)
};

inline MetaDump DumpMeta(const std::string& meta_dir) {
  MetaDump d;
  auto meta = MetaStore::Open(meta_dir, /*read_only=*/true);
  EXPECT_TRUE(meta.ok()) << meta.status().ToString();
  if (!meta.ok()) return d;
  EXPECT_OK((*meta)->ForEachJournaledKey([&](std::string_view k, std::string_view v) {
    d.journaled[std::string(k)] = std::string(v);
    return Status::OK();
  }));
  auto z = (*meta)->LoadZones(nullptr);
  EXPECT_TRUE(z.ok());
  if (z.ok()) d.zones = *z;
  for (const char* c : {"seq", "nid_max", "cid_max", "inline_stored_bytes"}) {
    auto v = (*meta)->GetCounter(nullptr, c);
    EXPECT_TRUE(v.ok());
    d.counters[c] = v.ok() ? *v : 0;
  }
  auto pins = (*meta)->GetDerivedValue(nullptr, "journal_pins");
  EXPECT_TRUE(pins.ok());
  if (pins.ok() && *pins) d.journal_pins = **pins;
  return d;
}

// How many of `before`'s journaled keys `after` lacks, and how many it holds with another
// value.
struct JournaledDiff {
  size_t lost = 0;
  size_t differ = 0;
};
inline JournaledDiff DiffJournaled(const MetaDump& before, const MetaDump& after) {
  JournaledDiff d;
  for (const auto& [k, v] : before.journaled) {
    auto it = after.journaled.find(k);
    if (it == after.journaled.end()) {
      ++d.lost;
    } else if (it->second != v) {
      ++d.differ;
    }
  }
  return d;
}

// "" when `after` (a rebuilt database) equals `before` key by key — journaled keys and
// values, counters, journal pins, and the accounting of every zone that holds data
// (stream, live bytes, write pointer, footer position) — else every difference found, one
// per line (at most `max_lines`).
// With `counters_may_trail`, a rebuilt counter may be below the live one: a commit that
// changed only counters (every transaction of it failed) writes no journal record
// (store/metadata_journal.cc, JournalBatch), so ids and sequence numbers it used are not on the
// drives.
// With `dead_tail` (not null), a zone whose rebuilt write pointer is past the live one by
// bytes that hold no live data — what a failed commit group or a power cut left past the
// committed write pointer, which mount treats as dead space without persisting it — is
// not a difference; such zones are counted in *dead_tail. Live bytes must still be equal
// (a journal zone's, which counts its records, may grow by exactly the tail).
inline std::string DiffMetaDumps(const MetaDump& before, const MetaDump& after,
                                 bool counters_may_trail = false, size_t max_lines = 20,
                                 uint64_t* dead_tail = nullptr) {
  std::string out;
  size_t lines = 0;
  auto add = [&](const std::string& s) {
    if (lines++ < max_lines) out += s + "\n";
  };
  auto key_name = [](const std::string& k) {
    std::string s = "prefix '" + k.substr(0, 1) + "', " + std::to_string(k.size()) + " bytes";
    return s;
  };
  for (const auto& [k, v] : before.journaled) {
    auto it = after.journaled.find(k);
    if (it == after.journaled.end()) {
      add("key lost: " + key_name(k));
    } else if (it->second != v) {
      add("value differs: " + key_name(k) + " (" + std::to_string(v.size()) + " -> " +
          std::to_string(it->second.size()) + " bytes)");
    }
  }
  for (const auto& [k, v] : after.journaled) {
    if (!before.journaled.count(k)) add("key invented: " + key_name(k));
  }
  for (const auto& [c, v] : before.counters) {
    auto it = after.counters.find(c);
    const uint64_t got = it == after.counters.end() ? 0 : it->second;
    if (got != v && !(counters_may_trail && got < v)) add("counter " + c + ": " + std::to_string(v) + " -> " + std::to_string(got));
  }
  if (before.journal_pins != after.journal_pins) {
    add("journal pins differ: '" + before.journal_pins + "' -> '" + after.journal_pins + "'");
  }
  auto zone_name = [](const std::pair<uint16_t, uint32_t>& a) {
    return "zone " + std::to_string(a.first) + "/" + std::to_string(a.second);
  };
  for (const auto& [addr, zm] : after.zones) {
    if (zm.stream == 0) continue;
    auto it = before.zones.find(addr);
    if (it == before.zones.end() || it->second.stream == 0) {
      add(zone_name(addr) + " holds data only in the rebuilt database (stream " +
          std::to_string(zm.stream) + ", live " + std::to_string(zm.live_bytes) + ", wp " +
          std::to_string(zm.committed_wp) + ", footer " + std::to_string(zm.footer_at) + ")");
    }
  }
  for (const auto& [addr, zm] : before.zones) {
    if (zm.stream == 0) continue;
    auto it = after.zones.find(addr);
    if (it == after.zones.end()) {
      add(zone_name(addr) + " missing from the rebuilt database");
      continue;
    }
    const ZoneMeta& r = it->second;
    if (dead_tail != nullptr && r.stream == zm.stream && r.committed_wp > zm.committed_wp &&
        (r.live_bytes == zm.live_bytes ||
         r.live_bytes - zm.live_bytes == r.committed_wp - zm.committed_wp) &&
        (r.footer_at == zm.footer_at || (zm.footer_at == 0 && r.footer_at >= zm.committed_wp))) {
      ++*dead_tail;
      continue;
    }
    if (r.stream != zm.stream || r.live_bytes != zm.live_bytes ||
        r.committed_wp != zm.committed_wp || r.footer_at != zm.footer_at) {
      add(zone_name(addr) + ": stream " + std::to_string(zm.stream) + " -> " +
          std::to_string(r.stream) + ", live " + std::to_string(zm.live_bytes) + " -> " +
          std::to_string(r.live_bytes) + ", wp " + std::to_string(zm.committed_wp) + " -> " +
          std::to_string(r.committed_wp) + ", footer " + std::to_string(zm.footer_at) +
          " -> " + std::to_string(r.footer_at));
    }
  }
  if (lines > max_lines) out += "... " + std::to_string(lines - max_lines) + " more\n";
  return out;
}

}  // namespace smr::testing
