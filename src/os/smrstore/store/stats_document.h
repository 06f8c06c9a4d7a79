// Pieces of the operator stats document (doc/stats-schema.md, `smrstore.stats/1`) that do
// not need a mounted store: the zone-map and stream characters of one zone, and the decoding
// of a zone-map character. The document itself is Store::StatsDocument
// (store/stats_document.cc). The characters are defined by the normative schema
// mgr-module/smrstore/stats_schema.json (x-zonemap-codes, x-streams-codes);
// store/stats_schema_test.cc fails when these functions or the document disagree with it.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>

#include "zone/zone_manager.h"

namespace smr {

// How a zone is used, as far as the zone map tells it apart.
enum class ZoneMapRole : uint8_t {
  kData,          // a data zone (free, open or sealed)
  kSuperblock,    // one of the store's superblock-log zones
  kConventional,  // a conventional zone the store does not use
  kInactive,      // hybrid drive: a zone of its realm's inactive domain
};

// Live bytes of `capacity` in tenths, rounded to the nearest tenth (0..10).
int LiveTenths(uint64_t live_bytes, uint64_t capacity);

// The `zonemap` character of a zone: '#' superblock, '=' unused conventional, 'X' offline,
// '!' read-only, '.' free, 'A'..'K' open and 'a'..'k' sealed by live tenths, '_' inactive
// (hybrid drives: a zone of its realm's other domain).
char ZoneMapChar(const ZoneStatus& zone, ZoneMapRole role);

// The `streams` character of a zone: '-' none (free, superblock, conventional, offline),
// else the stream of an open or sealed zone: 'u' user, 's' small, 'g' GC, 'G' GC-cold,
// 'h' user-hot.
char ZoneStreamChar(const ZoneStatus& zone, ZoneMapRole role);

// What a zone-map character says about its zone (the schema's x-zonemap-states).
enum class ZoneMapState : uint8_t {
  kReserved,      // '#'
  kFree,          // '.'
  kOpen,          // 'A'..'K'
  kSealed,        // 'a'..'k'
  kOffline,       // 'X'
  kReadOnly,      // '!'
  kConventional,  // '='
  kInactive,      // '_'
  kUnknown,       // no zone-map character
};

// The schema's name of a state ("reserved", "free", "open", "sealed", "offline", "readonly",
// "conventional"; the keys of a drive's `zones` counts), "unknown" for kUnknown.
const char* ZoneMapStateName(ZoneMapState state);

struct ZoneMapCode {
  ZoneMapState state = ZoneMapState::kUnknown;
  int live_tenths = -1;  // open and sealed zones: live data in tenths (0..10); else -1
};

// Decodes one `zonemap` character (the inverse of ZoneMapChar); kUnknown for any other.
ZoneMapCode DecodeZoneMapChar(char c);

}  // namespace smr
