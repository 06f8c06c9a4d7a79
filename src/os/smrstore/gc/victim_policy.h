// Zone GC victim policies: which zones to clean first. Pure functions of
// the zones' accounting — no I/O, no store state — so they are unit-tested and replayed by
// the offline simulator (gc/gc_sim.h) exactly as the store runs them.
//
// Contract
//   RankVictims orders candidate zones best-first under a policy; zones with no dead bytes
//   are never returned (cleaning them only moves data). Ties break by (drive, zone) so the
//   result is deterministic.
//     kGreedy      most dead bytes first (dm-zoned, many FTLs): score = written - live.
//     kCostBenefit LFS: benefit/cost = (1 - u) * age / (1 + u), u = live / written.
//     kLifetime    ours: cost-benefit whose benefit counts only the free space that stays
//                  free. With r = the zone's stream death rate (PolicyParams, per age
//                  unit; 0 = unknown) and H = PolicyParams::horizon (a typical age of the
//                  zones GC cleans), relocated bytes stay in their new zone while it fills
//                  and then ages until GC cleans it: about h = kLookaheadAges * H = 2H. The
//                  zone's expected utilization after h is  u_h = u * exp(-r * h).  Cleaning
//                  now frees (1 - u) but relocates u - u_h bytes that would have died within
//                  h anyway; those become dead space again in the GC zones. (2H: the best of
//                  0.5H-8H in gc_sim on zipf at 70-90 % full and the oss mix, 2-7 % less WA
//                  than H; uniform deletes unchanged: doc/performance.md.) So
//                    benefit = max(1 - u - (u - u_h), 0.05 * (1 - u))
//                    score   = benefit * (age + 1) / (1 + u)
//                  Zones of short-lived streams keep losing data, so waiting is cheaper for
//                  them (their benefit shrinks, down to the 5 % floor that keeps zones that
//                  should all wait ranked among themselves); zones of long-lived streams
//                  (r ~ 0) are ranked exactly as cost-benefit with age + 1, so they are
//                  cleaned as soon as they pay. Within one stream at equal age the order is
//                  greedy's (the score falls with u). Simulated WA: doc/design.md.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace smr {

enum class VictimPolicy : uint8_t { kGreedy = 1, kCostBenefit = 2, kLifetime = 3 };

const char* VictimPolicyName(VictimPolicy p);
// "greedy", "cost-benefit", "lifetime"; kInvalidArgument naming the three otherwise.
Result<VictimPolicy> ParseVictimPolicy(const std::string& name);

struct ZoneCandidate {
  uint16_t drive = 0;
  uint32_t zone = 0;
  uint8_t stream = 0;      // zone/stream.h StreamId of the zone
  uint64_t capacity = 0;   // zone capacity, bytes
  uint64_t written = 0;    // bytes written into the zone (records incl. headers)
  uint64_t live = 0;       // live payload bytes
  uint64_t age = 0;        // time since the zone was sealed, in any unit (e.g. txn seqs)
};

struct PolicyParams {
  // kLifetime: per stream (index = StreamId), the fraction of a zone's live bytes expected
  // to die per unit of age (observed by the store). Missing entries mean "unknown" (0).
  std::vector<double> death_rate_per_age;
  // kLifetime: a typical age of the zones GC cleans (the store: the candidates' mean age;
  // gc_sim: its victims' mean age at cleaning); the policy looks kLookaheadAges of it ahead.
  double horizon = 0;
};

// Indices into `zones`, best victim first; only zones with live < written.
std::vector<size_t> RankVictims(VictimPolicy policy, const std::vector<ZoneCandidate>& zones,
                                const PolicyParams& params = {});

// The score RankVictims sorts by (higher = better victim), for tests and stats.
double VictimScore(VictimPolicy policy, const ZoneCandidate& z, const PolicyParams& params);

// How many `PolicyParams::horizon`s kLifetime looks ahead (see kLifetime above).
inline constexpr double kLookaheadAges = 2.0;

// kLifetime's u_h = u * exp(-r * kLookaheadAges * horizon): the zone's expected utilization
// after that many more age units (u = live / written, r = its stream's death rate, 0 if
// unknown).
double ExpectedUtilization(const ZoneCandidate& z, const PolicyParams& params);

}  // namespace smr
