// smrstore-tool bench: the workload generator that measures write amplification,
// throughput and latency of the store with zone GC active.
//
// Method (doc/performance.md, "GC workload bench" documents options and JSON):
//   1. Creates --drives emulated drives in --dir (--zones x --zone-mib, optional HDD timing
//      model) and measures their raw sequential write/read bandwidth (all drives in
//      parallel, 4 MiB requests at the write pointers, one flush), then resets them.
//   2. Makes a store on them (gc_policy = --policy, separate_streams = --placement).
//   3. Fill phase: PUTs new objects (batched, 16 transactions in flight) until the live
//      payload bytes reach --util x the store's data capacity.
//   4. Steady state (--duration or --ops): --clients threads each run one operation at a
//      time, drawn by the --mix weights: PUT (a whole new object, Write at 0), GET (whole
//      object, content verified against its pattern) or DELETE (Remove, victim drawn by
//      --delete). A PUT that would take its class above its target first deletes victims
//      (the delete+write pair keeps utilization constant); a standalone DELETE happens only
//      while live bytes are above target - 2 % (else it becomes a PUT), so utilization never
//      drains. Store counters are snapshot at the start: WA = device bytes / user bytes of
//      the steady state only. A sampler thread records one timeline point per second.
//   5. --oracle replays the recorded PUT/DELETE trace (fill + steady) through gc/gc_sim
//      on the same zone geometry, once with Placement::kOracle (the floor) and once with
//      the run's policy and placement (cross-check of the store).
// Object content is FillPattern(object seed) and is regenerated, never kept: memory is
// bounded by the number of live objects (plus the trace when --oracle).
//
// The command lives in several files, one per part (each opens with what it holds):
//   workload_bench.cc  this file: the run from start to end (CmdBench), --plot, the options
//   bench_config.*     Config and the command-line parsing
//   bench_workload.*   object sizes, names, zipf ranks, the live-object pools
//   bench_target.*     the store or a directory of files as the target of the operations
//   bench_runner.*     raw leg, fill, steady state (clients, sampler), shared state
//   bench_oracle.*     the recorded trace and its gc_sim replay (--oracle)
//   bench_report.*     the JSON document and the text summary
//   quantile.*         the latency histogram (and the quantile rule of the other benches)
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>

#include "bench_common.h"
#include "bench_config.h"
#include "bench_oracle.h"
#include "bench_report.h"
#include "bench_runner.h"
#include "bench_target.h"
#include "bench_workload.h"
#include "device/device_spec.h"
#include "commands/device_commands.h"
#include "fs_target.h"
#include "serve/publisher.h"
#include "store/store.h"
#include "workload_bench.h"

#ifndef SMRSTORE_SOURCE_DIR
#define SMRSTORE_SOURCE_DIR ""
#endif

namespace smr::tool {

namespace bench {

namespace {

constexpr const char* kCmd = "bench";

int UsageError(const std::string& msg) {
  std::cerr << "smrstore-tool " << kCmd << ": " << msg << " (see smrstore-tool " << kCmd
            << " --help)\n";
  return 2;
}

std::string PlotScript() {
  if (const char* env = std::getenv("SMRSTORE_PLOT_BENCH")) return env;
  std::error_code ec;
  const std::string src = std::string(SMRSTORE_SOURCE_DIR) + "/tools/plot_bench.py";
  if (!std::string(SMRSTORE_SOURCE_DIR).empty() && std::filesystem::exists(src, ec)) return src;
  // Installed layout: BIN/../share/smrstore/plot_bench.py
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto inst = exe.parent_path().parent_path() / "share/smrstore/plot_bench.py";
    if (std::filesystem::exists(inst, ec)) return inst.string();
  }
  return "tools/plot_bench.py";
}

std::string ShellQuote(const std::string& s) {
  std::string o = "'";
  for (char ch : s) {
    if (ch == '\'') {
      o += "'\\''";
    } else {
      o += ch;
    }
  }
  return o + "'";
}

int CmdBench(const Args& args) {
  auto parsed = ParseConfig(args);
  if (!parsed.ok()) return UsageError(parsed.status().message());
  const Config c = *parsed;
  // --publish NAME: the store's stats go to ceph-mgr while the bench runs (publisher.h).
  PublisherOptions pub;
  pub.name = args.get("publish");
  pub.ceph_conf = args.get("ceph-conf");
  if (args.has("publish")) {
    if (Status s = ValidatePublisherOptions(pub); !s.ok()) return UsageError(s.message());
    if (!c.fs_dir.empty() || c.raw_only) {
      return UsageError("--publish needs the store (not --fs-dir or --raw-only)");
    }
  } else if (args.has("ceph-conf")) {
    return UsageError("--ceph-conf needs --publish");
  }

  const bool fs = !c.fs_dir.empty();
  const bool emu = c.devices.empty() && !fs;
  uint64_t zone_bytes = fs ? 0 : c.zone_mib << 20;  // a file system hides its zones
  const std::string stem = c.dir + "/smrstore-bench-" + std::to_string(::getpid());
  std::vector<std::string> specs = c.devices;
  for (uint64_t i = 0; emu && i < c.drives; ++i) {
    std::string spec = "emu:" + stem + "-d" + std::to_string(i) +
                       ".img?zones=" + std::to_string(c.zones) +
                       "&zone_mib=" + std::to_string(c.zone_mib) + "&conv=1&max_open=128";
    if (c.mbps > 0) spec += "&mbps=" + Num(c.mbps) + "&seek_ms=" + Num(c.seek_ms);
    specs.push_back(spec);
  }
  const std::string store_dir = stem + ".store";
  struct Cleanup {
    std::string stem;
    uint64_t drives;
    ~Cleanup() {
      std::error_code ec;
      for (uint64_t i = 0; i < drives; ++i) {
        std::filesystem::remove(stem + "-d" + std::to_string(i) + ".img", ec);
      }
      std::filesystem::remove_all(stem + ".store", ec);
      std::filesystem::remove(stem + ".json", ec);
    }
  } cleanup{stem, emu ? c.drives : 0};

  for (const auto& s : specs) {
    auto dev = emu ? CreateDevice(s) : OpenDevice(s);
    if (!dev.ok()) return Fail(kCmd, dev.status());
    // The bench formats --devices: never a store's drive unless --force.
    if (!emu) {
      if (Status g = RefuseStoreDrive(dev->get(), args.has("force")); !g.ok()) {
        return Fail(kCmd, g);
      }
    }
    if (!emu) zone_bytes = (*dev)->info().zone_size;  // the real devices' geometry
  }
  auto progress = [&](const std::string& m) {
    if (!c.json) std::cerr << "bench: " << m << "\n";
  };

  // 1. Raw sequential bandwidth of the same drives (not for a file system: its device is
  // in use; qa/vm/peers.sh measures it with --raw-only before making the file system).
  Result<RawResult> raw = RawResult{};
  if (!fs) {
    ::sync();
    progress("raw sequential leg");
    // --raw-only also measures random 4 KiB reads (qa/vm/peers.sh compares a drive model
    // with the emulated drive's timing model by both).
    raw = RawLeg(specs, zone_bytes, c.raw_only ? kRawRandReads : 0);
    if (!raw.ok()) return Fail(kCmd, raw.status().WithContext("raw leg"));
    ::sync();
  }
  if (c.raw_only) {
    PrintRawOnly(c, specs, zone_bytes, *raw);
    return 0;
  }

  RunReport r;
  r.fs = fs;
  r.emu = emu;
  r.zone_bytes = zone_bytes;
  r.raw = *raw;
  // 2. The target: the store (on the emulated drives or --devices), or --fs-dir.
  std::unique_ptr<Store> store;
  std::unique_ptr<Target> target;
  if (fs) {
    auto dir = FsObjectDir::Open(c.fs_dir);
    if (!dir.ok()) return Fail(kCmd, dir.status());
    auto sp = (*dir)->Statfs();
    if (!sp.ok()) return Fail(kCmd, sp.status());
    r.fs_space = *sp;
    target = MakeFsTarget(std::move(*dir), r.fs_space.available, c.stat_devs, c.clients);
  }
  StoreOptions opts = c.store;
  if (!fs) {
    if (Status s = Store::Mkfs(store_dir, specs, opts, /*force=*/true); !s.ok()) {
      return Fail(kCmd, s.WithContext("mkfs"));
    }
    auto opened = Store::Open(store_dir);
    if (!opened.ok()) return Fail(kCmd, opened.status().WithContext("mount"));
    store = std::move(*opened);
    Transaction t;
    t.MkColl(kColl, 0);
    if (Status s = store->Apply(std::move(t)); !s.ok()) return Fail(kCmd, s);
    target = MakeStoreTarget(store.get());
  }
  std::unique_ptr<StatsPublisher> publisher;  // destroyed before `store`
  if (args.has("publish")) {
    auto started = StatsPublisher::Start(store.get(), pub);
    if (!started.ok()) return Fail(kCmd, started.status().WithContext("--publish"));
    publisher = std::move(*started);
    progress("publishing stats as service daemon smrstore." + pub.name);
  }
  const StoreStatfs st0 = r.st0 = target->Statfs();
  const uint64_t target_bytes = r.target_bytes =
      static_cast<uint64_t>(c.util * static_cast<double>(st0.total));
  if (!emu && MaxObjectBytes(c) * 8 > target_bytes) {
    return UsageError("the target is too small for --size-dist " + c.size_text + " at --util " +
                      Num(c.util) + " (need room for at least 8 of the largest objects)");
  }
  // Kernel write counters of --stat-dev: before the fill, at the steady state's start and
  // end (each after a Sync, so written-back data is counted where it belongs).
  auto bd_bytes = [&]() {
    std::vector<uint64_t> v;
    if (!c.stat_devs.empty()) (void)target->Sync();
    for (const auto& d : c.stat_devs) {
      auto b = BlockDevBytesWritten(d);
      v.push_back(b.ok() ? *b : 0);
    }
    return v;
  };
  r.bd_fill0 = bd_bytes();

  Shared sh;
  sh.cfg = &c;
  sh.tgt = target.get();

  // 3. Fill.
  progress("fill to " + Num(c.util) + " of " + std::to_string(st0.total >> 20) + " MiB");
  if (Status s = Fill(&sh, target_bytes, &r.fill); !s.ok()) {
    return Fail(kCmd, s.IsNoSpace()
                          ? s.WithContext("ran out of space while filling to " +
                                          std::to_string(target_bytes >> 20) + " of " +
                                          std::to_string(st0.total >> 20) +
                                          " MiB (lower --util?)")
                          : s);
  }
  {
    std::lock_guard<std::mutex> lock(sh.mu);
    sh.steady_trace_start = sh.trace.size();
  }

  // 4. Steady state.
  progress("steady state: " + (c.ops ? std::to_string(c.ops) + " ops" : Num(c.duration) + " s") +
           ", " + std::to_string(c.clients) + " clients");
  r.bd_steady0 = bd_bytes();
  SteadyResult steady = RunSteady(&sh);
  r.bd_steady1 = bd_bytes();
  r.k0 = steady.k0;
  r.k1 = target->Counters();
  r.st1 = target->Statfs();
  r.lat = std::move(steady.lat);
  r.open_loop_lag_s = steady.open_loop_lag_s;
  if (c.rate > 0 && !r.open_loop_kept_up()) {
    std::fprintf(stderr,
                 "bench: the open loop fell behind: %.1f s behind the %g ops/s schedule at the "
                 "end (latencies include the growing queue; steady.open_loop_kept_up = false)\n",
                 r.open_loop_lag_s, c.rate);
  }
  r.timeline = std::move(steady.timeline);

  bool no_space = false;
  {
    std::lock_guard<std::mutex> lock(sh.err_mu);
    r.hard = sh.error;
    no_space = sh.no_space;
  }
  if (!r.hard.ok() && !no_space) {
    // Content mismatch, I/O error, ...: a hard error, no report.
    return Fail(kCmd, r.hard);
  }
  {
    std::lock_guard<std::mutex> lock(sh.mu);
    r.live_end = sh.pools[0].bytes() + sh.pools[1].bytes();
    r.objects_end = sh.pools[0].count() + sh.pools[1].count();
  }
  if (publisher) publisher->Stop();
  target.reset();
  if (store) {
    if (Status s = store->Close(); !s.ok() && r.hard.ok()) {
      return Fail(kCmd, s.WithContext("unmount"));
    }
    store.reset();
  }

  // 5. Oracle.
  if (c.oracle) {
    progress("oracle: replaying " + std::to_string(sh.trace.size()) + " trace ops");
    r.oracle = RunOracle(c, sh.trace, sh.steady_trace_start, st0.total);
  }

  r.secs = Seconds(steady.t1 - steady.t0);
  r.user = sh.user_bytes.load();
  r.puts = sh.puts.load();
  r.gets = sh.gets.load();
  r.deletes = sh.deletes.load();
  r.get_bytes = sh.get_bytes.load();
  const std::string json = JsonText(ReportJson(c, r));
  if (c.json) {
    std::cout << json;
  } else {
    PrintReport(c, r);
  }

  if (!c.plot.empty()) {
    const std::string json_path = stem + ".json";
    {
      std::ofstream f(json_path);
      f << json;
    }
    std::error_code ec;
    const std::string py = std::filesystem::exists("/usr/bin/python3", ec) ? "/usr/bin/python3"
                                                                           : "python3";
    const std::string cmd = py + " " + ShellQuote(PlotScript()) + " --out " +
                            ShellQuote(c.plot) + " " + ShellQuote(json_path) +
                            (c.json ? " >/dev/null" : "");
    const int rc = std::system(cmd.c_str());
    if (rc != 0) {
      return Fail(kCmd, Status::IOError("plotting failed: " + cmd));
    }
  }
  if (!r.hard.ok()) {
    std::cerr << "smrstore-tool bench: stopped early: " << r.hard.ToString() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

}  // namespace bench

void AddWorkloadBenchCommand(Cli* cli) {
  cli->Add(
      {"bench", "", "GC workload: write amplification, throughput, latency with GC active",
       "Creates emulated drives in --dir, measures their raw sequential bandwidth, makes a\n"
       "store on them, fills it to --util of its data capacity, then runs a steady state of\n"
       "PUTs (new whole objects), verified GETs and DELETEs from --clients threads while zone\n"
       "GC runs. Reports WA = device bytes / user PUT bytes over the steady state, GC bytes,\n"
       "zones reset, throughput per second, PUT/GET latency percentiles (also split by\n"
       "whether GC made progress during the op), and the user throughput as a ratio to the\n"
       "raw drive. --oracle replays the PUT/DELETE trace through the offline GC simulator.\n"
       "--devices runs the store on existing devices (e.g. zbd:/dev/nullb0; RocksDB in --dir);\n"
       "--fs-dir runs the same workload on a directory, one file per object (a peer file\n"
       "system; PUT = write temp + fsync + rename + fsync dir, DELETE = unlink + fsync dir);\n"
       "--stat-dev adds device-level bytes and WA from the kernel's /sys/block/DEV/stat.\n"
       "JSON fields: doc/performance.md, \"GC workload bench\".",
       0,
       0,
       {{"dir", "DIR", "scratch directory for drives and store (default /var/tmp)"},
        {"devices", "SPEC[,SPEC]", "run the store on these existing devices, not emulated ones"},
        {"force", "", "with --devices: use drives that hold a store (destroys it)"},
        {"fs-dir", "DIR", "run on a directory of files (one per object) instead of the store"},
        {"raw-only", "", "with --devices: only measure the raw sequential bandwidth"},
        {"stat-dev", "DEV[,DEV]", "block devices (e.g. nullb0) for kernel-counted device WA"},
        {"drives", "N", "emulated drives (default 1)"},
        {"zones", "N", "zones per drive (default 64, min 8)"},
        {"zone-mib", "M", "zone size in MiB (default 64)"},
        {"mbps", "X", "HDD timing model: sequential MB/s (default off)"},
        {"seek-ms", "Y", "HDD timing model: positioning ms (default 8 with --mbps)"},
        {"size-dist", "D",
         "fixed:BYTES | mixed (log-uniform 16K..16M) | oss (90% 4-8M short-lived, 10% "
         "4-60K long-lived); default mixed"},
        {"util", "F", "target live bytes as a fraction of data capacity (default 0.8, max 0.95)"},
        {"mix", "R:W:D", "steady-state read:write:delete weights (default 1:4:4)"},
        {"delete", "P",
         "victims: uniform | zipf (theta 0.99 over names with fixed ranks; the paired PUT "
         "overwrites the victim's name) | zipf-random (a random rank per object, fresh "
         "names) | fifo (default uniform)"},
        {"clients", "N", "concurrent client threads, one op each in flight (default 4)"},
        {"rate", "OPS",
         "open loop: steady-state ops/s in all, Poisson arrivals per client, latency from "
         "the scheduled arrival (default: closed loop)"},
        {"duration", "S", "steady-state seconds (default 60)"},
        {"ops", "N", "steady-state operations instead of --duration"},
        {"opt", "KEY=VALUE[,...]", kStoreOptHelp},
        {"policy", "P", StoreOptionHelp("gc_policy")},
        {"placement", "P", "single (one stream) | separated (streams by size/GC; default): " +
                               StoreOptionHelp("separate_streams")},
        {"gc-commits", "M", "ride | separate: " + StoreOptionHelp("gc_in_groups")},
        {"gc-idle-slice", "BYTES", StoreOptionHelp("gc_idle_slice")},
        {"gc-idle-yield", "on|off", StoreOptionHelp("gc_idle_yield")},
        {"gc-read-ahead", "auto|on|off", StoreOptionHelp("gc_read_ahead")},
        {"journal", "on|off", StoreOptionHelp("journal")},
        {"journal-with-data", "auto|on|off", StoreOptionHelp("journal_with_data")},
        {"gc-free", "S:U:T", "GC watermarks, free fractions: start:urgent:stop (store options "
                             "gc_start_free, gc_urgent_free, gc_stop_free; default 0.03:0.01:0.05)"},
        {"gc-free-zones-max", "N", StoreOptionHelp("gc_free_zones_max")},
        {"seed", "N", "random seed (default 1)"},
        {"oracle", "", "replay the trace through gc_sim: oracle WA floor + same-policy WA"},
        {"json", "", "print the result as JSON"},
        {"plot", "FILE.png", "draw the result with tools/plot_bench.py"},
        {"publish", "NAME", "publish the store's stats to ceph-mgr as smrstore.NAME while running"},
        {"ceph-conf", "PATH", "with --publish: ceph.conf (default $CEPH_CONF, /etc/ceph/ceph.conf)"}},
       bench::CmdBench});
}

}  // namespace smr::tool
