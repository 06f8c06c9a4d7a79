// smrstore-tool bench: the phases of a run. The raw leg (sequential bandwidth of the bare
// drives), the fill (new objects, batched, until the live bytes reach the target) and the
// steady state (--clients threads drawing PUT/GET/DELETE by --mix, plus a sampler thread
// that records one timeline point per second), with the state they share (Shared) and the
// latencies each client records.
// Thread safety: Shared's plain fields are guarded by Shared::mu (the error by err_mu), its
// counters are atomics; Fill and RunSteady run on the calling thread and start their own.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "bench_common.h"
#include "bench_config.h"
#include "bench_oracle.h"
#include "bench_target.h"
#include "bench_workload.h"
#include "common/result.h"
#include "common/status.h"
#include "cli/quantile.h"
#include "store/store.h"

namespace smr::tool::bench {

// Latency sets of one client (merged at the end).
struct Latencies {
  LatencyHistogram put, put_gc, put_nogc, get, get_gc, get_nogc, del;
  void Merge(const Latencies& o);
};

// ---------------------------------------------------------------------------------------
// State shared by the fill producer, the clients and the commit-thread callbacks.

struct Shared {
  const Config* cfg = nullptr;
  Target* tgt = nullptr;  // the store or the file system

  std::mutex mu;
  Pool pools[2];
  Zipf zipf[2] = {Zipf(kZipfTheta), Zipf(kZipfTheta)};
  uint64_t live[2] = {0, 0};    // payload bytes, including PUTs in flight, minus deletes
  uint64_t target[2] = {0, 0};  // per-class targets (set at the end of the fill)
  uint64_t next_id = 0;
  // kZipf: names freed by standalone deletes, with their ranks, re-used by later PUTs.
  std::vector<std::pair<uint64_t, double>> free_names[2];
  std::vector<TraceRec> trace;  // only with --oracle
  size_t steady_trace_start = 0;

  // Steady-state progress (atomics: read by the sampler).
  std::atomic<uint64_t> user_bytes{0};  // committed PUT payload
  std::atomic<uint64_t> puts{0}, gets{0}, deletes{0}, get_bytes{0};
  std::atomic<uint64_t> ops_claimed{0};
  std::atomic<bool> stop{false};

  std::mutex err_mu;
  Status error;       // first hard error
  bool no_space = false;

  void Fail(const Status& s);
  uint64_t live_total() const { return live[0] + live[1]; }
  uint64_t target_total() const { return target[0] + target[1]; }
};

// ---------------------------------------------------------------------------------------
// Raw leg: sequential writes then reads at the write pointers of each drive's sequential
// zones (skipping the first two, which the store reserves), all drives in parallel; the
// zones are reset afterwards. With rand_reads > 0 (bench --raw-only), before the reset each
// drive also reads rand_reads 4 KiB blocks drawn uniformly from what it wrote, one at a
// time (queue depth 1): a disk's random-read cost, positioning included.

struct RawResult {
  double write_mbps = 0, read_mbps = 0;
  uint64_t bytes = 0;
  uint64_t rand_reads = 0;       // 4 KiB random reads done (all drives)
  double rand_read_iops = 0;     // per drive
  double rand_read_mean_ms = 0;  // mean latency of one
};

// bench --raw-only: random 4 KiB reads per drive (at 8 ms each, about 3 s).
constexpr uint64_t kRawRandReads = 400;

Result<RawResult> RawLeg(const std::vector<std::string>& specs, uint64_t zone_bytes,
                         uint64_t rand_reads = 0);

// ---------------------------------------------------------------------------------------
// Fill phase: batches of new objects, 16 transactions in flight, until live >= target.
// At the end the live bytes of each class become its steady-state target.

struct FillResult {
  double seconds = 0;
  uint64_t objects = 0, user_bytes = 0, device_bytes = 0, store_user_bytes = 0;
};

Status Fill(Shared* sh, uint64_t target_bytes, FillResult* out);

// ---------------------------------------------------------------------------------------
// Steady state: sh->cfg->clients clients until --ops operations or --duration seconds (or
// the first hard error, in sh->error), sampled once a second.

// One second of the timeline.
struct Point {
  double t = 0, user_mbps = 0, device_mbps = 0, gc_mbps = 0, wa_so_far = 0, free_frac = 0;
  uint64_t puts = 0, gets = 0, deletes = 0, gc_runs = 0;
};

struct SteadyResult {
  StoreCounters k0;               // the target's counters at the start
  Clock::time_point t0, t1;       // start, and when the last client stopped
  std::vector<Point> timeline;
  Latencies lat;                  // all clients'
  // Open loop: how far behind its Poisson schedule the most-behind client was when the
  // steady state ended (0 when every client kept up; arrivals it had not issued by then
  // are dropped, so a run that fell behind offered less than --rate). Closed loop: 0.
  double open_loop_lag_s = 0;
};

SteadyResult RunSteady(Shared* sh);

}  // namespace smr::tool::bench
