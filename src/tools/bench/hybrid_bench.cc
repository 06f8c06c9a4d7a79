// smrstore-tool hybrid-bench: realm conversion (CMR -> SMR) under a steady foreground PUT
// load on an emulated hybrid drive with the HDD timing model, against plan-conversion's
// prediction (doc/performance.md, "Hybrid SMR conversion").
//
// Method, once per latency bound (a fresh drive and store each):
//   1. mkfs a store (hybrid_auto off, hybrid_latency_bound_ms = B) on a new emulated hybrid
//      drive (`--realms` realms of 4 CMR / 5 SMR zones of `--zone-mib`, all CMR, conversion
//      `--convert-ms`, timing model `--mbps`/`--seek-ms`); fill `--fill` of its CMR
//      capacity with `--object-size` objects (8 in flight).
//   2. baseline: one writer PUTs (whole-object overwrites of random filled objects, one
//      transaction each) at `--rate` per second, open loop (latency counted from each
//      PUT's scheduled start, so a PUT delayed by the previous one counts its wait), for
//      `--baseline-s` seconds.
//   3. plan: plan-conversion's model (plan_model.h) on the realms to convert — the
//      `--fraction` of the realms holding the most live data (Store::Realms) — with the
//      relocation cost calibrated as plan-conversion does (scratch drive, same timing
//      model) and the foreground load U = rate x mean baseline PUT latency.
//   4. conversion: the same writer goes on while another thread converts those realms to
//      SMR one after the other (Store::ConvertRealm); PUTs scheduled from the first
//      conversion's start to the last one's end are the "during" latencies.
//   Reported: conversion time measured vs predicted (error % = (predicted - measured) /
//   measured), quanta, PUT p50/p99 baseline vs during (added p99 = the difference), the
//   store's quantum_ms p99/max and bound_violations (its stats document's hybrid block),
//   and two verdicts: the added PUT p99 within B, and every quantum within B.
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "bench_common.h"
#include "hybrid_bench.h"
#include "common/pattern.h"
#include "device/device_spec.h"
#include "commands/hybrid_commands.h"
#include "cli/quantile.h"
#include "store/store.h"
#include "store/transaction.h"
#include "commands/store_command_util.h"

namespace smr::tool {

namespace {

using storecmd::Fixed;
using storecmd::Human;

constexpr const char* kColl = "hybrid.bench";

struct Config {
  std::string dir;
  uint32_t realms = 16;
  uint32_t zone_mib = 64;
  uint32_t convert_ms = 50;
  double mbps = 250, seek_ms = 8;
  double fraction = 0.25;
  double fill = 0.25;
  uint64_t object_size = 4u << 20;
  double rate = 4;
  double baseline_s = 20;
  std::vector<double> bounds = {60, 100};
  uint64_t seed = 1;
  bool keep = false;
};

struct Run {
  double bound_ms = 0;
  std::string spec;
  uint64_t objects = 0;
  double fill_s = 0;
  std::vector<uint32_t> realms;
  uint64_t live_to_move = 0;
  // The prediction.
  RelocationCost cost;
  std::string cost_how;
  PlanParams params;
  PlanRange range;
  ConversionPlan plan;  // range.expected
  // Measured.
  double conversion_s = 0;
  ConversionReport report;
  Json store_hybrid;
  HybridCounters counters;  // Store::Hybrid() after the conversion
  LatencyHistogram base, during;
  uint64_t base_puts = 0, during_puts = 0, put_errors = 0;
  std::string conversion_error;
};

// One writer at a fixed rate (open loop): PUT i is scheduled at start + i / rate; each
// overwrites a random object of the `objects` filled ones with `data`. Latency is counted
// from the scheduled start. `phase` picks the histogram (0 baseline, 1 during, -1 none).
class Writer {
 public:
  Writer(Store* store, uint64_t objects, const std::string* data, double rate, uint64_t seed)
      : store_(store), objects_(objects), data_(data), rate_(rate), rng_(seed) {}

  void Start(LatencyHistogram* hist) {
    stop_ = false;
    thread_ = std::thread([this, hist] { Loop(hist); });
  }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  uint64_t puts() const { return puts_; }
  uint64_t errors() const { return errors_; }
  Status first_error() const { return first_error_; }

 private:
  void Loop(LatencyHistogram* hist) {
    const Clock::time_point start = Clock::now();
    const auto interval = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(1.0 / rate_));
    for (uint64_t i = 0; !stop_; ++i) {
      const Clock::time_point at = start + i * interval;
      std::this_thread::sleep_until(at);
      if (stop_) break;
      Transaction t;
      t.Write(kColl, BenchObject("h.", rng_() % objects_), 0, *data_);
      const Status s = store_->Apply(std::move(t));
      hist->Add(Nanos(Clock::now() - at));
      ++puts_;
      if (!s.ok()) {
        if (errors_++ == 0) first_error_ = s;
      }
    }
  }

  Store* store_;
  uint64_t objects_;
  const std::string* data_;
  double rate_;
  std::mt19937_64 rng_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  uint64_t puts_ = 0, errors_ = 0;
  Status first_error_;
};

// PUTs objects 0..n-1 of `data`, 8 in flight.
Status Fill(Store* store, uint64_t n, const std::string& data) {
  std::mutex mu;
  std::condition_variable cv;
  size_t inflight = 0;
  Status first;
  for (uint64_t i = 0; i < n; ++i) {
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return inflight < 8; });
      ++inflight;
    }
    Transaction t;
    t.Write(kColl, BenchObject("h.", i), 0, data);
    store->Submit(std::move(t), [&](const Status& s) {
      std::lock_guard<std::mutex> lock(mu);
      --inflight;
      if (!s.ok() && first.ok()) first = s;
      cv.notify_all();
    });
  }
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return inflight == 0; });
  return first;
}

Result<Run> OneRun(const Config& c, double bound_ms) {
  Run run;
  run.bound_ms = bound_ms;
  const std::string stem = c.dir + "/smrstore-hybridbench-" + std::to_string(::getpid()) +
                           "-b" + Num(bound_ms);
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
  run.spec = "emu:" + stem + "/h.img?zone_mib=" + std::to_string(c.zone_mib) +
             "&conv=2&realms=" + std::to_string(c.realms) +
             "&convert_ms=" + std::to_string(c.convert_ms) + "&mbps=" + Num(c.mbps) +
             "&seek_ms=" + Num(c.seek_ms);
  StoreOptions opts;
  opts.hybrid_auto = false;  // only the bench's conversions
  opts.hybrid_latency_bound_ms = static_cast<uint32_t>(bound_ms);
  const std::string dir = stem + "/store";
  SMR_RETURN_IF_ERROR(Store::Mkfs(dir, {run.spec}, opts, /*force=*/false));
  SMR_ASSIGN_OR_RETURN(auto store, Store::Open(dir));
  {
    Transaction t;
    t.MkColl(kColl, 0);
    SMR_RETURN_IF_ERROR(store->Apply(std::move(t)));
  }
  std::string data(c.object_size, '\0');
  FillPattern(c.seed, 0, data.data(), data.size());

  // 1. Fill.
  uint64_t cmr_capacity = 0;
  for (const RealmUsage& r : store->Realms()) cmr_capacity += r.capacity;
  run.objects = std::max<uint64_t>(
      1, static_cast<uint64_t>(c.fill * static_cast<double>(cmr_capacity)) / c.object_size);
  std::cerr << "hybrid-bench: bound " << Num(bound_ms) << " ms: filling " << run.objects
            << " objects of " << Human(c.object_size) << "\n";
  Clock::time_point t0 = Clock::now();
  SMR_RETURN_IF_ERROR(Fill(store.get(), run.objects, data));
  run.fill_s = Seconds(Clock::now() - t0);

  // 2. Baseline.
  std::cerr << "hybrid-bench: baseline, " << Num(c.baseline_s) << " s at " << Num(c.rate)
            << " PUT/s\n";
  Writer writer(store.get(), run.objects, &data, c.rate, c.seed);
  writer.Start(&run.base);
  std::this_thread::sleep_for(std::chrono::duration<double>(c.baseline_s));
  writer.Stop();
  run.base_puts = writer.puts();

  // 3. The prediction, before converting.
  const size_t n = std::max<size_t>(
      1, static_cast<size_t>(std::llround(c.fraction * static_cast<double>(c.realms))));
  const std::vector<RealmUsage> picked =
      PickRealms(store->Realms(), 0, ZoneDomain::kSmr, n, /*most_live=*/true);
  for (const RealmUsage& r : picked) {
    run.realms.push_back(r.realm);
    run.live_to_move += r.live_bytes;
  }
  SMR_ASSIGN_OR_RETURN(run.cost, MeasureRelocationCost(run.spec, stem, &run.cost_how));
  run.params.bound_ms = bound_ms;
  run.params.conversion_ms = c.convert_ms;
  run.params.record_bytes = store->options().max_record_payload;
  run.params.load = std::min(0.9, c.rate * run.base.mean_ms() / 1e3);
  // Every PUT overwrites a filled object: its old records die wherever they are.
  run.params.overwrite_bytes_per_ms = c.rate * static_cast<double>(c.object_size) / 1e3;
  run.params.live_total_bytes = store->Statfs().stored;
  run.range = PlanConversionRange(LoadsOf(picked), run.cost, run.params);
  run.plan = run.range.expected;
  std::cerr << "hybrid-bench: converting realms";
  for (uint32_t r : run.realms) std::cerr << " " << r;
  std::cerr << " (" << Human(run.live_to_move) << " live; predicted "
            << Fixed(run.plan.total_ms / 1e3, 1) << " s)\n";

  // 4. Conversion under the same load.
  const HybridCounters before = store->Hybrid();
  const uint64_t puts_before = writer.puts();
  writer.Start(&run.during);
  t0 = Clock::now();
  Status conv;
  std::thread converter([&] {
    for (uint32_t r : run.realms) {
      conv = store->ConvertRealm(0, r, ZoneDomain::kSmr);
      if (!conv.ok()) {
        conv = conv.WithContext("realm " + std::to_string(r));
        break;
      }
    }
  });
  converter.join();
  run.conversion_s = Seconds(Clock::now() - t0);
  writer.Stop();
  run.during_puts = writer.puts() - puts_before;
  run.put_errors = writer.errors();
  if (!conv.ok()) run.conversion_error = conv.ToString();
  run.report = DiffHybrid(before, store->Hybrid(), run.conversion_s);
  StatsDocumentOptions doc;
  doc.zone_maps = false;
  run.store_hybrid = store->StatsDocumentJson("hybrid-bench", doc).at("drives").at(0).at("hybrid");
  run.counters = store->Hybrid();
  SMR_RETURN_IF_ERROR(store->Close());
  if (writer.errors() > 0) {
    return writer.first_error().WithContext(std::to_string(writer.errors()) + " PUTs failed");
  }
  return run;
}

double ErrorPct(double predicted, double measured) {
  return measured > 0 ? (predicted - measured) / measured * 100 : 0;
}

// The store's figure as a double (null -> NaN).
double Field(const Json& j, const char* key) {
  const Json& v = j.at(key);
  return v.is_number() ? v.get<double>() : std::nan("");
}

Json RunJson(const Run& r) {
  auto lat = [](const LatencyHistogram& h, uint64_t n) {
    return Json{{"puts", n},
                {"p50_ms", JsonNum(h.QuantileMs(0.5))},
                {"p99_ms", JsonNum(h.QuantileMs(0.99))},
                {"max_ms", JsonNum(h.max_ms())},
                {"mean_ms", JsonNum(h.mean_ms())}};
  };
  const double violations = Field(r.store_hybrid, "bound_violations");
  return {{"bound_ms", JsonNum(r.bound_ms)},
          {"spec", r.spec},
          {"objects", r.objects},
          {"fill_s", JsonNum(r.fill_s)},
          {"realms", r.realms},
          {"live_to_move", r.live_to_move},
          {"predicted",
           {{"relocation", {{"fixed_ms", JsonNum(r.cost.fixed_ms)},
                            {"read_mbps", JsonNum(r.cost.read_bytes_per_ms / 1e3)},
                            {"write_mbps", JsonNum(r.cost.write_bytes_per_ms / 1e3)},
                            {"source", r.cost_how}}},
            {"load", JsonNum(r.params.load)},
            {"seconds", JsonNum(r.plan.total_ms / 1e3)},
            {"seconds_range", {JsonNum(r.range.fastest.total_ms / 1e3),
                               JsonNum(r.range.slowest.total_ms / 1e3)}},
            {"moved_bytes", r.plan.moved_bytes},
            {"quanta", r.plan.quanta},
            {"quanta_range", {r.range.fastest.quanta, r.range.slowest.quanta}},
            {"mean_quantum_ms", JsonNum(r.plan.mean_quantum_ms)},
            {"added_latency_ms", JsonNum(r.plan.added_latency_ms)},
            {"bound_held", r.plan.bound_held}}},
          {"measured",
           {{"seconds", JsonNum(r.conversion_s)},
            {"moved_bytes", r.report.moved_bytes},
            {"quanta", r.report.quanta},
            {"quantum_ms_p99", r.store_hybrid.at("quantum_ms_p99")},
            {"quantum_ms_max", r.store_hybrid.at("quantum_ms_max")},
            {"bound_violations", r.store_hybrid.at("bound_violations")},
            {"fixed_quantum_ms", JsonNum(r.counters.fixed_quantum_ms)},
            {"max_overshoot_bytes", r.counters.max_overshoot_bytes},
            {"error", r.conversion_error.empty() ? Json(nullptr) : Json(r.conversion_error)}}},
          {"time_error_pct", JsonNum(ErrorPct(r.plan.total_ms / 1e3, r.conversion_s))},
          {"quanta_error_pct", JsonNum(ErrorPct(static_cast<double>(r.plan.quanta),
                                                static_cast<double>(r.report.quanta)))},
          {"put_baseline", lat(r.base, r.base_puts)},
          {"put_during", lat(r.during, r.during_puts)},
          {"added_p99_ms", JsonNum(r.during.QuantileMs(0.99) - r.base.QuantileMs(0.99))},
          // Two verdicts: the issue's (the PUTs' p99 latency added by the conversion within
          // the bound) and the stricter one the store counts (no quantum over the bound).
          {"added_p99_within_bound",
           r.during.QuantileMs(0.99) - r.base.QuantileMs(0.99) <= r.bound_ms &&
               r.conversion_error.empty()},
          {"bound_held", violations == 0 && r.conversion_error.empty()}};
}

std::string RunText(const Run& r) {
  std::ostringstream o;
  const Json& h = r.store_hybrid;
  o << "bound " << Num(r.bound_ms) << " ms: converted realms";
  for (uint32_t x : r.realms) o << " " << x;
  o << " (" << Human(r.live_to_move) << " live) cmr -> smr under " << r.during_puts
    << " PUTs\n";
  if (!r.conversion_error.empty()) o << "  conversion FAILED: " << r.conversion_error << "\n";
  o << "  conversion time: measured " << Fixed(r.conversion_s, 2) << " s, predicted "
    << Fixed(r.plan.total_ms / 1e3, 2) << " s (error "
    << Fixed(ErrorPct(r.plan.total_ms / 1e3, r.conversion_s), 1) << " %; range "
    << Fixed(r.range.fastest.total_ms / 1e3, 2) << "-" << Fixed(r.range.slowest.total_ms / 1e3, 2)
    << " s)\n";
  o << "  quanta: measured " << r.report.quanta << " (" << Human(r.report.moved_bytes)
    << " moved), predicted " << r.plan.quanta << " (error "
    << Fixed(ErrorPct(static_cast<double>(r.plan.quanta), static_cast<double>(r.report.quanta)), 1)
    << " %, " << Human(r.plan.moved_bytes) << " moved: error "
    << Fixed(ErrorPct(static_cast<double>(r.plan.moved_bytes),
                      static_cast<double>(r.report.moved_bytes)), 1)
    << " %; range " << r.range.fastest.quanta << "-" << r.range.slowest.quanta << ")\n";
  o << "  quantum ms (store): p99 " << Fixed(Field(h, "quantum_ms_p99"), 1) << ", max "
    << Fixed(Field(h, "quantum_ms_max"), 1) << "; bound_violations "
    << h.at("bound_violations").dump() << "; predicted mean "
    << Fixed(r.plan.mean_quantum_ms, 1) << ", max " << Fixed(r.plan.added_latency_ms, 1)
    << "; the store's fitted fixed cost per quantum " << Fixed(r.counters.fixed_quantum_ms, 1)
    << " ms\n";
  o << "  PUT latency ms: baseline p50 " << Fixed(r.base.QuantileMs(0.5), 1) << " p99 "
    << Fixed(r.base.QuantileMs(0.99), 1) << " (" << r.base_puts << " PUTs); during p50 "
    << Fixed(r.during.QuantileMs(0.5), 1) << " p99 " << Fixed(r.during.QuantileMs(0.99), 1)
    << "; added p99 " << Fixed(r.during.QuantileMs(0.99) - r.base.QuantileMs(0.99), 1)
    << "\n";
  o << "  relocation cost (calibrated): fixed " << Fixed(r.cost.fixed_ms, 1) << " ms, read "
    << Fixed(r.cost.read_bytes_per_ms / 1e3, 1) << " MB/s, write "
    << Fixed(r.cost.write_bytes_per_ms / 1e3, 1) << " MB/s; load U " << Fixed(r.params.load, 3)
    << "\n";
  const bool held = h.at("bound_violations").get<uint64_t>() == 0 && r.conversion_error.empty();
  const double added = r.during.QuantileMs(0.99) - r.base.QuantileMs(0.99);
  o << "  added PUT p99 within the bound: "
    << (added <= r.bound_ms && r.conversion_error.empty() ? "yes" : "NO")
    << "; every quantum within the bound: " << (held ? "yes" : "NO") << "\n";
  return o.str();
}

Result<std::vector<double>> ParseBounds(const std::string& text) {
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(v >= 1 && v <= 60000)) {
      return Status::InvalidArgument("--bound-ms: '" + item + "' is not a bound in [1, 60000] ms");
    }
    out.push_back(v);
  }
  if (out.empty()) return Status::InvalidArgument("--bound-ms: no bound given");
  return out;
}

int CmdHybridBench(const Args& args) {
  const std::string cmd = "hybrid-bench";
  Config c;
  c.dir = args.get("dir", "/var/tmp");
  auto realms = args.number("realms", c.realms);
  auto zone_mib = args.number("zone-mib", c.zone_mib);
  auto convert_ms = args.number("convert-ms", c.convert_ms);
  auto object_size = args.size("object-size", c.object_size);
  auto seed = args.number("seed", c.seed);
  for (const Status* s : {&realms.status(), &zone_mib.status(), &convert_ms.status(),
                          &object_size.status(), &seed.status()}) {
    if (!s->ok()) return UsageFail(cmd, *s);
  }
  auto real = [&](const char* name, double fallback, double lo, double hi, double* out) {
    if (!args.has(name)) {
      *out = fallback;
      return true;
    }
    char* end = nullptr;
    const std::string text = args.get(name);
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(v >= lo && v <= hi)) return false;
    *out = v;
    return true;
  };
  if (!real("mbps", c.mbps, 1, 1e5, &c.mbps) || !real("seek-ms", c.seek_ms, 0, 1000, &c.seek_ms) ||
      !real("fraction", c.fraction, 0.01, 1, &c.fraction) ||
      !real("fill", c.fill, 0.01, 0.6, &c.fill) || !real("rate", c.rate, 0.1, 1000, &c.rate) ||
      !real("baseline-s", c.baseline_s, 1, 3600, &c.baseline_s)) {
    return UsageFail(cmd, Status::InvalidArgument(
                              "--mbps, --seek-ms, --fraction (0.01-1), --fill (0.01-0.6), "
                              "--rate or --baseline-s out of range"));
  }
  if (*realms < 2 || *realms > 1024 || *zone_mib < 1 || *zone_mib > 1024 || *convert_ms > 600000 ||
      *object_size == 0 || *object_size % 4096 != 0 || *object_size > (256u << 20)) {
    return UsageFail(cmd, Status::InvalidArgument(
                              "--realms 2-1024, --zone-mib 1-1024, --convert-ms <= 600000, "
                              "--object-size a 4 KiB multiple up to 256M"));
  }
  c.realms = static_cast<uint32_t>(*realms);
  c.zone_mib = static_cast<uint32_t>(*zone_mib);
  c.convert_ms = static_cast<uint32_t>(*convert_ms);
  c.object_size = *object_size;
  c.seed = *seed;
  c.keep = args.has("keep");
  if (args.has("bound-ms")) {
    auto b = ParseBounds(args.get("bound-ms"));
    if (!b.ok()) return UsageFail(cmd, b.status());
    c.bounds = *b;
  }
  Json runs = Json::array();
  std::string text;
  for (double bound : c.bounds) {
    auto run = OneRun(c, bound);
    if (!run.ok()) return Fail(cmd, run.status().WithContext("bound " + Num(bound) + " ms"));
    runs.push_back(RunJson(*run));
    text += RunText(*run);
  }
  if (args.has("json")) {
    const Json doc = {{"config",
                       {{"realms", c.realms},
                        {"zone_mib", c.zone_mib},
                        {"convert_ms", c.convert_ms},
                        {"mbps", JsonNum(c.mbps)},
                        {"seek_ms", JsonNum(c.seek_ms)},
                        {"fraction", JsonNum(c.fraction)},
                        {"fill", JsonNum(c.fill)},
                        {"object_size", c.object_size},
                        {"rate", JsonNum(c.rate)},
                        {"baseline_s", JsonNum(c.baseline_s)},
                        {"seed", c.seed}}},
                      {"runs", runs}};
    std::cout << JsonText(doc);
  } else {
    std::cout << "hybrid-bench: " << c.realms << " realms x (4 CMR | 5 SMR) zones of "
              << c.zone_mib << " MiB, timing model " << Num(c.mbps) << " MB/s " << Num(c.seek_ms)
              << " ms, conversion " << c.convert_ms << " ms; " << Human(c.object_size)
              << " PUTs at " << Num(c.rate) << "/s, converting " << Num(c.fraction * 100)
              << " % of the realms\n"
              << text;
  }
  return kExitOk;
}

}  // namespace

void AddHybridBenchCommand(Cli* cli) {
  cli->Add({"hybrid-bench", "", "realm conversion under a PUT load vs plan-conversion",
            "On a new emulated hybrid drive with the HDD timing model (per --bound-ms: a\n"
            "fresh drive and store), fills --fill of the CMR capacity with --object-size\n"
            "objects, measures PUT latency at --rate PUT/s (whole-object overwrites, open\n"
            "loop) for --baseline-s, predicts the conversion with plan-conversion's model,\n"
            "then converts --fraction of the realms (the ones holding the most live data)\n"
            "to SMR with Store::ConvertRealm from another thread under the same PUT load.\n"
            "Reports conversion time measured vs predicted (error %), quanta, PUT p50/p99\n"
            "baseline vs during the conversion (added p99), the store's quantum_ms p99/max\n"
            "and bound_violations, and two verdicts: added PUT p99 within the bound, and\n"
            "every quantum within it (doc/performance.md).\n"
            "Progress on stderr. Hybrid drives exist only in the emulator.",
            0,
            0,
            {{"dir", "DIR", "scratch directory (default /var/tmp)"},
             {"bound-ms", "B[,B...]", "latency bounds, a run each (default 60,100)"},
             {"realms", "N", "realms of the drive (default 16)"},
             {"zone-mib", "N", "zone size (default 64)"},
             {"convert-ms", "MS", "the drive's conversion time per realm (default 50)"},
             {"mbps", "X", "timing model bandwidth, MB/s (default 250)"},
             {"seek-ms", "X", "timing model positioning time (default 8)"},
             {"fraction", "F", "fraction of the realms to convert (default 0.25)"},
             {"fill", "F", "live data, fraction of the CMR capacity (default 0.25)"},
             {"object-size", "BYTES", "object size (default 4M)"},
             {"rate", "R", "PUTs per second (default 4)"},
             {"baseline-s", "S", "baseline phase length (default 20)"},
             {"seed", "N", "seed (default 1)"},
             {"keep", "", "keep the drives and stores"},
             {"json", "", "print JSON"}},
            CmdHybridBench});
}

}  // namespace smr::tool
