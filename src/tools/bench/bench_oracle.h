// smrstore-tool bench --oracle: the PUT/DELETE trace a run records, and its replay through
// the offline GC simulator (gc/gc_sim.h) on the run's zone geometry: with the oracle
// placement under each victim policy (the WA floor: the lowest) and once with the run's own
// policy and placement (a cross-check of the store).
// Thread safety: RunOracle is a pure function of its arguments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench_config.h"
#include "common/json.h"
#include "gc/gc_sim.h"

namespace smr::tool::bench {

// One recorded PUT/DELETE for the oracle, in commit order.
struct TraceRec {
  bool put = false;
  uint64_t id = 0;
  uint64_t bytes = 0;
  uint64_t name = TraceOp::kNoName;  // a PUT's name (Obj::slot), so gc_sim sees histories
};

// What RunOracle found; ran == false with `error` when a simulation failed.
struct OracleResult {
  bool ran = false;
  std::string error;
  double wa_floor = 0, wa_sim_same = 0;
  uint64_t trace_ops = 0;
  Json extra;  // the simulations' figures: more members of the report's "oracle" object
};

// Replays `trace` (the fill is trace[0, steady_start), the steady state the rest) on
// data_bytes of zones of --zone-mib; the WAs are of the steady state alone.
OracleResult RunOracle(const Config& c, const std::vector<TraceRec>& trace, size_t steady_start,
                       uint64_t data_bytes);

}  // namespace smr::tool::bench
