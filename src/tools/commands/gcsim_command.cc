#include "common/json.h"
#include "gcsim_command.h"

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "gc/gc_sim.h"

namespace smr::tool {
namespace {

struct Cell {
  VictimPolicy policy;
  Placement placement;
};

// Mean of the interval WAs over the last half of the trace (the steady state).
double SteadyWa(const SimResult& r) {
  const size_t n = r.wa_over_time.size();
  if (n == 0) return 0;
  double sum = 0;
  size_t k = 0;
  for (size_t i = n / 2; i < n; ++i, ++k) sum += r.wa_over_time[i];
  return k ? sum / static_cast<double>(k) : 0;
}

int RunGcsim(const Args& args) {
  const char* cmd = "gcsim";
  TraceSpec spec;
  SimConfig base;
  auto zones = args.number("zones", 512);
  auto zone = args.size("zone-size", 256ull << 20);
  auto reserve = args.number("reserve", 4);
  auto fills = args.number("fills", 8);
  auto seed = args.number("seed", 1);
  for (const auto* r : {&zones, &zone, &reserve, &fills, &seed}) {
    if (!r->ok()) return UsageFail(cmd, r->status());
  }
  if (*zones == 0 || *zones > (1u << 24) || *zone < (1u << 20)) {
    return UsageFail(cmd, Status::InvalidArgument("--zones must be 1..16M and --zone-size >= 1M"));
  }
  base.zones = static_cast<uint32_t>(*zones);
  base.zone_bytes = *zone;
  base.reserve_zones = static_cast<uint32_t>(*reserve);
  double util = 0.8;
  const std::string util_text = args.get("util", "0.8");
  try {
    size_t used = 0;
    util = std::stod(util_text, &used);
    if (used != util_text.size()) throw std::invalid_argument("trailing");
  } catch (...) {
    return UsageFail(cmd, Status::InvalidArgument("--util: '" + util_text + "' is not a number"));
  }
  if (!(util > 0 && util < 1)) {
    return UsageFail(cmd, Status::InvalidArgument("--util must be in (0, 1)"));
  }
  spec.capacity_bytes = base.zones * base.zone_bytes;
  spec.utilization = util;
  spec.seed = *seed;
  const std::string del = args.get("delete", "zipf");
  if (del == "uniform") {
    spec.deletes = DeletePattern::kUniform;
  } else if (del == "zipf") {
    spec.deletes = DeletePattern::kZipf;
  } else if (del == "fifo") {
    spec.deletes = DeletePattern::kFifo;
  } else {
    return UsageFail(cmd, Status::InvalidArgument("--delete: '" + del + "' is not uniform, zipf or fifo"));
  }
  const std::string sizes = args.get("size-dist", "fixed:4194304");
  if (sizes.rfind("fixed:", 0) == 0) {
    auto b = ParseSize(sizes.substr(6));
    if (!b.ok() || *b == 0) {
      return UsageFail(cmd, Status::InvalidArgument("--size-dist: '" + sizes + "' is not fixed:BYTES"));
    }
    spec.sizes = SizeDist::kFixed;
    spec.fixed_bytes = *b;
  } else if (sizes == "mixed") {
    spec.sizes = SizeDist::kMixed;
  } else if (sizes == "oss") {
    spec.sizes = SizeDist::kOss;
  } else {
    return UsageFail(cmd, Status::InvalidArgument("--size-dist: '" + sizes +
                                                  "' is not fixed:BYTES, mixed or oss"));
  }
  // Steady ops: `fills` times the live data, in delete+write steps of the mean object size.
  const std::vector<TraceOp> probe = [&] {
    TraceSpec s = spec;
    s.steady_ops = 0;
    return MakeTrace(s);
  }();
  if (probe.empty()) return Fail(cmd, Status::InvalidArgument("no object fits the capacity"));
  spec.steady_ops = *fills * probe.size();
  const std::vector<TraceOp> trace = MakeTrace(spec);

  const std::vector<Cell> cells = {
      {VictimPolicy::kGreedy, Placement::kSingleStream},
      {VictimPolicy::kGreedy, Placement::kSeparated},
      {VictimPolicy::kCostBenefit, Placement::kSingleStream},
      {VictimPolicy::kCostBenefit, Placement::kSeparated},
      {VictimPolicy::kLifetime, Placement::kSingleStream},
      {VictimPolicy::kLifetime, Placement::kSeparated},
      {VictimPolicy::kLifetime, Placement::kRateOracle},
      {VictimPolicy::kGreedy, Placement::kOracle},
  };
  const bool json = args.has("json");
  Json doc;
  if (json) {
    doc["config"] = {{"zones", base.zones},
                     {"zone_bytes", base.zone_bytes},
                     {"reserve_zones", base.reserve_zones},
                     {"util", util},
                     {"delete", DeletePatternName(spec.deletes)},
                     {"size_dist", sizes},
                     {"fills", *fills},
                     {"seed", spec.seed},
                     {"trace_ops", trace.size()}};
    doc["results"] = Json::array();
  } else {
    std::printf("gcsim: %u zones x %llu MiB, %.0f %% full, %s deletes, %s, %zu ops\n",
                base.zones, static_cast<unsigned long long>(base.zone_bytes >> 20), util * 100,
                DeletePatternName(spec.deletes), sizes.c_str(), trace.size());
    std::printf("%-13s %-14s %8s %10s %10s\n", "policy", "placement", "wa", "steady_wa",
                "zones_reset");
  }
  for (const Cell& c : cells) {
    SimConfig cfg = base;
    cfg.policy = c.policy;
    cfg.placement = c.placement;
    // The oracle row is the floor: the lowest over victim policies (SimulateOracleFloor).
    VictimPolicy policy = c.policy;
    Result<SimResult> r = Status::InvalidArgument("not run");
    if (c.placement == Placement::kOracle) {
      auto floor = SimulateOracleFloor(trace, cfg, SteadyWa);
      if (floor.ok()) {
        policy = floor->policy;
        r = std::move(floor->best);
      } else {
        r = floor.status();
      }
    } else {
      r = Simulate(trace, cfg);
    }
    if (json) {
      Json row = {{"policy", VictimPolicyName(policy)}, {"placement", PlacementName(c.placement)}};
      if (r.ok()) {
        row["wa"] = r->wa;
        row["steady_wa"] = SteadyWa(*r);
        row["zones_reset"] = r->zones_reset;
        if (c.placement == Placement::kOracle || c.placement == Placement::kRateOracle) {
          row["oracle_classes"] = r->oracle_classes;
        }
      } else {
        row["error"] = r.status().ToString();
      }
      doc["results"].push_back(std::move(row));
    } else if (r.ok()) {
      std::printf("%-13s %-14s %8.3f %10.3f %10llu\n", VictimPolicyName(policy),
                  PlacementName(c.placement), r->wa, SteadyWa(*r),
                  static_cast<unsigned long long>(r->zones_reset));
    } else {
      std::printf("%-13s %-14s %s\n", VictimPolicyName(c.policy), PlacementName(c.placement),
                  r.status().ToString().c_str());
    }
  }
  if (json) {
    std::printf("%s\n", doc.dump(1, ' ', false, Json::error_handler_t::replace).c_str());
  }
  return 0;
}

}  // namespace

void AddGcsimCommand(Cli* cli) {
  cli->Add({"gcsim", "", "offline GC simulator: WA of every policy x placement and the oracle",
            "Generates a synthetic trace (fill to --util, then --fills times the live data in\n"
            "delete+write steps; zipf = fixed popularity per name, the new object takes the\n"
            "deleted one's name) and replays it through gc/gc_sim with greedy, cost-benefit and\n"
            "lifetime victims, single-stream and separated placement, the rate oracle (each\n"
            "name's write count known: the best placement by name) and the oracle placement\n"
            "(perfect death times). wa = whole trace; steady_wa = mean interval WA over its\n"
            "second half. No I/O: a model of the store, see gc/gc_sim.h.",
            0,
            0,
            {{"zones", "N", "zones (default 512)"},
             {"zone-size", "BYTES", "zone size (default 256M)"},
             {"reserve", "N", "zones only GC may use (default 4)"},
             {"util", "U", "live data / capacity after the fill, 0..1 (default 0.8)"},
             {"delete", "P", "uniform | zipf | fifo (default zipf)"},
             {"size-dist", "D", "fixed:BYTES | mixed | oss (default fixed:4194304)"},
             {"fills", "N", "steady-state data written, in multiples of the live set (default 8)"},
             {"seed", "S", "trace seed (default 1)"},
             {"json", "", "JSON output"}},
            RunGcsim});
}

}  // namespace smr::tool
