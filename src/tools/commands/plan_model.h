// The model behind `smrstore-tool plan-conversion`: how long converting hybrid-drive realms
// takes and how much foreground latency each migration quantum adds, predicted before
// anything is converted (doc/tools/smrstore-tool.md, "plan-conversion"). Pure arithmetic,
// no I/O; plan_model_test.cc pins it.
//
// Contract
//   The store (store/hybrid_manager.cc) drains a realm by GC slices ("quanta"). A slice walks one
//   zone from where the last one stopped, reads every record header (and the payloads of
//   live records) and rewrites the live ones elsewhere, record by record, until it has
//   moved `quantum` live bytes or reached the zone's end (a slice never crosses zones); then
//   it commits (journal record, device flush, metadata sync). A slice moving m live bytes
//   out of zones whose written bytes are a fraction f live costs
//       T(m) = fixed_ms + (m / f) / read_bytes_per_ms + m / write_bytes_per_ms
//   (the walk reads m/f bytes: the live records and the dead ones between them).
//   The store sizes the quantum as rate x B/2 (B the latency bound), clamped to
//   [min_quantum, max_quantum], where rate is an EWMA (weight rate_alpha) of m/T over its
//   earlier quanta that moved at least min_quantum; before any, first_quantum. So the
//   model simulates the drain quantum by quantum, with the rate carried from realm to realm
//   (one mount): quantum q -> the slice moves m = whole records until >= q
//   (ceil(q / record_bytes) records; m = q when record_bytes is 0), at most what is left
//   in the zone -> T(m) (plus the next of jitter_ms: real slices scatter around T, and
//   near a record boundary that decides whether the store moves one record or two) ->
//   the rate. With a known rate the quantum settles where T = B/2:
//       q* = (B/2 - fixed_ms) / (1 / (f * read_bytes_per_ms) + 1 / write_bytes_per_ms),
//   i.e. quantum = rate x B/2 and quanta ~ live / quantum. When even one record takes more
//   than B/2 (T(record) > B/2), every slice moves one record and adds T(record). A zone that
//   holds nothing live is walked in one slice (T = fixed_ms + its written bytes / read).
//   Per realm (live L, written W, n zones in use, each holding L/n live of W/n written):
//   the slices walk each zone's W/n written bytes; at simulated time t the walked bytes are
//   a fraction f(t) = (L/W) * exp(-k t) live, k = overwrite_bytes_per_ms / live_total_bytes
//   (foreground overwrites kill live data everywhere alike); a slice walks m/f(t) bytes to
//   move m (or the zone's rest);
//       drain = sum over its quanta of (T + gap),   time = drain + conversion_ms;
//   realms convert one after the other: total = sum over the realms. Between two quanta the
//   store waits idle_gap_ms when no foreground work is queued (its commit loop's wake-up),
//   and commits a foreground group when some is: for a foreground load that keeps the
//   store busy a fraction U of the time, gap = idle_gap_ms * (1 - U) + T * U / (1 - U)
//   (what arrives during a quantum and its gap is committed in the next gap). The latency a
//   waiting foreground commit gets added is one quantum: at most max T, ~B/2 once the rate
//   is known; the bound holds when max T <= B.
//   Not modelled: checkpoints that free journal zones, records smaller than record_bytes,
//   uneven zones, the foreground load slowing the slices themselves (one head).
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

namespace smr::tool {

// What moving live data costs on the drive, per GC slice (calibrated).
// REQUIRES: read_bytes_per_ms > 0, write_bytes_per_ms > 0, fixed_ms >= 0.
struct RelocationCost {
  double fixed_ms = 0;            // per slice: positioning, journal, flush, metadata sync
  double read_bytes_per_ms = 0;   // walking the realm's zones (live and dead records)
  double write_bytes_per_ms = 0;  // writing the moved records elsewhere
  // How single slices deviate from that (the calibration's residuals, mean ~0): slice i of
  // the simulation costs T + jitter_ms[i % size] (at least 0). Empty: no deviation.
  std::vector<double> jitter_ms;
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
  double idle_gap_ms = 5;      // the store's wait between quanta when idle (store.cc)
  double load = 0;             // foreground utilization U in [0, 1)
  uint64_t record_bytes = 0;   // live bytes per record a slice moves whole (0: any amount)
  // Foreground overwrites of existing data (bytes/ms), spread evenly over the store's
  // `live_total_bytes`: live bytes die at the rate overwrite / live_total (per ms) in the
  // realms too, before and while they drain (0: none).
  double overwrite_bytes_per_ms = 0;
  uint64_t live_total_bytes = 0;
  double initial_rate = 0;     // bytes/ms the store measured already; 0: none yet
  // The store's constants (store/hybrid_manager.cc).
  uint64_t min_quantum = 64ull << 10;
  uint64_t max_quantum = 64ull << 20;
  uint64_t first_quantum = 256ull << 10;
  double rate_alpha = 0.3;
};

// One simulated quantum.
struct Slice {
  uint64_t moved = 0;  // live bytes
  double ms = 0;       // T
};

// What the store carries from quantum to quantum (one mount).
struct DrainState {
  double rate = 0;      // bytes/ms measured (0: none yet)
  uint64_t slices = 0;  // quanta simulated so far (indexes jitter_ms)
  double time_ms = 0;   // since the plan's start (quanta, gaps, conversions)
};

struct RealmPlan {
  uint32_t realm = 0;
  uint64_t live_bytes = 0;     // at the plan's start
  uint64_t moved_bytes = 0;    // moved by its quanta (less when overwrites kill some first)
  uint64_t quanta = 0;
  double mean_quantum_bytes = 0;
  double mean_quantum_ms = 0;
  double max_quantum_ms = 0;
  double drain_ms = 0;   // quanta and their gaps
  double total_ms = 0;   // drain + conversion
};

struct ConversionPlan {
  std::vector<RealmPlan> realms;
  uint64_t live_bytes = 0;
  uint64_t moved_bytes = 0;
  uint64_t quanta = 0;
  double drain_ms = 0;
  double conversion_ms = 0;     // realms x the drive's conversion time
  double total_ms = 0;
  double mean_quantum_ms = 0;   // over all quanta
  double added_latency_ms = 0;  // the longest quantum: what a waiting commit may get added
  bool bound_held = true;       // added_latency_ms <= bound_ms
};

// T(m) for a slice moving `moved` live bytes out of zones `live_fraction` live (> 0).
double QuantumMs(const RelocationCost& cost, uint64_t moved, double live_fraction);
// The store's quantum for a measured rate (bytes/ms; 0: none yet -> first_quantum).
uint64_t QuantumFor(double rate, const PlanParams& p);
// The gap after a quantum of `quantum_ms` (idle wait and foreground commits).
double GapMs(double quantum_ms, const PlanParams& p);
// The quanta that drain `realm`, in order, from and updating *state.
std::vector<Slice> DrainSlices(const RealmLoad& realm, const RelocationCost& cost,
                               const PlanParams& p, DrainState* state);
ConversionPlan PlanConversion(const std::vector<RealmLoad>& realms, const RelocationCost& cost,
                              const PlanParams& p);
// The plan with the slices' jitter in the measured order (`expected`), and the plans with
// every slice as fast as the fastest measured one (fixed_ms + min jitter) and as slow as
// the slowest (+ max jitter), ordered by total time and widened to include `expected`: the
// store's quantum can settle in more than one state (e.g. one record or two a quantum when
// one record takes about B/2, decided by how fast its first quanta happen to be).
struct PlanRange {
  ConversionPlan expected, fastest, slowest;
};
PlanRange PlanConversionRange(const std::vector<RealmLoad>& realms, const RelocationCost& cost,
                              const PlanParams& p);

// A realm of `capacity` bytes over `zones` zones when nothing better is known (a bare
// device): every zone written full, `live_fraction` of it live.
RealmLoad AssumedRealm(uint32_t realm, uint64_t capacity, uint32_t zones, double live_fraction);

}  // namespace smr::tool
