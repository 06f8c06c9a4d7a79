// smrstore-tool bench: what a run reports. The JSON document (schema 1; its fields are
// documented in doc/performance.md, "GC workload bench"), the text summary, and the result
// of --raw-only. Nothing here measures: RunReport holds the figures the phases collected.
// Thread safety: pure functions of their arguments (the printers write to stdout).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench_config.h"
#include "bench_oracle.h"
#include "bench_runner.h"
#include "common/json.h"
#include "common/status.h"
#include "fs_target.h"
#include "store/store.h"

namespace smr::tool::bench {

struct RunReport {
  Status hard;                   // OK, or the NoSpace that stopped the steady state early
  bool fs = false, emu = false;  // the target: --fs-dir; else emulated drives or --devices
  uint64_t zone_bytes = 0;
  StoreStatfs st0;               // before the fill
  uint64_t target_bytes = 0;     // live bytes the fill aimed at
  FsObjectDir::Space fs_space;   // statvfs of the empty file system (--fs-dir)
  RawResult raw;
  // --stat-dev kernel write counters: before the fill, at the steady state's start and end.
  std::vector<uint64_t> bd_fill0, bd_steady0, bd_steady1;
  FillResult fill;
  // The steady state.
  double secs = 0;
  uint64_t puts = 0, gets = 0, deletes = 0, get_bytes = 0;
  uint64_t user = 0;             // committed PUT payload bytes
  StoreCounters k0, k1;          // target counters at its start and end
  StoreStatfs st1;               // at its end
  uint64_t live_end = 0, objects_end = 0;
  Latencies lat;
  double open_loop_lag_s = 0;    // SteadyResult::open_loop_lag_s
  std::vector<Point> timeline;
  OracleResult oracle;
  // Open loop: whether the target kept up with --rate (it ended less than
  // kOpenLoopMaxLagSeconds behind its schedule). Latencies of a run that did not include an
  // ever-growing queue, so its percentiles and ratios say how far it was overloaded,
  // not how GC affects latency.
  static constexpr double kOpenLoopMaxLagSeconds = 2.0;
  bool open_loop_kept_up() const { return open_loop_lag_s < kOpenLoopMaxLagSeconds; }

  uint64_t device_bytes() const { return k1.device_bytes_written - k0.device_bytes_written; }
  // WA of the steady state: device bytes / user PUT bytes.
  double wa() const {
    return user ? static_cast<double>(device_bytes()) / static_cast<double>(user) : 0;
  }
  double user_mbps() const { return static_cast<double>(user) / 1e6 / secs; }
  double user_mbps_to_raw() const {
    return raw.write_mbps > 0 ? user_mbps() / raw.write_mbps : 0;
  }
};

// The JSON document of the run (schema 1, doc/performance.md).
Json ReportJson(const Config& c, const RunReport& r);
// The text summary on stdout (what bench prints without --json).
void PrintReport(const Config& c, const RunReport& r);
// --raw-only: the raw leg of `specs`, as JSON with --json, else one line.
void PrintRawOnly(const Config& c, const std::vector<std::string>& specs, uint64_t zone_bytes,
                  const RawResult& raw);

}  // namespace smr::tool::bench
