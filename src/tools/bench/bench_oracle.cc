// smrstore-tool bench --oracle: the trace replayed through gc_sim (bench_oracle.h).
#include "bench_oracle.h"

#include "bench_common.h"

namespace smr::tool::bench {

namespace {

// Converts the bench trace into gc_sim ops the way the store lays objects out: objects up
// to inline_max never reach the zones (left out); larger ones become one record per
// max_record_payload (1 MiB) chunk — each a sim object, a short tail (< 64 KiB) merged into
// the chunk before it so it is not routed to the small stream — all deleted together.
void AppendSimOps(const TraceRec& r, std::vector<TraceOp>* out) {
  constexpr uint64_t kInlineMax = 4096, kChunk = 1ull << 20, kTailMin = 64ull << 10;
  constexpr uint64_t kChunksPerObject = 1024;  // fixed sizes are <= 256 MiB
  if (r.bytes <= kInlineMax) return;
  uint64_t chunks = (r.bytes + kChunk - 1) / kChunk;
  if (chunks > 1 && r.bytes - (chunks - 1) * kChunk < kTailMin) --chunks;
  for (uint64_t i = 0; i < chunks; ++i) {
    TraceOp op;
    op.kind = r.put ? TraceOp::kWrite : TraceOp::kDelete;
    op.object = r.id * kChunksPerObject + i;
    op.bytes = r.put ? (i + 1 < chunks ? kChunk : r.bytes - i * kChunk) : 0;
    if (r.put && r.name != TraceOp::kNoName) op.name = r.name * kChunksPerObject + i;
    out->push_back(op);
  }
}

}  // namespace

OracleResult RunOracle(const Config& c, const std::vector<TraceRec>& trace, size_t steady_start,
                       uint64_t data_bytes) {
  OracleResult r;
  std::vector<TraceOp> prefix, full;
  for (size_t i = 0; i < trace.size(); ++i) {
    AppendSimOps(trace[i], &full);
    if (i + 1 == steady_start) prefix = full;
  }
  if (steady_start == 0) prefix.clear();
  r.trace_ops = full.size();
  SimConfig cfg;
  cfg.zone_bytes = c.zone_mib << 20;
  cfg.zones = static_cast<uint32_t>(data_bytes / cfg.zone_bytes);
  cfg.reserve_zones = static_cast<uint32_t>(2 * c.drives);  // StoreOptions gc_reserve_zones
  cfg.policy = c.store.gc_policy;
  cfg.record_header_bytes = 4096;
  cfg.block = 4096;
  cfg.small_bytes = 64 << 10;
  // The fill has no deletes, so no placement cleans during it: its device bytes are its
  // record bytes under any placement (computed once, single stream).
  cfg.placement = Placement::kSingleStream;
  auto pre = Simulate(prefix, cfg);
  if (!pre.ok()) {
    r.error = "fill prefix: " + pre.status().ToString();
    return r;
  }
  auto steady_wa = [&](const SimResult& s) {
    const double user = static_cast<double>(s.user_bytes - pre->user_bytes);
    return user > 0 ? static_cast<double>(s.device_bytes - pre->device_bytes) / user : 0.0;
  };
  // The floor: oracle placement under every victim policy, the lowest steady-state WA
  // (gc_sim.h SimulateOracleFloor).
  auto orc = SimulateOracleFloor(full, cfg, steady_wa);
  Json per_policy = Json::object();
  if (orc.ok()) {
    for (const auto& [p, run] : orc->runs) {
      per_policy[VictimPolicyName(p)] = run.ok() ? JsonNum(steady_wa(*run)) : Json(run.status().ToString());
    }
  }
  cfg.placement = c.store.separate_streams ? Placement::kSeparated : Placement::kSingleStream;
  auto same = Simulate(full, cfg);
  if (!orc.ok() || !same.ok()) {
    r.error = "simulate: " + (!orc.ok() ? orc.status() : same.status()).ToString();
    return r;
  }
  r.ran = true;
  r.wa_floor = steady_wa(orc->best);
  r.wa_sim_same = steady_wa(*same);
  r.extra = {{"sim_zones", cfg.zones},
             {"sim_reserve_zones", cfg.reserve_zones},
             {"sim_placement", PlacementName(cfg.placement)},
             {"oracle_policy", VictimPolicyName(orc->policy)},
             {"oracle_classes", orc->best.oracle_classes},
             {"oracle_wa_by_policy", per_policy},
             {"oracle_gc_bytes", orc->best.gc_bytes},
             {"oracle_zones_reset", orc->best.zones_reset},
             {"sim_gc_bytes", same->gc_bytes},
             {"sim_zones_reset", same->zones_reset},
             {"full_trace",
              {{"oracle_wa", JsonNum(orc->best.wa)},
               {"oracle_gc_wa", JsonNum(orc->best.gc_wa)},
               {"sim_wa", JsonNum(same->wa)},
               {"sim_gc_wa", JsonNum(same->gc_wa)}}}};
  return r;
}

}  // namespace smr::tool::bench
