// smrstore-tool what-if (what_if_command.h).
#include "what_if_command.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "what_if.h"
#include "what_if_check.h"

namespace smr::tool {
namespace {

using whatif::WindowFigures;

Result<double> ParseNumber(const Args& args, const std::string& name, double fallback) {
  if (!args.has(name)) return fallback;
  const std::string text = args.get(name);
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used != text.size() || !std::isfinite(v)) throw std::invalid_argument("trailing");
    return v;
  } catch (...) {
    return Status::InvalidArgument("--" + name + ": '" + text + "' is not a number");
  }
}

// The figures an operator reads, from a window's totals.
Json Figures(const WindowFigures& w, double ingest_mbps) {
  const double user = static_cast<double>(w.user_bytes);
  const double resets_per_byte = user > 0 ? static_cast<double>(w.zones_reset) / user : 0;
  return {{"wa", w.wa()},
          {"data_wa", w.data_wa()},
          {"gc_per_user_byte", w.gc_per_user()},
          {"gc_mbps", w.gc_per_user() * ingest_mbps},
          {"zone_resets_per_tb", resets_per_byte * 1e12},
          {"zone_resets_per_day", resets_per_byte * ingest_mbps * 1e6 * 86400},
          {"journal_per_user_byte",
           user > 0 ? static_cast<double>(w.journal_bytes + w.checkpoint_bytes) / user : 0},
          {"user_bytes", w.user_bytes},
          {"device_bytes", w.device_bytes},
          {"gc_bytes", w.gc_bytes},
          {"zone_resets", w.zones_reset},
          {"journal_bytes", w.journal_bytes},
          {"checkpoint_bytes", w.checkpoint_bytes}};
}

double ErrorPct(const Json& pred, const Json& meas, const char* key) {
  const double m = meas.at(key).get<double>(), p = pred.at(key).get<double>();
  if (m == 0) return p == 0 ? 0 : INFINITY;
  return (p - m) / m * 100;
}

int RunWhatIf(const Args& args) {
  const char* cmd = "what-if";
  const std::string capture_dir = args.positional().at(0);
  whatif::PredictOptions o;
  auto zones = args.number("zones", 64);
  auto zone = args.size("zone-size", 16ull << 20);
  auto window = args.number("max-window", 1000);
  for (const auto* r : {&zones, &zone, &window}) {
    if (!r->ok()) return UsageFail(cmd, r->status());
  }
  auto fill = ParseNumber(args, "fill", 0.8);
  auto turns = ParseNumber(args, "turns", 2);
  auto ingest = ParseNumber(args, "ingest-mbps", 100);
  for (const auto* r : {&fill, &turns, &ingest}) {
    if (!r->ok()) return UsageFail(cmd, r->status());
  }
  if (!(*fill > 0 && *fill < 1)) return UsageFail(cmd, Status::InvalidArgument("--fill must be in (0, 1)"));
  if (!(*turns > 0 && *turns <= 100)) return UsageFail(cmd, Status::InvalidArgument("--turns must be in (0, 100]"));
  if (!(*ingest > 0)) return UsageFail(cmd, Status::InvalidArgument("--ingest-mbps must be > 0"));
  if (*zones > (1u << 20) || *window == 0 || *window > 100000) {
    return UsageFail(cmd, Status::InvalidArgument("--zones must be at most 1M, --max-window 1..100000"));
  }
  if ((args.has("keep") || args.has("no-idle-gc") || args.has("work") || args.has("gc-free")) &&
      !args.has("check")) {
    return UsageFail(cmd,
                     Status::InvalidArgument("--keep, --work, --no-idle-gc and --gc-free need --check"));
  }
  std::optional<std::array<double, 3>> gc_free;
  if (args.has("gc-free")) {
    auto w = ParseGcFree(args.get("gc-free"));
    if (!w.ok()) return UsageFail(cmd, w.status().WithContext("--gc-free"));
    gc_free = *w;
  }
  o.geometry.zones = static_cast<uint32_t>(*zones);
  o.geometry.zone_bytes = *zone;
  o.fill = *fill;
  o.turns = *turns;
  o.max_window = static_cast<uint32_t>(*window);
  o.oracle = !args.has("no-oracle");

  auto cap = whatif::LoadCapture(capture_dir);
  if (!cap.ok()) return Fail(cmd, cap.status());
  auto pred = whatif::Predict(*cap, o);
  if (!pred.ok()) {
    // A geometry or fill the capture cannot be scaled to is the command line's fault.
    if (pred.status().code() == Status::Code::kInvalidArgument) return UsageFail(cmd, pred.status());
    return Fail(cmd, pred.status());
  }
  const whatif::Prediction& p = *pred;
  const Json predicted = Figures(p.window, *ingest);
  Json out = {
      {"capture", capture_dir},
      {"geometry",
       {{"drives", 1},
        {"zones", o.geometry.zones},
        {"zone_bytes", o.geometry.zone_bytes},
        {"data_zones", o.geometry.data_zones()},
        {"journal_zones", p.journal_zones},
        {"keyspace_bytes", p.keyspace_bytes},
        {"sim_zones", p.sim_zones},
        {"sim_reserve_zones", p.sim_reserve_zones}}},
      {"fill", o.fill},
      {"ingest_mbps", *ingest},
      {"scaling",
       {{"rule", whatif::DescribeScale(p.profile, p.plan)},
        {"window", p.plan.window},
        {"window_capped", p.plan.window_capped},
        {"cold_objects", p.plan.cold_objects},
        {"cold_object_bytes", p.plan.cold_object_bytes},
        {"warm_passes", p.plan.warm_passes},
        {"measured_passes", p.plan.measured_passes},
        {"pass_record_bytes", p.profile.record_bytes},
        {"pass_peak_live_bytes", p.profile.peak_live},
        {"pass_survivor_bytes", p.profile.survivor_bytes},
        {"pass_survivors", p.profile.survivors.size()},
        {"scaled_transactions", p.scaled_txns},
        {"trace_ops", p.trace_ops}}},
      {"workload",
       {{"capture_transactions", cap->txns.size()},
        {"capture_write_bytes", cap->write_bytes},
        {"window_inline_bytes", p.window_inline_bytes},
        {"window_xattr_bytes", p.window_xattr_bytes},
        {"window_omap_bytes", p.window_omap_bytes},
        {"end_live_bytes", p.live_bytes},
        {"end_stranded_bytes", p.stranded_bytes},
        {"uninline_bytes", p.model.uninline_bytes}}},
      {"predicted", predicted},
      {"context",
       {{"store_policy_whole_wa", p.whole_wa},
        {"oracle_whole_wa", o.oracle && p.oracle_error.empty() ? Json(p.oracle_wa) : Json()},
        {"oracle_classes", p.oracle_classes},
        {"oracle_policy", o.oracle && p.oracle_error.empty() ? Json(p.oracle_policy) : Json()},
        {"rate_oracle_whole_wa",
         o.oracle && p.rate_oracle_wa >= 0 ? Json(p.rate_oracle_wa) : Json()}}},
      {"measured", nullptr},
      {"error_pct", nullptr}};
  if (!p.oracle_error.empty()) out["context"]["oracle_error"] = p.oracle_error;

  if (args.has("check")) {
    std::string work = args.get("work");
    if (work.empty()) {
      work = "/var/tmp/smrstore-what-if-" + std::to_string(::getpid());
    }
    StoreOptions options;
    // The simulator cleans only when a write finds no zone; the store also cleans whenever
    // it is idle, up to gc_stop_free. This makes idle cleaning stop where paced cleaning
    // starts (an experiment on the difference; the default is the store as it ships).
    if (gc_free) {
      options.gc_start_free = (*gc_free)[0];
      options.gc_urgent_free = (*gc_free)[1];
      options.gc_stop_free = (*gc_free)[2];
    }
    if (args.has("no-idle-gc")) options.gc_stop_free = options.gc_start_free;
    auto chk = whatif::RunCheck(*cap, p, o.geometry, options, work, args.has("keep"));
    if (!chk.ok()) return Fail(cmd, chk.status());
    Json measured = Figures(chk->window, *ingest);
    measured["transactions"] = chk->txns;
    measured["failed_transactions"] = chk->failed_txns;
    measured["checkpoints"] = chk->checkpoints;
    measured["store_capacity"] = chk->capacity;
    measured["seconds"] = chk->seconds;
    measured["idle_gc"] = !args.has("no-idle-gc");
    measured["gc_free"] = {options.gc_start_free, options.gc_urgent_free, options.gc_stop_free};
    Json err;
    for (const char* k : {"wa", "data_wa", "gc_per_user_byte", "zone_resets_per_tb",
                          "journal_per_user_byte"}) {
      err[k] = ErrorPct(predicted, measured, k);
    }
    out["measured"] = std::move(measured);
    out["error_pct"] = std::move(err);
  }

  if (args.has("json")) {
    std::printf("%s\n", out.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
    return kExitOk;
  }
  std::printf("what-if %s: 1 drive of %u zones x %llu MiB (%u data zones; %u left to the metadata "
              "journal, %u simulated, %u of them kept free), fill %.2f, ingest %.0f MB/s\n",
              capture_dir.c_str(), o.geometry.zones,
              static_cast<unsigned long long>(o.geometry.zone_bytes >> 20), o.geometry.data_zones(),
              p.journal_zones, p.sim_zones, p.sim_reserve_zones, o.fill, *ingest);
  std::printf("scaling: %s\n", whatif::DescribeScale(p.profile, p.plan).c_str());
  std::printf("measured window: %.1f MB of user data in zone records; in RocksDB: %.1f MB inline "
              "data, %.1f MB xattrs, %.1f MB omap (not zone bytes, but journaled)\n",
              static_cast<double>(p.window.user_bytes) / 1e6,
              static_cast<double>(p.window_inline_bytes) / 1e6,
              static_cast<double>(p.window_xattr_bytes) / 1e6,
              static_cast<double>(p.window_omap_bytes) / 1e6);
  std::printf("model: at the end %.1f MB live in records, %.1f MB of them stranded (partly "
              "overwritten records, dead to the store, which the simulator keeps whole)\n",
              static_cast<double>(p.live_bytes) / 1e6, static_cast<double>(p.stranded_bytes) / 1e6);
  const bool checked = !out["measured"].is_null();
  std::printf("%-34s %12s", "", "predicted");
  if (checked) std::printf(" %12s %9s", "measured", "error");
  std::printf("\n");
  struct Row {
    const char* label;
    const char* key;
    const char* fmt;
  };
  const Row rows[] = {
      {"WA (all zone writes / user bytes)", "wa", "%12.3f"},
      {"WA (data records only)", "data_wa", "%12.3f"},
      {"GC bytes per user byte", "gc_per_user_byte", "%12.3f"},
      {"GC MB/s at the ingest rate", "gc_mbps", "%12.1f"},
      {"GC zone resets per TB written", "zone_resets_per_tb", "%12.0f"},
      {"GC zone resets per day", "zone_resets_per_day", "%12.0f"},
      {"journal bytes per user byte", "journal_per_user_byte", "%12.3f"},
  };
  for (const Row& r : rows) {
    std::printf("%-34s ", r.label);
    std::printf(r.fmt, predicted.at(r.key).get<double>());
    if (checked) {
      std::printf(" ");
      std::printf(r.fmt, out["measured"].at(r.key).get<double>());
      if (out["error_pct"].contains(r.key)) {
        std::printf(" %+8.1f%%", out["error_pct"].at(r.key).get<double>());
      }
    }
    std::printf("\n");
  }
  if (p.oracle_error.empty() && o.oracle) {
    char rate[32] = "did not fit";
    if (p.rate_oracle_wa >= 0) std::snprintf(rate, sizeof(rate), "%.3f", p.rate_oracle_wa);
    std::printf("context: over the whole scaled trace (fill included) the simulated store policy "
                "writes WA %.3f of data records, the oracle floor %.3f (%u classes, %s victims), "
                "the rate oracle (placement by each name's known write count) %s\n",
                p.whole_wa, p.oracle_wa, p.oracle_classes, p.oracle_policy.c_str(), rate);
  } else if (o.oracle) {
    std::printf("context: the oracle did not fit: %s\n", p.oracle_error.c_str());
  }
  if (checked) {
    std::printf("check: %llu transactions into a store on one emulated drive of that geometry in "
                "%.1f s, %llu failed, %llu checkpoints in the window\n",
                static_cast<unsigned long long>(out["measured"]["transactions"].get<uint64_t>()),
                out["measured"]["seconds"].get<double>(),
                static_cast<unsigned long long>(out["measured"]["failed_transactions"].get<uint64_t>()),
                static_cast<unsigned long long>(out["measured"]["checkpoints"].get<uint64_t>()));
  }
  return kExitOk;
}

}  // namespace

void AddWhatIfCommand(Cli* cli) {
  CommandSpec c;
  c.name = "what-if";
  c.positional_usage = "CAPTURE_DIR";
  c.summary = "predict WA, GC bandwidth and zone turnover of a captured OSD workload";
  c.description =
      "Reads CAPTURE_DIR/trace.json.gz (smrstore.trace/1, qa/traces/README.md), models how\n"
      "the store records it (inline objects, records of at most 1 MiB, extents; xattrs and\n"
      "omap in RocksDB, the metadata journal in the zones), scales it to --fill of one drive\n"
      "of --zones x --zone-size (the capture replayed in passes, objects renamed per pass,\n"
      "each pass's survivors removed N passes later, a cold set making up the rest; the rule\n"
      "is printed) and runs it through the GC simulator (gc/gc_sim.h) with the store's\n"
      "default policy and separated placement. Prints, over the measured passes, WA, GC\n"
      "bytes per user byte and MB/s at --ingest-mbps, GC zone resets per TB and per day, and\n"
      "the oracle floor for context. --check replays the same scaled workload into a real\n"
      "store on an emulated drive of the geometry and prints measured vs predicted.";
  c.min_positional = 1;
  c.max_positional = 1;
  c.options = {{"zones", "N", "zones of the drive, 2 of them for the superblock (default 64)"},
               {"zone-size", "BYTES", "zone size, a power of two >= 4M (default 16M)"},
               {"fill", "F", "peak live data / data capacity, in (0, 1) (default 0.8)"},
               {"turns", "T", "measured window: T x capacity of user writes (default 2)"},
               {"ingest-mbps", "X", "user write rate for the MB/s and per-day figures (default 100)"},
               {"max-window", "N", "most passes a pass's survivors live (default 1000)"},
               {"no-oracle", "", "skip the oracle simulation"},
               {"check", "", "also replay into a real store on an emulated drive and compare"},
               {"work", "DIR", "--check: directory to create for it (default /var/tmp/smrstore-what-if-PID)"},
               {"keep", "", "--check: keep the directory"},
               {"no-idle-gc", "", "--check: the store's idle cleaning stops at gc_start_free, not gc_stop_free"},
               {"gc-free", "S:U:T", "--check: the store's GC watermarks, free fractions start:urgent:stop (default 0.03:0.01:0.05)"},
               {"json", "", "one JSON object"}};
  c.run = RunWhatIf;
  cli->Add(std::move(c));
}

}  // namespace smr::tool
