// The model behind `smrstore-tool plan-conversion`: how long converting hybrid-drive realms
// takes and how much foreground latency each migration quantum adds, predicted before
// anything is converted (doc/tools/smrstore-tool.md, "plan-conversion"). Pure arithmetic,
// no I/O; plan_model_test.cc pins it.
//
// Contract
//   The store (store/hybrid.cc) drains a realm by GC slices ("quanta"): a slice walks one
//   zone of the realm from where the last one stopped, reads every record header (and the
//   payloads of live records) and rewrites the live ones elsewhere, until it has moved
//   `quantum` live bytes or reached the zone's end (a slice never crosses zones); then it
//   commits (device flush, metadata sync). The store sizes quantum = rate x B/2, with B the
//   latency bound and rate the live bytes per ms measured on its own earlier quanta (an
//   EWMA), clamped to [min_quantum, max_quantum]. A slice that moves q live bytes from
//   zones whose written bytes are a fraction f live costs
//       T(q) = fixed_ms + (q / f) / read_bytes_per_ms + q / write_bytes_per_ms
//   (the walk reads q/f bytes: the live ones and the dead ones between them), so the rate
//   is q / T(q) and the store's sizing settles where T(q) = B/2:
//       q* = (B/2 - fixed_ms) / (1 / (f * read_bytes_per_ms) + 1 / write_bytes_per_ms),
//   clamped to [min_quantum, max_quantum] (at min_quantum, T(q) may exceed B/2 and B: the
//   fixed cost alone is too long for the bound). A realm whose zones hold no live byte is
//   walked in one slice per zone in use (T = fixed_ms + zone's written bytes / read rate).
//   Per realm (live L, written W, n zones in use, spread evenly: L/n, W/n per zone):
//       quanta = n * ceil((L/n) / q)  (at least n when W > 0; 0 when W = 0),
//       drain  = sum of the quanta's T (the last one of a zone moves the remainder)
//                + quanta * gap_ms,
//       time   = drain + conversion_ms (the drive's own conversion of the realm);
//   realms convert one after the other: total = sum over the realms. The gap is the
//   foreground commit group that runs between two quanta while foreground work is queued:
//   gap_ms as given, or, for a foreground load that keeps the store busy a fraction U of
//   the time, gap = T(q) * U / (1 - U) (what arrives during a quantum and its gap is
//   committed in the next gap). The latency a waiting foreground commit gets added is one
//   quantum: max T over full quanta, ~B/2; the bound holds when that is <= B.
//   Not modelled: the first quantum after a mount (256 KiB until a rate is measured),
//   checkpoints that free journal zones, records that make a slice overshoot its quantum,
//   uneven zones, and the foreground load slowing the slices themselves (a shared head).
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

namespace smr::tool {

// What moving live data costs on the drive, per GC slice (calibrated or from a timing
// model). REQUIRES: read_bytes_per_ms > 0, write_bytes_per_ms > 0, fixed_ms >= 0.
struct RelocationCost {
  double fixed_ms = 0;            // per slice: positioning, device flush, metadata sync
  double read_bytes_per_ms = 0;   // walking the realm's zones (live and dead records)
  double write_bytes_per_ms = 0;  // writing the moved records elsewhere
};

// One realm to convert, as the store accounts for it (Store::Realms) or as assumed.
struct RealmLoad {
  uint32_t realm = 0;
  uint64_t live_bytes = 0;     // to move
  uint64_t written_bytes = 0;  // written in its zones, dead records included (>= live)
  uint32_t zones_in_use = 0;   // zones holding data (0 with written > 0 counts as 1)
};

struct PlanParams {
  double bound_ms = 100;       // StoreOptions::hybrid_latency_bound_ms
  double conversion_ms = 0;    // the drive's per-realm conversion time
  double gap_ms = 0;           // a foreground commit group between two quanta (fixed)
  double load = 0;             // or: foreground utilization U in [0, 1): gap = T*U/(1-U)
  uint64_t min_quantum = 64ull << 10;  // the store's clamps (store/hybrid.cc)
  uint64_t max_quantum = 64ull << 20;
};

struct RealmPlan {
  uint32_t realm = 0;
  uint64_t live_bytes = 0;
  uint64_t quantum_bytes = 0;  // q* for this realm's live fraction
  double quantum_ms = 0;       // T(q*) of a full quantum
  uint64_t quanta = 0;
  double drain_ms = 0;         // quanta and their gaps
  double total_ms = 0;         // drain + conversion
};

struct ConversionPlan {
  std::vector<RealmPlan> realms;
  uint64_t live_bytes = 0;
  uint64_t quanta = 0;
  double drain_ms = 0;
  double conversion_ms = 0;    // realms x the drive's conversion time
  double total_ms = 0;
  double added_latency_ms = 0; // per quantum (max over realms that have quanta)
  bool bound_held = true;      // added_latency_ms <= bound_ms
};

// T(q) for a slice moving `live` bytes out of zones `live_fraction` live (> 0).
double QuantumMs(const RelocationCost& cost, uint64_t live, double live_fraction);
// q*: the quantum the store settles on for that live fraction (clamped).
uint64_t QuantumBytes(const RelocationCost& cost, double live_fraction, const PlanParams& p);
// The gap after each quantum of `quantum_ms` (gap_ms, or from the load).
double GapMs(double quantum_ms, const PlanParams& p);
ConversionPlan PlanConversion(const std::vector<RealmLoad>& realms, const RelocationCost& cost,
                              const PlanParams& p);
// A realm of `capacity` bytes over `zones` zones when nothing better is known (a bare
// device): every zone written full, `live_fraction` of it live.
RealmLoad AssumedRealm(uint32_t realm, uint64_t capacity, uint32_t zones, double live_fraction);

}  // namespace smr::tool
