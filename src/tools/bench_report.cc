// smrstore-tool bench: the report of a run as JSON and as text (bench_report.h).
#include "bench_report.h"

#include <cstdio>
#include <iostream>
#include <sstream>

#include "bench_common.h"
#include "cli.h"

namespace smr::tool::bench {

namespace {

std::string HistJson(const LatencyHistogram& h) {
  std::ostringstream o;
  o << "{\"count\": " << h.count() << ", \"mean\": " << Num(h.mean_ms())
    << ", \"p50\": " << Num(h.QuantileMs(0.5)) << ", \"p99\": " << Num(h.QuantileMs(0.99))
    << ", \"p999\": " << Num(h.QuantileMs(0.999)) << ", \"max\": " << Num(h.max_ms()) << "}";
  return o.str();
}

}  // namespace

std::string ReportJson(const Config& c, const RunReport& r) {
  auto json_list = [](const std::vector<std::string>& v) {
    std::string o = "[";
    for (size_t i = 0; i < v.size(); ++i) o += (i ? ", \"" : "\"") + JsonEscape(v[i]) + "\"";
    return o + "]";
  };
  std::ostringstream j;
  j << "{\"bench\": \"smrstore-tool bench\", \"schema\": 1,\n";
  j << " \"status\": \"" << (r.hard.ok() ? "ok" : "no_space") << "\"";
  if (!r.hard.ok()) j << ", \"error\": \"" << JsonEscape(r.hard.ToString()) << "\"";
  j << ",\n \"config\": {\"drives\": " << c.drives << ", \"zones\": " << c.zones
    << ", \"zone_mib\": " << c.zone_mib << ", \"mbps\": " << Num(c.mbps)
    << ", \"seek_ms\": " << Num(c.seek_ms) << ", \"size_dist\": \"" << JsonEscape(c.size_text)
    << "\", \"util\": " << Num(c.util) << ", \"mix\": {\"read\": " << Num(c.mix_read)
    << ", \"write\": " << Num(c.mix_write) << ", \"delete\": " << Num(c.mix_delete)
    << "}, \"delete\": \"" << c.del_text << "\", \"clients\": " << c.clients
    << ", \"duration_s\": " << (c.ops ? "null" : Num(c.duration))
    << ", \"ops\": " << (c.ops ? std::to_string(c.ops) : "null") << ", \"policy\": \""
    << c.policy_text << "\", \"placement\": \"" << (c.separated ? "separated" : "single")
    << "\", \"seed\": " << c.seed << ", \"oracle\": " << (c.oracle ? "true" : "false")
    << ", \"target\": \"" << (r.fs ? "fs" : r.emu ? "store-emu" : "store-devices")
    << "\", \"devices\": " << json_list(c.devices) << ", \"fs_dir\": "
    << (r.fs ? "\"" + JsonEscape(c.fs_dir) + "\"" : std::string("null"))
    << ", \"stat_devs\": " << json_list(c.stat_devs) << "},\n";
  j << " \"capacity\": {\"data_bytes\": " << r.st0.total << ", \"target_live_bytes\": "
    << r.target_bytes << ", \"zone_bytes\": " << r.zone_bytes;
  if (r.fs) {
    j << ", \"statvfs_total_bytes\": " << r.fs_space.total
      << ", \"statvfs_available_bytes\": " << r.fs_space.available;
  }
  j << "},\n";
  j << " \"raw\": {\"bytes\": " << r.raw.bytes << ", \"write_mbps\": " << Num(r.raw.write_mbps)
    << ", \"read_mbps\": " << Num(r.raw.read_mbps) << "},\n";
  // Device-level bytes from the kernel's counters (/sys/block/DEV/stat) of --stat-dev.
  j << " \"blockdev\": ";
  if (c.stat_devs.empty()) {
    j << "null,\n";
  } else {
    uint64_t bf = 0, bs = 0;
    std::string per_dev;
    for (size_t i = 0; i < c.stat_devs.size(); ++i) {
      bf += r.bd_steady0[i] - r.bd_fill0[i];
      bs += r.bd_steady1[i] - r.bd_steady0[i];
      per_dev += (i ? ", \"" : "\"") + JsonEscape(c.stat_devs[i]) + "\": {\"fill_bytes\": " +
                 std::to_string(r.bd_steady0[i] - r.bd_fill0[i]) + ", \"steady_bytes\": " +
                 std::to_string(r.bd_steady1[i] - r.bd_steady0[i]) + "}";
    }
    j << "{\"devs\": " << json_list(c.stat_devs) << ", \"per_dev\": {" << per_dev
      << "}, \"fill_bytes\": " << bf
      << ", \"fill_wa\": "
      << Num(r.fill.user_bytes ? static_cast<double>(bf) / r.fill.user_bytes : 0)
      << ", \"steady_bytes\": " << bs << ", \"steady_wa\": "
      << Num(r.user ? static_cast<double>(bs) / r.user : 0) << "},\n";
  }
  j << " \"fill\": {\"seconds\": " << Num(r.fill.seconds) << ", \"objects\": " << r.fill.objects
    << ", \"user_bytes\": " << r.fill.user_bytes << ", \"device_bytes\": " << r.fill.device_bytes
    << ", \"wa\": "
    << Num(r.fill.user_bytes ? static_cast<double>(r.fill.device_bytes) / r.fill.user_bytes : 0)
    << ", \"user_mbps\": " << Num(static_cast<double>(r.fill.user_bytes) / 1e6 / r.fill.seconds)
    << "},\n";
  j << " \"steady\": {\"seconds\": " << Num(r.secs) << ", \"puts\": " << r.puts
    << ", \"gets\": " << r.gets << ", \"deletes\": " << r.deletes
    << ", \"user_bytes\": " << r.user
    << ", \"store_user_bytes\": " << (r.k1.user_bytes_written - r.k0.user_bytes_written)
    << ", \"device_bytes\": " << r.device_bytes() << ", \"gc_bytes\": "
    << (r.k1.gc_bytes_written - r.k0.gc_bytes_written)
    << ", \"gc_live_moved\": " << (r.k1.gc_live_moved - r.k0.gc_live_moved)
    << ", \"gc_runs\": " << (r.k1.gc_runs - r.k0.gc_runs)
    << ", \"zones_reset\": " << (r.k1.gc_zones_reset - r.k0.gc_zones_reset)
    << ", \"gc_throttle_s\": " << Num((r.k1.gc_throttle_ns - r.k0.gc_throttle_ns) / 1e9)
    << ",\n  \"wa\": " << Num(r.wa()) << ", \"user_mbps\": " << Num(r.user_mbps())
    << ", \"device_mbps\": " << Num(static_cast<double>(r.device_bytes()) / 1e6 / r.secs)
    << ", \"get_mbps\": " << Num(static_cast<double>(r.get_bytes) / 1e6 / r.secs)
    << ", \"user_mbps_to_raw\": " << Num(r.user_mbps_to_raw())
    << ", \"live_bytes_end\": " << r.live_end
    << ", \"objects_end\": " << r.objects_end << ", \"statfs_end\": {\"total\": " << r.st1.total
    << ", \"available\": " << r.st1.available << ", \"allocated\": " << r.st1.allocated
    << ", \"stored\": " << r.st1.stored << "}},\n";
  j << " \"latency_ms\": {\"gc_marking\": \"op overlapped GC progress (gc_runs, "
       "gc_bytes_written or gc_zones_reset advanced between its start and completion)\",\n"
    << "  \"put\": " << HistJson(r.lat.put) << ",\n  \"put_gc\": " << HistJson(r.lat.put_gc)
    << ",\n  \"put_nogc\": " << HistJson(r.lat.put_nogc) << ",\n  \"get\": " << HistJson(r.lat.get)
    << ",\n  \"get_gc\": " << HistJson(r.lat.get_gc) << ",\n  \"get_nogc\": "
    << HistJson(r.lat.get_nogc) << ",\n  \"delete\": " << HistJson(r.lat.del) << "},\n";
  j << " \"oracle\": ";
  if (!c.oracle) {
    j << "null";
  } else if (!r.oracle.ran) {
    j << "{\"error\": \"" << JsonEscape(r.oracle.error) << "\"}";
  } else {
    j << "{\"trace_ops\": " << r.oracle.trace_ops << ", \"wa_floor\": " << Num(r.oracle.wa_floor)
      << ", \"wa_sim_same_policy\": " << Num(r.oracle.wa_sim_same) << r.oracle.extra << "}";
  }
  j << ",\n \"timeline\": [";
  for (size_t i = 0; i < r.timeline.size(); ++i) {
    const Point& p = r.timeline[i];
    j << (i ? ",\n  " : "\n  ") << "{\"t\": " << Num(p.t) << ", \"user_mbps\": "
      << Num(p.user_mbps) << ", \"device_mbps\": " << Num(p.device_mbps)
      << ", \"gc_mbps\": " << Num(p.gc_mbps) << ", \"wa_so_far\": " << Num(p.wa_so_far)
      << ", \"free_frac\": " << Num(p.free_frac) << ", \"puts\": " << p.puts
      << ", \"gets\": " << p.gets << ", \"deletes\": " << p.deletes
      << ", \"gc_runs\": " << p.gc_runs << "}";
  }
  j << "]}\n";
  return j.str();
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
      c.del_text.c_str(), (unsigned long long)c.clients, c.policy_text.c_str(),
      c.separated ? "separated" : "single", r.raw.write_mbps, r.raw.read_mbps,
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
                  c.policy_text.c_str(), c.separated ? "separated" : "single",
                  r.oracle.wa_sim_same);
    } else {
      std::printf("  oracle: %s\n", r.oracle.error.c_str());
    }
  }
  if (!r.hard.ok()) std::printf("  STOPPED EARLY: %s\n", r.hard.ToString().c_str());
  std::fflush(stdout);
}

void PrintRawOnly(const Config& c, const std::vector<std::string>& specs, uint64_t zone_bytes,
                  const RawResult& raw) {
  std::ostringstream j;
  j << "{\"bench\": \"smrstore-tool bench --raw-only\", \"schema\": 1, \"devices\": [";
  for (size_t i = 0; i < specs.size(); ++i) {
    j << (i ? ", " : "") << "\"" << JsonEscape(specs[i]) << "\"";
  }
  j << "], \"zone_bytes\": " << zone_bytes << ", \"raw\": {\"bytes\": " << raw.bytes
    << ", \"write_mbps\": " << Num(raw.write_mbps) << ", \"read_mbps\": "
    << Num(raw.read_mbps) << "}}\n";
  if (c.json) {
    std::cout << j.str();
  } else {
    std::printf("raw sequential write %.1f MB/s, read %.1f MB/s (%llu MiB)\n", raw.write_mbps,
                raw.read_mbps, (unsigned long long)(raw.bytes >> 20));
  }
}

}  // namespace smr::tool::bench
