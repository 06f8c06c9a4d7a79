// GC simulator: trace-driven, object-granular model of zoned placement plus zone GC. It is
// (a) the offline oracle — the WA floor the store is measured against — and (b) the bench
// for victim policies and placements. Pure computation: no I/O, no store types; it runs the
// same RankVictims (gc/victim_policy.h) the store runs.
//
// Contract
//   Model. `zones` zones of `zone_bytes` each. Time is the index of the trace op being
//   applied (one unit per write or delete); zone ages are in these units. Every object write
//   (user or GC relocation) appends one record — `record_header_bytes` plus the payload
//   rounded up to `block` — at the write pointer of the open zone of the record's stream;
//   when a record does not fit, that zone is sealed (its age starts at 0) and a free zone
//   is opened. A delete makes the object's record dead space in its zone. Records never
//   span zones: a record larger than a zone is kInvalidArgument.
//
//   GC. User writes may not take the last `reserve_zones` free zones. When a user write
//   needs a new zone and only `reserve_zones` or fewer are free, GC cleans victims until
//   more than reserve_zones + 1 are free (or no zone has a dead record): candidates are the
//   sealed zones holding at least one dead record, ranked by RankVictims with
//   ZoneCandidate{written = record bytes appended, live = live payload bytes (as the store
//   accounts), age = now - seal time, stream}; the best one's live objects are relocated
//   (in their order in the zone) into the GC stream of the placement, then the zone is
//   reset. Relocations may use the reserve. If a user write still finds no zone, or a
//   relocation finds none, Simulate returns kNoSpace (the trace does not fit).
//
//   Placement (which stream a record goes to; each stream has one open zone):
//     kSingleStream  every record, user or GC, goes to one open zone (stream 1).
//     kSeparated     user writes by size: < small_bytes -> "small" (stream 2), else by
//                    the lifetime of the name's previous incarnation (TraceOp::name), as
//                    the store does (gc/lifetime_history.h): below the mean lifetime of
//                    recently deleted objects (EWMA, weight 1 %) -> "user-hot" (stream 5),
//                    else or unknown -> "user" (stream 1); GC relocations to their own streams, split by the age of
//                    the relocated object (now - its user write) against the mean lifetime
//                    of the objects deleted so far (SepBIT-like): younger -> "gc" (stream
//                    3), older -> "gc-old" (stream 4).
//     kOracle        perfect knowledge of every object's death time (taken from the
//                    trace). Records — user writes and GC relocations alike — go to the open
//                    zone of the class of their *remaining* lifetime (death - now; never
//                    deleted = infinite), with oracle_classes classes bounded by the
//                    quantiles of the remaining lifetimes of all user writes of the trace
//                    (streams 8..8+classes-1). Objects in one zone then die at about the
//                    same time, so victims are nearly empty: this is the reference floor we
//                    report against. (A floor in practice, not a proven lower bound: the
//                    optimal offline placement+cleaning problem is harder than this.)
//                    Simulate runs it with oracle_classes, half as many, ... down to 1
//                    and returns the lowest WA among the runs that fit (few zones cannot
//                    hold many classes open); SimResult::oracle_classes says which.
//     kRateOracle    what the best placement by name could reach: it knows, from the whole
//                    trace, how many times each name is written (its write rate — the
//                    thing a name's lifetime history estimates online), not when its
//                    incarnations die. User writes below small_bytes go to "small" as in
//                    kSeparated; the others to the class of their name's write count
//                    (oracle_classes classes bounded by the quantiles of that count over
//                    all user writes; a write without a name counts 1), streams 8..;
//                    GC relocations as kSeparated's. Run like kOracle (classes, half,
//                    ... 1; the lowest WA). Between separated and the oracle it shows
//                    how much of the gap name-based prediction could close at all.
//
//   Policy parameters. For kLifetime, when params.death_rate_per_age is empty the
//   simulator estimates each stream's rate online as the store would: bytes that died in
//   the stream's zones / integral over time of the stream's live bytes (maximum-likelihood
//   rate of an exponential lifetime). When params.horizon is 0 it uses the mean age of the
//   victims cleaned so far (how long a zone typically waits before it is cleaned).
//
//   Write amplification, two definitions (both reported):
//     wa     = device_bytes / user_bytes: every byte appended to zones (user records with
//              header and padding, plus GC records) per user payload byte. This is what
//              the store reports (device bytes / user payload bytes).
//     gc_wa  = device_bytes / user_record_bytes = (user records + gc records) / user
//              records: the amplification due to GC alone; exactly 1.0 without GC.
//   They differ by the record overhead (header + padding); with record_header_bytes = 0
//   and block-aligned payloads they are equal.
//
// Thread safety: pure functions; distinct calls may run concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "common/result.h"
#include "gc/victim_policy.h"

namespace smr {

struct TraceOp {
  enum Kind : uint8_t { kWrite = 0, kDelete = 1 };
  Kind kind = kWrite;
  // A write creates object `object` (ids are unique per incarnation: never written again
  // after a delete); a delete kills it. Writing a live id or deleting a dead one is
  // kInvalidArgument.
  uint64_t object = 0;
  uint64_t bytes = 0;  // payload bytes of a write (ignored for deletes)
  // The name the object is written under (a write only); incarnations of one name share
  // it. kNoName: a name used once. kSeparated places by the previous incarnation's life.
  static constexpr uint64_t kNoName = ~0ull;
  uint64_t name = kNoName;
};

enum class Placement : uint8_t {
  kSingleStream = 1,
  kSeparated = 2,
  kOracle = 3,
  kRateOracle = 4
};
// "single-stream", "separated", "oracle", "rate-oracle"
const char* PlacementName(Placement p);

// Stream ids the simulator uses in ZoneCandidate::stream (and PolicyParams indices).
inline constexpr uint8_t kSimStreamUser = 1;
inline constexpr uint8_t kSimStreamSmall = 2;
inline constexpr uint8_t kSimStreamGc = 3;
inline constexpr uint8_t kSimStreamGcOld = 4;
inline constexpr uint8_t kSimStreamUserHot = 5;
inline constexpr uint8_t kSimStreamOracleBase = 8;  // + death-time class

struct SimConfig {
  uint64_t zone_bytes = 256ull << 20;
  uint32_t zones = 64;
  uint32_t reserve_zones = 2;  // free zones only GC may use
  VictimPolicy policy = VictimPolicy::kGreedy;
  Placement placement = Placement::kSingleStream;
  PolicyParams params;  // kLifetime; empty rates / zero horizon: estimated (see above)
  uint32_t record_header_bytes = 4096;  // per record, as the store's data records
  uint64_t block = 4096;                // payloads are padded to this
  uint64_t small_bytes = 64 << 10;      // kSeparated: user writes below go to "small"
  uint32_t oracle_classes = 8;  // kOracle / kRateOracle: death-time / write-count classes
                                // (1..64)
};

struct SimResult {
  uint64_t user_bytes = 0;         // user payload bytes written
  uint64_t user_record_bytes = 0;  // their records (header + padded payload)
  uint64_t device_bytes = 0;       // all record bytes appended: user + GC
  uint64_t gc_bytes = 0;           // record bytes written by GC relocations
  uint64_t gc_objects = 0;         // relocations
  uint64_t zones_reset = 0;        // victims cleaned
  double wa = 0;                   // device_bytes / user_bytes
  double gc_wa = 0;                // device_bytes / user_record_bytes
  // Interval WA (device / user payload bytes written in the interval) for each 10 % of the
  // trace's ops, in order; 0 for an interval without user writes.
  std::vector<double> wa_over_time;
  uint32_t oracle_classes = 0;  // kOracle, kRateOracle: the class count of the best run
};

// Replays `trace` under `cfg`. kInvalidArgument for a malformed config or trace,
// kNoSpace if the trace does not fit even with GC.
Result<SimResult> Simulate(const std::vector<TraceOp>& trace, const SimConfig& cfg);

// The oracle floor: the trace under Placement::kOracle with every victim policy (greedy,
// cost-benefit, lifetime; each at its best class count, as Simulate), the lowest by
// `score` (default: whole-trace WA). Even with perfect placement the victim policy
// matters: the lifetime policy's per-stream death rates do not fit the oracle's classes
// and inflate its WA, so the floor is never one fixed policy's. `cfg.policy` and
// `cfg.placement` are ignored. The error of the first policy that failed when none ran.
struct OracleFloor {
  SimResult best;
  VictimPolicy policy = VictimPolicy::kGreedy;  // the victim policy of `best`
  // Every policy's run, in the order above (a failed one carries its error).
  std::vector<std::pair<VictimPolicy, Result<SimResult>>> runs;
};
Result<OracleFloor> SimulateOracleFloor(
    const std::vector<TraceOp>& trace, const SimConfig& cfg,
    const std::function<double(const SimResult&)>& score = nullptr);

// Synthetic workloads. A trace first fills the capacity to `utilization` with new objects,
// then runs `steady_ops` steps of (delete one live object, write a new one of a fresh size).
// Objects live in "slots": a slot is created by the fill, and the object written in a step
// takes the slot of the object deleted in that step, so the live set keeps its size and
// each slot keeps a fixed popularity rank (a random permutation drawn once after the fill).
// A slot is a name: every write carries TraceOp::name = its slot index.
// Deterministic for a seed (own PRNG and samplers, no std distributions).
enum class SizeDist : uint8_t {
  kFixed = 1,  // fixed_bytes
  kMixed = 2,  // weather-archive-like: log-uniform 16 KiB..16 MiB
  kOss = 3,    // OSS-like: 90 % of slots large 4..8 MiB chunks (short-lived), 10 % small
               // 4..64 KiB metadata (long-lived: a delete that picks a small slot is kept
               // only with probability 1/10, else redrawn; FIFO requeues it instead)
};
enum class DeletePattern : uint8_t {
  kNone = 0,     // fill only, nothing deleted
  kUniform = 1,  // victim uniform over live objects
  kZipf = 2,     // victim's popularity rank ~ zipf(zipf_theta) over the slots
  kFifo = 3,     // oldest object first
};

struct TraceSpec {
  uint64_t capacity_bytes = 0;  // simulated capacity (zones x zone_bytes)
  double utilization = 0.8;     // live payload / capacity after the fill
  uint64_t steady_ops = 0;      // delete+write steps after the fill
  SizeDist sizes = SizeDist::kFixed;
  DeletePattern deletes = DeletePattern::kUniform;
  uint64_t fixed_bytes = 4ull << 20;
  uint32_t size_divisor = 1;  // every size / this (tests scale objects down with zones)
  double zipf_theta = 0.99;
  uint64_t seed = 1;
};

std::vector<TraceOp> MakeTrace(const TraceSpec& spec);

const char* SizeDistName(SizeDist d);
const char* DeletePatternName(DeletePattern d);

}  // namespace smr
