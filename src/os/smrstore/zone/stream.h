// Write streams: data of similar expected lifetime goes to the same open zones, so zones
// tend to die whole (ZenFS lifetime hints, SMRStore's workload-aware placement).
//
// Ids are persisted in ZoneMeta::stream: never reuse a retired id (keep it as a comment).
#pragma once

#include <cstdint>

namespace smr {

enum class StreamId : uint8_t {
  // 0 is "no stream" (a free zone) in ZoneMeta.
  kUser = 1,   // large user data (full-object writes of big objects)
  kSmall = 2,  // small or short-lived data: small objects, partial overwrites, metadata-ish
  kGc = 3,     // relocations by zone GC of data younger than the mean object lifetime
  kGcCold = 4, // relocations by zone GC of data older than that (SepBIT-style: the older
               // data already is, the longer it is expected to live)
  kUserHot = 5, // large user data predicted short-lived: its name's previous incarnation
                // lived less than the mean lifetime (gc/lifetime_history.h)
  kJournal = 6, // the metadata journal and its checkpoints (store/metadata_journal.cc): never a GC
                // victim; its zones are freed when a checkpoint makes them obsolete
};

constexpr int kNumStreams = 6;
inline bool IsGcStream(StreamId s) { return s == StreamId::kGc || s == StreamId::kGcCold; }
// Streams of users' writes (they may borrow room in each other's open zones).
inline bool IsUserStream(StreamId s) {
  return s == StreamId::kUser || s == StreamId::kSmall || s == StreamId::kUserHot;
}
// Streams that may take the zones kept for GC: GC itself, and the journal GC's own
// commits write to (a store too full for its journal could not clean).
inline bool MayUseReserve(StreamId s) { return IsGcStream(s) || s == StreamId::kJournal; }
// Hybrid drives: streams whose data is small, short-lived or metadata prefer CMR zones (the
// CMR space buffers it); large user data and GC's cold relocations prefer SMR zones
// (zone/zone_manager.h). GC's young relocations stay in CMR: data relocated out of an SMR
// zone while young moves into the buffer, cold data out of a CMR zone moves to SMR.
inline bool PrefersCmr(StreamId s) {
  return s == StreamId::kSmall || s == StreamId::kUserHot || s == StreamId::kGc ||
         s == StreamId::kJournal;
}
inline bool ValidStream(uint8_t v) { return v >= 1 && v <= kNumStreams; }

inline const char* StreamName(StreamId s) {
  switch (s) {
    case StreamId::kUser:
      return "user";
    case StreamId::kSmall:
      return "small";
    case StreamId::kGc:
      return "gc";
    case StreamId::kGcCold:
      return "gc-cold";
    case StreamId::kUserHot:
      return "user-hot";
    case StreamId::kJournal:
      return "journal";
  }
  return "unknown";
}

inline int StreamIndex(StreamId s) { return static_cast<int>(s) - 1; }

}  // namespace smr
