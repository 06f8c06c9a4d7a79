// smrstore-tool bench: the report of a run as JSON and as text (bench_report.h).
#include "bench_report.h"

#include <cmath>
#include <cstdio>
#include <iostream>

#include "bench_common.h"
#include "store/options_table.h"

namespace smr::tool::bench {

namespace {

// Normal quantiles for the p99 intervals (quantile.h, QuantileCiMs): 95 % for one p99;
// 97.5 % for each of the two p99s of a ratio, so that its interval holds at >= 95 %.
constexpr double kZ95 = 1.96;
constexpr double kZ975 = 2.24;

// p99 of `a` / p99 of `b`, with the interval [a.lo / b.hi, a.hi / b.lo] (null bounds: the
// samples do not bound it).
Json P99RatioJson(const LatencyHistogram& a, const LatencyHistogram& b) {
  const auto ca = a.QuantileCiMs(0.99, kZ975);
  const auto cb = b.QuantileCiMs(0.99, kZ975);
  const double pb = b.QuantileMs(0.99);
  return {{"ratio", JsonNum(pb > 0 ? a.QuantileMs(0.99) / pb : NAN)},
          {"ci95", Json::array({JsonNum(cb.hi_ms > 0 ? ca.lo_ms / cb.hi_ms : NAN),
                                JsonNum(cb.lo_ms > 0 ? ca.hi_ms / cb.lo_ms : NAN)})}};
}

Json HistJson(const LatencyHistogram& h) {
  const auto ci = h.QuantileCiMs(0.99, kZ95);
  return {{"count", h.count()},
          {"mean", JsonNum(h.mean_ms())},
          {"p50", JsonNum(h.QuantileMs(0.5))},
          {"p99", JsonNum(h.QuantileMs(0.99))},
          {"p99_ci95", Json::array({JsonNum(ci.lo_ms), JsonNum(ci.hi_ms)})},
          {"p999", JsonNum(h.QuantileMs(0.999))},
          {"max", JsonNum(h.max_ms())}};
}

// `part` / `whole` bytes, 0 when `whole` is 0.
double Ratio(uint64_t part, uint64_t whole) {
  return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0;
}

}  // namespace

Json ReportJson(const Config& c, const RunReport& r) {
  Json j = {{"bench", "smrstore-tool bench"},
            {"schema", 1},
            {"status", r.hard.ok() ? "ok" : "no_space"}};
  if (!r.hard.ok()) j["error"] = r.hard.ToString();
  // The store options given on the command line, as the option table writes them.
  const StoreOptions& o = c.store;
  auto given = [&](const char* key) { return c.store_given.count(key) > 0; };
  Json store_options = Json::object();
  for (const std::string& key : c.store_given) store_options[key] = *GetStoreOption(o, key);
  j["config"] = {{"drives", c.drives},
                 {"zones", c.zones},
                 {"zone_mib", c.zone_mib},
                 {"mbps", JsonNum(c.mbps)},
                 {"seek_ms", JsonNum(c.seek_ms)},
                 {"size_dist", c.size_text},
                 {"util", JsonNum(c.util)},
                 {"mix",
                  {{"read", JsonNum(c.mix_read)},
                   {"write", JsonNum(c.mix_write)},
                   {"delete", JsonNum(c.mix_delete)}}},
                 {"delete", c.del_text},
                 {"clients", c.clients},
                 {"rate", c.rate > 0 ? JsonNum(c.rate) : Json(nullptr)},
                 {"duration_s", c.ops ? Json(nullptr) : JsonNum(c.duration)},
                 {"ops", c.ops ? Json(c.ops) : Json(nullptr)},
                 {"policy", PolicyText(c)},
                 {"placement", PlacementText(c)},
                 {"gc_commits", c.store.gc_in_groups ? "ride" : "separate"},
                 {"gc_free", given("gc_start_free") || given("gc_urgent_free") ||
                                     given("gc_stop_free")
                                 ? Json{o.gc_start_free, o.gc_urgent_free, o.gc_stop_free}
                                 : Json(nullptr)},
                 {"gc_idle_slice", given("gc_idle_slice") ? Json(o.gc_idle_slice) : Json(nullptr)},
                 {"gc_idle_yield", given("gc_idle_yield") ? Json(o.gc_idle_yield) : Json(nullptr)},
                 {"gc_read_ahead", given("gc_read_ahead") && o.gc_read_ahead
                                       ? Json(*o.gc_read_ahead) : Json(nullptr)},
                 {"gc_free_zones_max",
                  given("gc_free_zones_max") ? Json(o.gc_free_zones_max) : Json(nullptr)},
                 {"journal", o.journal},
                 {"journal_with_data", o.journal_with_data ? Json(*o.journal_with_data) : Json(nullptr)},
                 {"store_options", store_options},
                 {"seed", c.seed},
                 {"oracle", c.oracle},
                 {"target", r.fs ? "fs" : r.emu ? "store-emu" : "store-devices"},
                 {"devices", c.devices},
                 {"fs_dir", r.fs ? Json(c.fs_dir) : Json(nullptr)},
                 {"stat_devs", c.stat_devs}};
  Json capacity = {{"data_bytes", r.st0.total},
                   {"target_live_bytes", r.target_bytes},
                   {"zone_bytes", r.zone_bytes}};
  if (r.fs) {
    capacity["statvfs_total_bytes"] = r.fs_space.total;
    capacity["statvfs_available_bytes"] = r.fs_space.available;
  }
  j["capacity"] = std::move(capacity);
  j["raw"] = {{"bytes", r.raw.bytes},
              {"write_mbps", JsonNum(r.raw.write_mbps)},
              {"read_mbps", JsonNum(r.raw.read_mbps)}};
  // Device-level bytes from the kernel's counters (/sys/block/DEV/stat) of --stat-dev.
  Json blockdev = nullptr;
  if (!c.stat_devs.empty()) {
    uint64_t bf = 0, bs = 0;
    Json per_dev = Json::object();
    for (size_t i = 0; i < c.stat_devs.size(); ++i) {
      const uint64_t fill = r.bd_steady0[i] - r.bd_fill0[i];
      const uint64_t steady = r.bd_steady1[i] - r.bd_steady0[i];
      bf += fill;
      bs += steady;
      per_dev[c.stat_devs[i]] = {{"fill_bytes", fill}, {"steady_bytes", steady}};
    }
    blockdev = {{"devs", c.stat_devs},
                {"per_dev", std::move(per_dev)},
                {"fill_bytes", bf},
                {"fill_wa", JsonNum(Ratio(bf, r.fill.user_bytes))},
                {"steady_bytes", bs},
                {"steady_wa", JsonNum(Ratio(bs, r.user))}};
  }
  j["blockdev"] = std::move(blockdev);
  j["fill"] = {
      {"seconds", JsonNum(r.fill.seconds)},
      {"objects", r.fill.objects},
      {"user_bytes", r.fill.user_bytes},
      {"device_bytes", r.fill.device_bytes},
      {"wa", JsonNum(Ratio(r.fill.device_bytes, r.fill.user_bytes))},
      {"user_mbps", JsonNum(static_cast<double>(r.fill.user_bytes) / 1e6 / r.fill.seconds)}};
  j["steady"] = {
      {"seconds", JsonNum(r.secs)},
      {"puts", r.puts},
      {"gets", r.gets},
      {"deletes", r.deletes},
      {"user_bytes", r.user},
      {"store_user_bytes", r.k1.user_bytes_written - r.k0.user_bytes_written},
      {"device_bytes", r.device_bytes()},
      {"gc_bytes", r.k1.gc_bytes_written - r.k0.gc_bytes_written},
      {"gc_live_moved", r.k1.gc_live_moved - r.k0.gc_live_moved},
      {"gc_slices", r.k1.gc_slices - r.k0.gc_slices},  // live_moved / slices: mean slice
      {"gc_runs", r.k1.gc_runs - r.k0.gc_runs},
      {"gc_read_ahead_bytes", r.k1.gc_read_ahead_bytes - r.k0.gc_read_ahead_bytes},
      {"gc_read_ahead_yields", r.k1.gc_read_ahead_yields - r.k0.gc_read_ahead_yields},
      {"zones_reset", r.k1.gc_zones_reset - r.k0.gc_zones_reset},
      {"gc_throttle_s", JsonNum((r.k1.gc_throttle_ns - r.k0.gc_throttle_ns) / 1e9)},
      // Open loop only (null closed loop): seconds behind the arrival schedule at the end,
      // and whether that is under RunReport::kOpenLoopMaxLagSeconds.
      {"open_loop_lag_s", c.rate > 0 ? JsonNum(r.open_loop_lag_s) : Json(nullptr)},
      {"open_loop_kept_up", c.rate > 0 ? Json(r.open_loop_kept_up()) : Json(nullptr)},
      {"wa", JsonNum(r.wa())},
      {"user_mbps", JsonNum(r.user_mbps())},
      {"device_mbps", JsonNum(static_cast<double>(r.device_bytes()) / 1e6 / r.secs)},
      {"get_mbps", JsonNum(static_cast<double>(r.get_bytes) / 1e6 / r.secs)},
      {"user_mbps_to_raw", JsonNum(r.user_mbps_to_raw())},
      {"live_bytes_end", r.live_end},
      {"objects_end", r.objects_end},
      {"statfs_end",
       {{"total", r.st1.total},
        {"available", r.st1.available},
        {"allocated", r.st1.allocated},
        {"stored", r.st1.stored}}}};
  j["latency_ms"] = {{"gc_marking",
                      "op overlapped GC progress (gc_runs, gc_bytes_written or gc_zones_reset "
                      "advanced between its start and completion)"},
                     {"put", HistJson(r.lat.put)},
                     {"put_gc", HistJson(r.lat.put_gc)},
                     {"put_nogc", HistJson(r.lat.put_nogc)},
                     {"put_p99_gc_over_nogc", P99RatioJson(r.lat.put_gc, r.lat.put_nogc)},
                     {"get", HistJson(r.lat.get)},
                     {"get_gc", HistJson(r.lat.get_gc)},
                     {"get_nogc", HistJson(r.lat.get_nogc)},
                     {"delete", HistJson(r.lat.del)}};
  Json oracle = nullptr;
  if (c.oracle && !r.oracle.ran) {
    oracle = {{"error", r.oracle.error}};
  } else if (c.oracle) {
    oracle = {{"trace_ops", r.oracle.trace_ops},
              {"wa_floor", JsonNum(r.oracle.wa_floor)},
              {"wa_sim_same_policy", JsonNum(r.oracle.wa_sim_same)}};
    oracle.update(r.oracle.extra);  // appended in its order
  }
  j["oracle"] = std::move(oracle);
  Json timeline = Json::array();
  for (const Point& p : r.timeline) {
    timeline.push_back({{"t", JsonNum(p.t)},
                        {"user_mbps", JsonNum(p.user_mbps)},
                        {"device_mbps", JsonNum(p.device_mbps)},
                        {"gc_mbps", JsonNum(p.gc_mbps)},
                        {"wa_so_far", JsonNum(p.wa_so_far)},
                        {"free_frac", JsonNum(p.free_frac)},
                        {"puts", p.puts},
                        {"gets", p.gets},
                        {"deletes", p.deletes},
                        {"gc_runs", p.gc_runs}});
  }
  j["timeline"] = std::move(timeline);
  return j;
}

void PrintReport(const Config& c, const RunReport& r) {
  char buf[4096];
  std::snprintf(
      buf, sizeof(buf),
      "bench: %llu drive(s) x %llu zones x %llu MiB, %s, util %.2f, mix %s, delete %s, "
      "%llu clients, policy %s, placement %s\n"
      "  raw sequential write %.1f MB/s, read %.1f MB/s\n"
      "  fill: %llu objects, %.1f MiB in %.1f s (%.1f MB/s, format overhead WA %.3f)\n"
      "  steady: %.1f s, %llu PUT / %llu GET / %llu DELETE\n"
      "    WA %.3f (device %.1f MiB / user %.1f MiB; GC %.1f MiB, %llu victims, %llu zones "
      "reset)\n"
      "    user %.1f MB/s = %.3f of raw, device %.1f MB/s\n"
      "    PUT ms p50 %.2f p99 %.2f p999 %.2f (p99 with GC %.2f [%llu], without %.2f [%llu])\n"
      "    GET ms p50 %.2f p99 %.2f p999 %.2f (p99 with GC %.2f [%llu], without %.2f [%llu])\n",
      (unsigned long long)c.drives, (unsigned long long)c.zones,
      (unsigned long long)c.zone_mib, c.size_text.c_str(), c.util, c.mix_text.c_str(),
      c.del_text.c_str(), (unsigned long long)c.clients, PolicyText(c),
      PlacementText(c), r.raw.write_mbps, r.raw.read_mbps,
      (unsigned long long)r.fill.objects, r.fill.user_bytes / 1048576.0, r.fill.seconds,
      r.fill.user_bytes / 1e6 / r.fill.seconds,
      r.fill.user_bytes ? static_cast<double>(r.fill.device_bytes) / r.fill.user_bytes : 0,
      r.secs,
      (unsigned long long)r.puts, (unsigned long long)r.gets,
      (unsigned long long)r.deletes, r.wa(), r.device_bytes() / 1048576.0, r.user / 1048576.0,
      (r.k1.gc_bytes_written - r.k0.gc_bytes_written) / 1048576.0,
      (unsigned long long)(r.k1.gc_runs - r.k0.gc_runs),
      (unsigned long long)(r.k1.gc_zones_reset - r.k0.gc_zones_reset), r.user_mbps(),
      r.user_mbps_to_raw(),
      r.device_bytes() / 1e6 / r.secs, r.lat.put.QuantileMs(0.5), r.lat.put.QuantileMs(0.99),
      r.lat.put.QuantileMs(0.999), r.lat.put_gc.QuantileMs(0.99),
      (unsigned long long)r.lat.put_gc.count(), r.lat.put_nogc.QuantileMs(0.99),
      (unsigned long long)r.lat.put_nogc.count(), r.lat.get.QuantileMs(0.5),
      r.lat.get.QuantileMs(0.99), r.lat.get.QuantileMs(0.999), r.lat.get_gc.QuantileMs(0.99),
      (unsigned long long)r.lat.get_gc.count(), r.lat.get_nogc.QuantileMs(0.99),
      (unsigned long long)r.lat.get_nogc.count());
  std::cout << buf;
  if (c.oracle) {
    if (r.oracle.ran) {
      std::printf("  oracle (gc_sim, %llu trace ops): WA floor %.3f, simulated %s/%s WA %.3f\n",
                  (unsigned long long)r.oracle.trace_ops, r.oracle.wa_floor,
                  PolicyText(c), PlacementText(c),
                  r.oracle.wa_sim_same);
    } else {
      std::printf("  oracle: %s\n", r.oracle.error.c_str());
    }
  }
  if (c.rate > 0 && !r.open_loop_kept_up()) {
    std::printf("  FELL BEHIND: %.1f s behind the %g ops/s schedule at the end; latencies "
                "include the growing queue (compare no ratio from this run)\n",
                r.open_loop_lag_s, c.rate);
  }
  if (!r.hard.ok()) std::printf("  STOPPED EARLY: %s\n", r.hard.ToString().c_str());
  std::fflush(stdout);
}

void PrintRawOnly(const Config& c, const std::vector<std::string>& specs, uint64_t zone_bytes,
                  const RawResult& raw) {
  if (c.json) {
    const Json j = {{"bench", "smrstore-tool bench --raw-only"},
                    {"schema", 1},
                    {"devices", specs},
                    {"zone_bytes", zone_bytes},
                    {"raw",
                     {{"bytes", raw.bytes},
                      {"write_mbps", JsonNum(raw.write_mbps)},
                      {"read_mbps", JsonNum(raw.read_mbps)},
                      {"rand4k_reads", raw.rand_reads},
                      {"rand4k_read_iops", JsonNum(raw.rand_read_iops)},
                      {"rand4k_read_mean_ms", JsonNum(raw.rand_read_mean_ms)}}}};
    std::cout << JsonText(j);
  } else {
    std::printf("raw sequential write %.1f MB/s, read %.1f MB/s (%llu MiB); "
                "random 4 KiB reads %.1f IOPS, mean %.2f ms (%llu reads)\n",
                raw.write_mbps, raw.read_mbps, (unsigned long long)(raw.bytes >> 20),
                raw.rand_read_iops, raw.rand_read_mean_ms, (unsigned long long)raw.rand_reads);
  }
}

}  // namespace smr::tool::bench
