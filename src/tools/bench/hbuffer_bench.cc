// smrstore-tool hbuffer-bench: the H-Buffer (StoreOptions::hybrid_hbuffer) vs none on a
// small-update workload, on an emulated hybrid drive (the only kind of hybrid drive here)
// with the HDD timing model: for each setting a fresh drive and store, 1 of 4 realms in CMR,
// a live set of small objects, then skewed overwrites (most to a hot tenth of the set) with
// zone GC on. Reports SMR zones the store had the drive rewrite (GC resets of sequential
// zones), all zone resets, write amplification, CMR zones evicted, and PUT latency
// p50/p99. doc/performance.md, "H-Buffer".
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>

#include "bench_common.h"
#include "hybrid_bench.h"
#include "common/pattern.h"
#include "commands/hybrid_commands.h"
#include "cli/quantile.h"
#include "store/store.h"
#include "store/transaction.h"
#include "commands/store_command_util.h"

namespace smr::tool {

namespace {

constexpr char kColl[] = "1.0_head";

struct Config {
  std::string dir = "/var/tmp";
  uint64_t objects = 1500;    // live set
  uint64_t object_size = 16 << 10;
  uint64_t updates = 8000;
  double mbps = 250, seek_ms = 8;
  uint64_t seed = 1;
  bool keep = false;
};

struct Outcome {
  bool hbuffer = false;
  StoreCounters counters;
  HybridCounters hybrid;
  LatencyHistogram put;
  double seconds = 0;
};

ObjectId Name(uint64_t i) {
  ObjectId o;
  o.pool = 1;
  o.name = "s" + std::to_string(i);
  o.hash = static_cast<uint32_t>(i * 2654435761u);
  return o;
}

Status Put(Store* store, uint64_t i, uint64_t version, uint64_t size) {
  std::string data(size, '\0');
  FillPattern(i * 1000003 + version, 0, data.data(), size);
  Transaction t;
  t.Write(kColl, Name(i), 0, std::move(data));
  return store->Apply(std::move(t));
}

Result<Outcome> OneRun(const Config& c, bool hbuffer) {
  Outcome out;
  out.hbuffer = hbuffer;
  const std::string stem = c.dir + "/smrstore-hbufferbench-" + std::to_string(::getpid()) +
                           (hbuffer ? "-on" : "-off");
  struct Cleanup {
    std::string stem;
    bool keep;
    ~Cleanup() {
      if (keep) return;
      std::error_code ec;
      std::filesystem::remove_all(stem, ec);
    }
  } cleanup{stem, c.keep};
  std::error_code ec;
  std::filesystem::create_directories(stem, ec);
  if (ec) return Status::IOError(stem + ": " + ec.message());
  // 4 realms of 4 MiB zones, all SMR at creation; realm 0 converted to CMR (empty: fast):
  // 16 MiB of CMR and 60 MiB of SMR data zones.
  const std::string spec = "emu:" + stem + "/h.img?zone_mib=4&conv=2&realms=4&convert_ms=50" +
                           "&realm_init=smr&mbps=" + Num(c.mbps) + "&seek_ms=" + Num(c.seek_ms);
  StoreOptions opts;
  opts.hybrid_auto = false;
  opts.hybrid_hbuffer = hbuffer;
  const std::string dir = stem + "/store";
  SMR_RETURN_IF_ERROR(Store::Mkfs(dir, {spec}, opts, /*force=*/false));
  SMR_ASSIGN_OR_RETURN(auto store, Store::Open(dir));
  SMR_RETURN_IF_ERROR(store->ConvertRealm(0, 0, ZoneDomain::kCmr));
  Transaction mk;
  mk.MkColl(kColl, 0);
  SMR_RETURN_IF_ERROR(store->Apply(std::move(mk)));
  for (uint64_t i = 0; i < c.objects; ++i) SMR_RETURN_IF_ERROR(Put(store.get(), i, 0, c.object_size));
  const StoreCounters before = store->Counters();
  const HybridCounters hbefore = store->Hybrid();
  std::mt19937_64 rng(c.seed);
  const uint64_t hot = std::max<uint64_t>(1, c.objects / 10);
  std::uniform_int_distribution<uint64_t> pick_hot(0, hot - 1), pick_any(0, c.objects - 1);
  std::bernoulli_distribution to_hot(0.9);
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t u = 1; u <= c.updates; ++u) {
    const uint64_t i = to_hot(rng) ? pick_hot(rng) : pick_any(rng);
    const auto s = std::chrono::steady_clock::now();
    SMR_RETURN_IF_ERROR(Put(store.get(), i, u, c.object_size));
    out.put.Add(static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - s)
            .count()));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  StoreCounters after = store->Counters();
  const HybridCounters hafter = store->Hybrid();
  out.counters = after;
  out.counters.user_bytes_written = after.user_bytes_written - before.user_bytes_written;
  out.counters.device_bytes_written = after.device_bytes_written - before.device_bytes_written;
  out.counters.gc_zones_reset = after.gc_zones_reset - before.gc_zones_reset;
  out.counters.gc_smr_zones_reset = after.gc_smr_zones_reset - before.gc_smr_zones_reset;
  out.hybrid = hafter;
  out.hybrid.evicted_zones = hafter.evicted_zones - hbefore.evicted_zones;
  SMR_ASSIGN_OR_RETURN(FsckReport f, store->Fsck(/*deep=*/false, /*repair=*/false));
  if (!f.ok()) return Status::Corruption("fsck after the run: " + f.errors.front());
  SMR_RETURN_IF_ERROR(store->Close());
  return out;
}

Json OutcomeJson(const Outcome& o) {
  const StoreCounters& c = o.counters;
  return {{"hbuffer", o.hbuffer},
          {"smr_zones_rewritten", c.gc_smr_zones_reset},
          {"zones_reset", c.gc_zones_reset},
          {"cmr_zones_evicted", o.hybrid.evicted_zones},
          {"wa", JsonNum(c.user_bytes_written
                             ? static_cast<double>(c.device_bytes_written) /
                                   static_cast<double>(c.user_bytes_written)
                             : 0)},
          {"put_p50_ms", JsonNum(o.put.QuantileMs(0.5))},
          {"put_p99_ms", JsonNum(o.put.QuantileMs(0.99))},
          {"seconds", JsonNum(o.seconds)}};
}

int CmdHBufferBench(const Args& args) {
  const std::string cmd = "hbuffer-bench";
  Config c;
  c.dir = args.get("dir", "/var/tmp");
  auto objects = args.number("objects", c.objects);
  auto updates = args.number("updates", c.updates);
  auto seed = args.number("seed", c.seed);
  for (const Status* s : {&objects.status(), &updates.status(), &seed.status()}) {
    if (!s->ok()) return UsageFail(cmd, *s);
  }
  if (*objects < 10 || *objects > 3000 || *updates < 1 || *updates > 10000000) {
    return UsageFail(cmd, Status::InvalidArgument(
                              "--objects 10-3000 (the live set must fit the 76 MiB drive), "
                              "--updates 1-10000000"));
  }
  c.objects = *objects;
  c.updates = *updates;
  c.seed = *seed;
  c.keep = args.has("keep");
  Json runs = Json::array();
  for (bool hbuffer : {false, true}) {
    std::cerr << "hbuffer-bench: H-Buffer " << (hbuffer ? "on" : "off") << "...\n";
    auto r = OneRun(c, hbuffer);
    if (!r.ok()) return Fail(cmd, r.status().WithContext(hbuffer ? "H-Buffer on" : "H-Buffer off"));
    runs.push_back(OutcomeJson(*r));
  }
  const Json doc = {{"config",
                     {{"objects", c.objects},
                      {"object_size", c.object_size},
                      {"updates", c.updates},
                      {"hot_fraction", 0.1},
                      {"to_hot", 0.9},
                      {"mbps", JsonNum(c.mbps)},
                      {"seek_ms", JsonNum(c.seek_ms)},
                      {"seed", c.seed}}},
                    {"runs", runs}};
  if (args.has("json")) {
    std::cout << JsonText(doc);
    return kExitOk;
  }
  std::cout << "hbuffer-bench: " << c.objects << " objects of " << (c.object_size >> 10)
            << " KiB, " << c.updates << " overwrites (90 % to a hot tenth), 4 realms of 4 MiB "
            << "zones (1 CMR, 3 SMR), timing model " << Num(c.mbps) << " MB/s " << Num(c.seek_ms)
            << " ms\n";
  for (const Json& r : runs) {
    std::cout << "  H-Buffer " << (r.at("hbuffer").get<bool>() ? "on " : "off") << ": SMR zones "
              << "rewritten " << r.at("smr_zones_rewritten") << ", zones reset "
              << r.at("zones_reset") << ", CMR zones evicted " << r.at("cmr_zones_evicted")
              << ", WA " << r.at("wa") << ", PUT p50 " << r.at("put_p50_ms") << " ms p99 "
              << r.at("put_p99_ms") << " ms (" << r.at("seconds") << " s)\n";
  }
  return kExitOk;
}

}  // namespace

void AddHBufferBenchCommand(Cli* cli) {
  cli->Add({"hbuffer-bench", "", "H-Buffer vs none on small overwrites (hybrid drive)",
            "On a new emulated hybrid drive (4 realms of 4 MiB zones, 1 CMR, 3 SMR; HDD\n"
            "timing model 250 MB/s, 8 ms), per setting of the H-Buffer (off, then on) a\n"
            "fresh store: --objects objects of 16 KiB, then --updates whole-object\n"
            "overwrites, 90 % to a hot tenth of them, GC on. Reports SMR zones rewritten\n"
            "(GC resets of sequential zones), all zone resets, CMR zones evicted, WA and\n"
            "PUT p50/p99 (doc/performance.md). Hybrid drives exist only in the emulator.",
            0,
            0,
            {{"dir", "DIR", "scratch directory (default /var/tmp)"},
             {"objects", "N", "live set, objects of 16 KiB (default 1500)"},
             {"updates", "N", "overwrites (default 8000)"},
             {"seed", "N", "workload seed (default 1)"},
             {"keep", "", "keep the drives and stores"},
             {"json", "", "one JSON document"}},
            CmdHBufferBench});
}

}  // namespace smr::tool
