// smrstore-tool's hybrid-drive commands (hybrid_commands.cc): `convert` (one realm of a
// mounted store, Store::ConvertRealm) and `plan-conversion` (predicts a conversion's time
// and the foreground latency it adds, plan_model.h, before anything is converted); the
// benchmark `hybrid-bench` is bench/hybrid_bench.cc. Hybrid drives exist only in the emulator.
// Each command returns its exit code: 0 ok, 1 the operation failed, 2 usage (cli.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/result.h"
#include "device/zoned_device.h"
#include "plan_model.h"
#include "store/store.h"

namespace smr::tool {

void AddHybridCommands(Cli* cli);

// What one conversion did, from Store::Hybrid() before and after it.
struct ConversionReport {
  double seconds = 0;           // wall time of ConvertRealm
  uint64_t moved_bytes = 0;     // live bytes moved out of the realm
  uint64_t quanta = 0;          // migration quanta run
  double quantum_ms_p99 = 0;    // of those quanta (tool Quantile rule), 0 when none
  double quantum_ms_max = 0;
  uint64_t bound_violations = 0;
  double activation_ms = 0;     // the drive's conversion command
};
// The difference `after - before` of the store's hybrid counters: quanta and their
// durations are the last (after.quanta - before.quanta) entries of recent_quantum_ms (all
// of them when more quanta ran than it keeps).
ConversionReport DiffHybrid(const HybridCounters& before, const HybridCounters& after,
                            double seconds);

// What a GC slice costs on the drive named by `spec`, for plan-conversion: GC-like slices
// of 1, 2 and 4 records on the CMR zones of a scratch emulated hybrid drive made in
// `scratch_dir` (removed afterwards) with the drive's timing model (mbps, seek_ms; none for
// a zbd: drive), the commit's metadata sync measured in `scratch_dir`; about a second.
// *how says what was measured.
Result<RelocationCost> MeasureRelocationCost(const std::string& spec,
                                             const std::string& scratch_dir,
                                             std::string* how);

// The realms plan-conversion (and hybrid-bench) would convert on `drive` into `to`: those
// active in the other domain and not converting, least live bytes first (the order the
// store's policy picks them in) or, with most_live, most first; at most n.
std::vector<RealmUsage> PickRealms(const std::vector<RealmUsage>& realms, uint16_t drive,
                                   ZoneDomain to, size_t n, bool most_live);
// The model's view of those realms.
std::vector<RealmLoad> LoadsOf(const std::vector<RealmUsage>& realms);
// A plan as plan-conversion's JSON gives it (without the target fields).
Json PlanJson(const PlanRange& range, const RelocationCost& cost, const PlanParams& p);

}  // namespace smr::tool
