// smrstore-tool's hybrid-drive commands: convert, plan-conversion (hybrid_commands.h).
#include "hybrid_commands.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/measure.h"
#include "common/pattern.h"
#include "device/device_spec.h"
#include "device_commands.h"
#include "cli/quantile.h"
#include "store_command_util.h"
#include "store_commands.h"

namespace smr::tool {

using storecmd::Fixed;
using storecmd::Human;
using storecmd::Mount;
using storecmd::P;
using storecmd::Unmount;

ConversionReport DiffHybrid(const HybridCounters& before, const HybridCounters& after,
                            double seconds) {
  ConversionReport r;
  r.seconds = seconds;
  r.moved_bytes = after.migrated_bytes - before.migrated_bytes;
  r.quanta = after.quanta - before.quanta;
  r.bound_violations = after.bound_violations - before.bound_violations;
  r.activation_ms = after.last_activation_ms;
  const std::vector<double>& recent = after.recent_quantum_ms;
  const size_t n = static_cast<size_t>(std::min<uint64_t>(r.quanta, recent.size()));
  const std::vector<double> mine(recent.end() - static_cast<std::ptrdiff_t>(n), recent.end());
  if (!mine.empty()) {
    r.quantum_ms_p99 = Quantile(mine, 0.99);
    r.quantum_ms_max = *std::max_element(mine.begin(), mine.end());
  }
  return r;
}

namespace {

// Least-squares line y = a + b x through the points; {a, b}.
std::pair<double, double> FitLine(const std::vector<std::pair<double, double>>& pts) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x, y] : pts) {
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double n = static_cast<double>(pts.size());
  const double den = n * sxx - sx * sx;
  const double b = den != 0 ? (n * sxy - sx * sy) / den : 0;
  return {(sy - b * sx) / n, b};
}

// GC slices as the engine runs them, on the CMR zones of a scratch emulated hybrid drive in
// `dir` with `timing` (the target drive's timing model, or none): walk k records (4 KiB
// header read, then the 1 MiB payload) in one zone, write them piece by piece in another
// zone while a second thread writes an 8 KiB journal record (two pieces) in a third,
// flush the drive, then sync a small file in `dir` (the metadata commit). k = 1, 2, 4,
// three times each, then 12 more of k = 1 (21 slices, ~1.5 s on the HDD model); the read
// and the write phases are each fitted to a + bytes / rate.
Result<RelocationCost> CalibrateSlices(const std::string& dir, const TimingModel& timing,
                                       double* sync_ms_out) {
  constexpr uint64_t kHeader = 4096, kPayload = 1u << 20, kRecord = kHeader + kPayload;
  std::string img = dir + "/.plan-calibrate.XXXXXX";
  const int fd = ::mkstemp(img.data());
  if (fd < 0) return Status::FromErrno(errno, dir + ": scratch drive for the calibration");
  ::close(fd);
  ::unlink(img.c_str());  // CreateDevice never overwrites: reserve the name, then create
  struct Remove {
    std::string path;
    ~Remove() { ::unlink(path.c_str()); }
  } remove{img};
  std::string sync_path = dir + "/.plan-sync.XXXXXX";
  const int sync_fd = ::mkstemp(sync_path.data());
  if (sync_fd < 0) return Status::FromErrno(errno, dir + ": scratch file for the calibration");
  struct CloseRemove {
    int fd;
    std::string path;
    ~CloseRemove() {
      ::close(fd);
      ::unlink(path.c_str());
    }
  } sync_file{sync_fd, sync_path};
  // A hybrid drive whose realm is CMR: the zones a store's first conversions read from
  // and write to are CMR (conventional) zones, written back by the flush (the emulator
  // starts writing sequential zones back while it writes them).
  std::string spec = "emu:" + img + "?zone_mib=64&conv=2&realms=1&realm_cmr=4&realm_smr=4";
  if (timing.enabled()) {
    spec += "&mbps=" + Num(timing.seq_mbps) + "&seek_ms=" + Num(timing.seek_ms);
  }
  auto dev = CreateDevice(spec);
  if (!dev.ok()) return dev.status();
  const uint64_t zone = (*dev)->info().zone_size;
  const uint64_t src = 2 * zone, dst = 3 * zone, journal = 4 * zone;
  // Three rounds of 1, 2 and 4 records (the fits), then 12 more one-record slices: the
  // scatter of the shortest slices decides whether the store settles at one record or two
  // a quantum when one takes about B/2, so it gets the most samples.
  std::vector<int> sizes;
  for (int round = 0; round < 3; ++round) sizes.insert(sizes.end(), {1, 2, 4});
  sizes.insert(sizes.end(), 12, 1);
  int records = 0;
  for (int k : sizes) records += k;
  std::string buf(4 * kRecord, '\0');
  FillPattern(7, 0, buf.data(), buf.size());
  // The zone the slices walk: 21 records.
  for (int i = 0; i < records; ++i) {
    SMR_RETURN_IF_ERROR((*dev)->Write(src + i * kRecord, buf.data(), kRecord));
  }
  SMR_RETURN_IF_ERROR((*dev)->Flush());
  std::vector<std::pair<double, double>> reads, writes;
  std::vector<double> syncs;
  uint64_t rpos = 0, wpos = 0, jpos = 0;
  {
    for (int k : sizes) {
      const double bytes = static_cast<double>(k * kRecord);
      Clock::time_point t0 = Clock::now();
      for (int i = 0; i < k; ++i, rpos += kRecord) {
        SMR_RETURN_IF_ERROR((*dev)->Read(src + rpos, buf.data() + i * kRecord, kHeader));
        SMR_RETURN_IF_ERROR(
            (*dev)->Read(src + rpos + kHeader, buf.data() + i * kRecord + kHeader, kPayload));
      }
      reads.emplace_back(bytes, Seconds(Clock::now() - t0) * 1e3);
      t0 = Clock::now();
      // As the store's group write: each zone's pieces (a record's header, its payload) in
      // order, the zones in parallel: the journal record's header and payload go to their
      // zone from another thread meanwhile (on one head, every switch is a positioning).
      Status journal_status;
      std::thread journal_writer([&, jpos] {
        journal_status = (*dev)->Write(journal + jpos, buf.data(), kHeader);
        if (journal_status.ok()) {
          journal_status = (*dev)->Write(journal + jpos + kHeader, buf.data(), kHeader);
        }
      });
      Status data_status;
      for (int i = 0; i < k && data_status.ok(); ++i, wpos += kRecord) {
        data_status = (*dev)->Write(dst + wpos, buf.data() + i * kRecord, kHeader);
        if (data_status.ok()) {
          data_status = (*dev)->Write(dst + wpos + kHeader, buf.data() + i * kRecord + kHeader,
                                      kPayload);
        }
      }
      journal_writer.join();
      SMR_RETURN_IF_ERROR(data_status);
      SMR_RETURN_IF_ERROR(journal_status);
      jpos += 2 * kHeader;
      SMR_RETURN_IF_ERROR((*dev)->Flush());
      const Clock::time_point s0 = Clock::now();
      if (::pwrite(sync_fd, buf.data(), kHeader, static_cast<off_t>(jpos)) !=
              static_cast<ssize_t>(kHeader) ||
          ::fdatasync(sync_fd) != 0) {
        return Status::FromErrno(errno, sync_path);
      }
      syncs.push_back(Seconds(Clock::now() - s0) * 1e3);
      writes.emplace_back(bytes, Seconds(Clock::now() - t0) * 1e3);
    }
  }
  const auto [read_fixed, read_per_byte] = FitLine(reads);
  const auto [write_fixed, write_per_byte] = FitLine(writes);
  RelocationCost cost;
  cost.fixed_ms = std::max(0.0, read_fixed + write_fixed);
  // Each slice's deviation from the two fits, in the order measured.
  for (size_t i = 0; i < reads.size(); ++i) {
    cost.jitter_ms.push_back(reads[i].second - (read_fixed + read_per_byte * reads[i].first) +
                             writes[i].second - (write_fixed + write_per_byte * writes[i].first));
  }
  // A slope at or below zero is noise over a tiny cost: take the fastest sample then.
  auto rate = [](double per_byte, const std::vector<std::pair<double, double>>& pts) {
    if (per_byte > 0) return 1 / per_byte;
    double best = 0;
    for (const auto& [x, y] : pts) best = std::max(best, y > 0 ? x / y : 0.0);
    return best > 0 ? best : 1e9;
  };
  cost.read_bytes_per_ms = rate(read_per_byte, reads);
  cost.write_bytes_per_ms = rate(write_per_byte, writes);
  *sync_ms_out = Median(syncs);
  return cost;
}

}  // namespace

Result<RelocationCost> MeasureRelocationCost(const std::string& spec,
                                             const std::string& scratch_dir,
                                             std::string* how) {
  auto parsed = DeviceSpec::Parse(spec);
  if (!parsed.ok()) return parsed.status();
  const TimingModel timing =
      parsed->kind == DeviceSpec::Kind::kEmulated ? parsed->timing : TimingModel{};
  double sync_ms = 0;
  SMR_ASSIGN_OR_RETURN(RelocationCost cost, CalibrateSlices(scratch_dir, timing, &sync_ms));
  *how = "calibrated: GC-like slices of 1-4 MiB on a scratch emulated drive in " +
         scratch_dir +
         (timing.enabled() ? " with the drive's timing model mbps=" + Num(timing.seq_mbps) +
                                 " seek_ms=" + Num(timing.seek_ms)
                           : std::string(" (no timing model)")) +
         (parsed->kind == DeviceSpec::Kind::kZbd ? ", not on the zbd device itself" : "") +
         "; metadata sync " + Fixed(sync_ms, 2) + " ms";
  return cost;
}

std::vector<RealmUsage> PickRealms(const std::vector<RealmUsage>& realms, uint16_t drive,
                                   ZoneDomain to, size_t n, bool most_live) {
  std::vector<RealmUsage> c;
  for (const RealmUsage& r : realms) {
    if (r.drive == drive && r.domain != to && !r.converting) c.push_back(r);
  }
  std::stable_sort(c.begin(), c.end(), [most_live](const RealmUsage& a, const RealmUsage& b) {
    return most_live ? a.live_bytes > b.live_bytes : a.live_bytes < b.live_bytes;
  });
  if (c.size() > n) c.resize(n);
  return c;
}

std::vector<RealmLoad> LoadsOf(const std::vector<RealmUsage>& realms) {
  std::vector<RealmLoad> out;
  for (const RealmUsage& r : realms) {
    RealmLoad l;
    l.realm = r.realm;
    l.live_bytes = r.live_bytes;
    l.written_bytes = r.written;
    l.zones_in_use = r.zones_in_use;
    out.push_back(l);
  }
  return out;
}

Json PlanJson(const PlanRange& range, const RelocationCost& cost, const PlanParams& p) {
  const ConversionPlan& plan = range.expected;
  Json jitter = Json::array();
  for (double j : cost.jitter_ms) jitter.push_back(JsonNum(j));
  Json realms = Json::array();
  for (const RealmPlan& r : plan.realms) {
    realms.push_back({{"realm", r.realm},
                      {"live_bytes", r.live_bytes},
                      {"moved_bytes", r.moved_bytes},
                      {"quanta", r.quanta},
                      {"mean_quantum_bytes", JsonNum(r.mean_quantum_bytes)},
                      {"mean_quantum_ms", JsonNum(r.mean_quantum_ms)},
                      {"max_quantum_ms", JsonNum(r.max_quantum_ms)},
                      {"drain_ms", JsonNum(r.drain_ms)},
                      {"total_ms", JsonNum(r.total_ms)}});
  }
  return {{"bound_ms", JsonNum(p.bound_ms)},
          {"conversion_ms_per_realm", JsonNum(p.conversion_ms)},
          {"idle_gap_ms", JsonNum(p.idle_gap_ms)},
          {"load", JsonNum(p.load)},
          {"record_bytes", p.record_bytes},
          {"overwrite_mbps", JsonNum(p.overwrite_bytes_per_ms / 1e3)},
          {"live_total_bytes", p.live_total_bytes},
          {"relocation", {{"fixed_ms", JsonNum(cost.fixed_ms)},
                          {"read_mbps", JsonNum(cost.read_bytes_per_ms / 1e3)},
                          {"write_mbps", JsonNum(cost.write_bytes_per_ms / 1e3)},
                          {"jitter_ms", jitter}}},
          {"realms", realms},
          {"live_bytes", plan.live_bytes},
          {"moved_bytes", plan.moved_bytes},
          {"quanta", plan.quanta},
          {"drain_ms", JsonNum(plan.drain_ms)},
          {"conversion_ms", JsonNum(plan.conversion_ms)},
          {"total_ms", JsonNum(plan.total_ms)},
          {"mean_quantum_ms", JsonNum(plan.mean_quantum_ms)},
          {"added_latency_ms", JsonNum(plan.added_latency_ms)},
          {"bound_held", plan.bound_held},
          {"range", {{"fastest_total_ms", JsonNum(range.fastest.total_ms)},
                     {"fastest_quanta", range.fastest.quanta},
                     {"slowest_total_ms", JsonNum(range.slowest.total_ms)},
                     {"slowest_quanta", range.slowest.quanta},
                     {"added_latency_ms_max",
                      JsonNum(std::max({range.expected.added_latency_ms,
                                        range.fastest.added_latency_ms,
                                        range.slowest.added_latency_ms}))}}}};
}

namespace {

// --to smr|cmr; false for anything else.
bool ParseDomain(const std::string& text, ZoneDomain* out) {
  if (text == "smr") {
    *out = ZoneDomain::kSmr;
    return true;
  }
  if (text == "cmr") {
    *out = ZoneDomain::kCmr;
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------
// convert

int CmdConvert(const Args& args) {
  auto drive = args.number("drive", 0);
  auto realm = args.number("realm", 0);
  if (!drive.ok()) return UsageFail("convert", drive.status());
  if (!realm.ok()) return UsageFail("convert", realm.status());
  if (!args.has("realm") || !args.has("to")) {
    return UsageFail("convert", Status::InvalidArgument("--realm and --to are required"));
  }
  if (*drive > UINT16_MAX || *realm > UINT32_MAX) {
    return UsageFail("convert", Status::InvalidArgument("--drive or --realm out of range"));
  }
  ZoneDomain to = ZoneDomain::kSmr;
  if (!ParseDomain(args.get("to"), &to)) {
    return UsageFail("convert", Status::InvalidArgument("--to must be smr or cmr, not '" +
                                                        args.get("to") + "'"));
  }
  const auto d = static_cast<uint16_t>(*drive);
  const auto r = static_cast<uint32_t>(*realm);
  auto store = Mount(args.positional()[0]);
  if (!store.ok()) return Fail("convert", store.status());
  std::string from = "?";
  uint64_t live_before = 0;
  for (const RealmUsage& u : (*store)->Realms()) {
    if (u.drive == d && u.realm == r) {
      from = ZoneDomainName(u.domain);
      live_before = u.live_bytes;
    }
  }
  const HybridCounters before = (*store)->Hybrid();
  const Clock::time_point t0 = Clock::now();
  Status st;
  {
    storecmd::Ticker ticker("convert", "converting realm " + std::to_string(r) + " of drive " +
                                           std::to_string(d) + " to " + ZoneDomainName(to));
    st = (*store)->ConvertRealm(d, r, to);
  }
  const double seconds = Seconds(Clock::now() - t0);
  if (!st.ok()) {
    Unmount("convert", std::move(*store));
    return Fail("convert", st);
  }
  const ConversionReport rep = DiffHybrid(before, (*store)->Hybrid(), seconds);
  const uint32_t bound = (*store)->options().hybrid_latency_bound_ms;
  if (args.has("json")) {
    const Json j = {{"drive", d},
                    {"realm", r},
                    {"from", from},
                    {"to", ZoneDomainName(to)},
                    {"seconds", JsonNum(rep.seconds)},
                    {"live_before", live_before},
                    {"moved_bytes", rep.moved_bytes},
                    {"quanta", rep.quanta},
                    {"quantum_ms_p99", JsonNum(rep.quantum_ms_p99)},
                    {"quantum_ms_max", JsonNum(rep.quantum_ms_max)},
                    {"bound_ms", bound},
                    {"bound_violations", rep.bound_violations},
                    {"activation_ms", JsonNum(rep.activation_ms)}};
    std::cout << storecmd::JsonText(j) << "\n";
  } else {
    std::cout << "convert: drive " << d << " realm " << r << ": " << from << " -> "
              << ZoneDomainName(to) << " done in " << Fixed(rep.seconds, 2) << " s: moved "
              << Human(rep.moved_bytes) << " of live data in " << rep.quanta
              << " quanta (quantum p99 " << Fixed(rep.quantum_ms_p99, 1) << " ms, max "
              << Fixed(rep.quantum_ms_max, 1) << " ms; bound " << bound << " ms, "
              << rep.bound_violations << " over it); the drive's conversion took "
              << Fixed(rep.activation_ms, 0) << " ms\n";
  }
  return Unmount("convert", std::move(*store));
}

// A decimal option in [lo, hi] (hi_open: < hi), `fallback` when absent.
Result<double> Decimal(const Args& args, const std::string& name, double fallback, double lo,
                       double hi, bool hi_open = false) {
  if (!args.has(name)) return fallback;
  const std::string text = args.get(name);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == nullptr || *end != '\0' || !std::isfinite(v) || v < lo ||
      (hi_open ? v >= hi : v > hi)) {
    return Status::InvalidArgument("--" + name + ": '" + text + "' is not a number in [" +
                                   Num(lo) + ", " + Num(hi) + (hi_open ? ")" : "]"));
  }
  return v;
}

// ---------------------------------------------------------------------------------------
// plan-conversion

// The realms of a bare hybrid drive as plan-conversion assumes them: a CMR realm's zones
// have no write pointer, so it is taken as written full; an SMR realm's written bytes are
// its zones' write pointers; `live_fraction` of the written bytes is live.
Result<std::vector<RealmUsage>> DeviceRealmUsage(ZonedDevice* dev, double live_fraction) {
  const DeviceInfo& info = dev->info();
  SMR_ASSIGN_OR_RETURN(std::vector<RealmInfo> realms, DeviceRealms(dev));
  std::vector<RealmUsage> out;
  for (const RealmInfo& r : realms) {
    RealmUsage u;
    u.realm = r.realm;
    u.domain = r.domain;
    u.zones = r.active_count();
    u.capacity = uint64_t{u.zones} * info.zone_capacity;
    if (r.domain == ZoneDomain::kCmr) {
      u.written = u.capacity;
      u.zones_in_use = u.zones;
    } else {
      SMR_ASSIGN_OR_RETURN(std::vector<ZoneInfo> zones, dev->ReportZones(r.smr_first, r.smr_count));
      for (const ZoneInfo& z : zones) {
        if (z.cond == ZoneCondition::kInactive || z.is_conventional()) continue;
        const uint64_t w = z.written_bytes();
        u.written += w;
        u.zones_in_use += w > 0 ? 1 : 0;
      }
    }
    u.live_bytes = AssumedRealm(r.realm, u.written, u.zones_in_use, live_fraction).live_bytes;
    out.push_back(u);
  }
  return out;
}

int CmdPlanConversion(const Args& args) {
  const std::string cmd = "plan-conversion";
  const std::string& target = args.positional()[0];
  const bool is_store = IsStoreTarget(target);
  auto drive = args.number("drive", 0);
  auto nrealms = args.number("realms", 1);
  auto bound = Decimal(args, "bound-ms", 0, 1, 3600e3);
  auto fraction = Decimal(args, "fraction", 0, 0, 1);
  auto live_fraction = Decimal(args, "live-fraction", 1, 0, 1);
  auto gap = Decimal(args, "gap-ms", PlanParams{}.idle_gap_ms, 0, 3600e3);
  auto record_arg = args.size("record", 0);
  auto overwrite = Decimal(args, "overwrite-mbps", 0, 0, 1e6);
  auto load = Decimal(args, "load", 0, 0, 1, /*hi_open=*/true);
  auto read_mbps = Decimal(args, "read-mbps", 0, 1e-3, 1e9);
  auto write_mbps = Decimal(args, "write-mbps", 0, 1e-3, 1e9);
  auto fixed_ms = Decimal(args, "fixed-ms", 0, 0, 3600e3);
  for (const Status* st : {&drive.status(), &nrealms.status(), &bound.status(),
                           &fraction.status(), &live_fraction.status(), &gap.status(),
                           &load.status(), &read_mbps.status(), &write_mbps.status(),
                           &fixed_ms.status(), &record_arg.status(), &overwrite.status()}) {
    if (!st->ok()) return UsageFail(cmd, *st);
  }
  auto usage = [&](const std::string& why) {
    return UsageFail(cmd, Status::InvalidArgument(why));
  };
  if (*drive > UINT16_MAX) return usage("--drive out of range");
  if (args.has("realms") && args.has("fraction")) return usage("give --realms or --fraction, not both");
  if (args.has("realms") && (*nrealms == 0 || *nrealms > UINT32_MAX)) {
    return usage("--realms must be at least 1");
  }
  if (args.has("fraction") && *fraction <= 0) return usage("--fraction must be above 0");
  if (is_store && args.has("live-fraction")) {
    return usage("--live-fraction is for a bare device (a store knows its live bytes)");
  }
  if (!is_store && !args.has("bound-ms")) return usage("--bound-ms is required for a device");
  const int given = args.has("read-mbps") + args.has("write-mbps") + args.has("fixed-ms");
  if (given != 0 && given != 3) {
    return usage("--read-mbps, --write-mbps and --fixed-ms go together (all three or none)");
  }
  ZoneDomain to = ZoneDomain::kSmr;
  if (args.has("to") && !ParseDomain(args.get("to"), &to)) {
    return usage("--to must be smr or cmr, not '" + args.get("to") + "'");
  }
  const std::string pick = args.get("pick", "least-live");
  if (pick != "least-live" && pick != "most-live") {
    return usage("--pick must be least-live or most-live, not '" + pick + "'");
  }
  const auto d = static_cast<uint16_t>(*drive);

  // What is known about the drive and its realms.
  DeviceInfo info;
  std::string spec, scratch;
  std::vector<RealmUsage> realms;
  double bound_ms = *bound;
  uint64_t record = StoreOptions{}.max_record_payload;
  uint64_t live_total = 0;  // the store's live bytes (a device: its realms' assumed ones)
  if (is_store) {
    std::vector<std::pair<std::string, ZonedDevice*>> drives;
    auto opener = [&drives](const std::string& s) -> Result<std::unique_ptr<ZonedDevice>> {
      auto dev = OpenDevice(s);
      if (dev.ok()) drives.emplace_back(s, dev->get());
      return dev;
    };
    auto store = Mount(target, opener, /*read_only=*/true);
    if (!store.ok()) return Fail(cmd, store.status());
    if (d >= drives.size()) {
      Unmount(cmd, std::move(*store));
      return Fail(cmd, Status::InvalidArgument("the store has no drive " + std::to_string(d)));
    }
    info = drives[d].second->info();
    spec = drives[d].first;
    realms = (*store)->Realms();
    if (!args.has("bound-ms")) bound_ms = (*store)->options().hybrid_latency_bound_ms;
    record = (*store)->options().max_record_payload;
    live_total = (*store)->Statfs().stored;
    scratch = target;
    if (int rc = Unmount(cmd, std::move(*store)); rc != 0) return rc;
  } else {
    if (d != 0) return usage("--drive is for a store (a device is one drive)");
    auto dev = OpenDevice(target);
    if (!dev.ok()) return Fail(cmd, dev.status());
    info = (*dev)->info();
    spec = target;
    if (info.hybrid()) {
      auto r = DeviceRealmUsage(dev->get(), *live_fraction);
      if (!r.ok()) return Fail(cmd, r.status());
      realms = std::move(*r);
      for (const RealmUsage& u : realms) live_total += u.live_bytes;
    }
    auto parsed = DeviceSpec::Parse(target);
    scratch = parsed.ok() && parsed->kind == DeviceSpec::Kind::kEmulated
                  ? std::filesystem::path(parsed->path).parent_path().string()
                  : std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
    if (scratch.empty()) scratch = ".";
  }
  if (!info.hybrid()) {
    return Fail(cmd, Status::NotSupported((is_store ? "drive " + std::to_string(d) + " (" +
                                                          info.path + ")"
                                                    : info.path) +
                                          " is not a hybrid drive"));
  }
  if (args.has("record")) record = *record_arg;
  size_t n = static_cast<size_t>(*nrealms);
  if (args.has("fraction")) {
    n = std::max<size_t>(1, static_cast<size_t>(std::llround(*fraction * info.nr_realms)));
  }
  const ZoneDomain from = to == ZoneDomain::kSmr ? ZoneDomain::kCmr : ZoneDomain::kSmr;
  const std::vector<RealmUsage> picked = PickRealms(realms, d, to, n, pick == "most-live");
  if (picked.size() < n) {
    return Fail(cmd, Status::InvalidArgument(
                         "drive " + std::to_string(d) + " has " + std::to_string(picked.size()) +
                         " realm(s) in " + ZoneDomainName(from) + " to convert, not " +
                         std::to_string(n)));
  }

  // The relocation cost, then the model.
  RelocationCost cost;
  std::string how = "given";
  if (given == 3) {
    cost.read_bytes_per_ms = *read_mbps * 1e3;
    cost.write_bytes_per_ms = *write_mbps * 1e3;
    cost.fixed_ms = *fixed_ms;
  } else {
    auto c = MeasureRelocationCost(spec, scratch, &how);
    if (!c.ok()) return Fail(cmd, c.status().WithContext("relocation cost"));
    cost = *c;
  }
  PlanParams p;
  p.bound_ms = bound_ms;
  p.conversion_ms = info.conversion_ms;
  p.idle_gap_ms = *gap;
  p.load = *load;
  p.record_bytes = record;
  p.overwrite_bytes_per_ms = *overwrite * 1e3;
  p.live_total_bytes = live_total;
  const PlanRange range = PlanConversionRange(LoadsOf(picked), cost, p);
  const ConversionPlan& plan = range.expected;

  if (args.has("json")) {
    Json j = {{"target", target},
              {"store", is_store},
              {"drive", d},
              {"from", ZoneDomainName(from)},
              {"to", ZoneDomainName(to)},
              {"realms_of_drive", info.nr_realms},
              {"assumed", !is_store},
              {"relocation_source", how}};
    const Json model = PlanJson(range, cost, p);
    for (const auto& [k, v] : model.items()) j[k] = v;
    for (size_t i = 0; i < picked.size(); ++i) {
      j["realms"][i]["written_bytes"] = picked[i].written;
      j["realms"][i]["zones_in_use"] = picked[i].zones_in_use;
    }
    std::cout << JsonText(j);
    return kExitOk;
  }
  std::ostringstream o;
  o << "plan-conversion " << P(target) << ": drive " << d << ", " << picked.size() << " of "
    << info.nr_realms << " realms " << ZoneDomainName(from) << " -> " << ZoneDomainName(to)
    << ", bound " << Num(bound_ms) << " ms, the drive's conversion " << info.conversion_ms
    << " ms per realm\n";
  if (!is_store) {
    o << "live data assumed: CMR realms written full, SMR realms as their write pointers; "
      << Num(*live_fraction * 100) << " % of that live (--live-fraction)\n";
  }
  double spread = 0;
  for (double j : cost.jitter_ms) spread = std::max(spread, std::abs(j));
  o << "relocation: fixed " << Fixed(cost.fixed_ms, 1) << " ms per quantum (slices within +-"
    << Fixed(spread, 1) << " ms), read " << Fixed(cost.read_bytes_per_ms / 1e3, 1)
    << " MB/s, write " << Fixed(cost.write_bytes_per_ms / 1e3, 1) << " MB/s (" << how
    << ")\n";
  o << "gap after each quantum: " << Num(p.idle_gap_ms) << " ms idle wait";
  if (p.load > 0) {
    o << " x (1 - U) + quantum x U/(1 - U) of foreground commits (load U = " << Num(p.load)
      << ")";
  } else {
    o << " (no foreground load)";
  }
  o << "; quanta move whole records of " << Human(p.record_bytes) << "\n";
  if (p.overwrite_bytes_per_ms > 0) {
    o << "foreground overwrites " << Num(p.overwrite_bytes_per_ms / 1e3) << " MB/s of the "
      << Human(p.live_total_bytes) << " live: live data in the realms dies before it moves\n";
  }
  o << "realm  live         written      zones  quanta  mean quantum  mean ms  max ms   drain s   total s\n";
  for (size_t i = 0; i < plan.realms.size(); ++i) {
    const RealmPlan& r = plan.realms[i];
    char line[200];
    std::snprintf(line, sizeof(line),
                  "%5u  %-11s  %-11s  %5u  %6" PRIu64 "  %-12s  %7.1f  %6.1f  %8.2f  %8.2f\n",
                  static_cast<unsigned>(r.realm), Human(r.live_bytes).c_str(),
                  Human(picked[i].written).c_str(), static_cast<unsigned>(picked[i].zones_in_use),
                  r.quanta, Human(static_cast<uint64_t>(r.mean_quantum_bytes)).c_str(),
                  r.mean_quantum_ms, r.max_quantum_ms, r.drain_ms / 1e3, r.total_ms / 1e3);
    o << line;
  }
  o << "total: " << Human(plan.live_bytes) << " live, " << Human(plan.moved_bytes)
    << " moved in " << plan.quanta << " quanta: drain " << Fixed(plan.drain_ms / 1e3, 2) << " s + conversions "
    << Fixed(plan.conversion_ms / 1e3, 2) << " s = " << Fixed(plan.total_ms / 1e3, 2)
    << " s\n";
  if (range.fastest.total_ms < range.slowest.total_ms) {
    o << "range: " << Fixed(range.fastest.total_ms / 1e3, 2) << " s (" << range.fastest.quanta
      << " quanta) to " << Fixed(range.slowest.total_ms / 1e3, 2) << " s ("
      << range.slowest.quanta << " quanta), every quantum as fast / as slow as the "
      << "fastest / slowest calibration slice\n";
  }
  o << "foreground latency added per quantum: mean " << Fixed(plan.mean_quantum_ms, 1)
    << " ms, at most " << Fixed(plan.added_latency_ms, 1) << " ms (bound " << Num(bound_ms)
    << " ms: " << (plan.bound_held ? "held" : "NOT held") << ")\n";
  std::cout << o.str();
  return kExitOk;
}

}  // namespace

void AddHybridCommands(Cli* cli) {
  cli->Add({"convert", "STORE", "convert one realm of a hybrid drive (CMR <-> SMR) now",
            "Mounts the store and calls Store::ConvertRealm: the realm's live data is moved\n"
            "out in quanta sized to half the store's latency bound (mkfs option, default\n"
            "100 ms), then the drive converts the realm. Prints the time it took, the live\n"
            "bytes moved, the number of quanta and their p99/max duration, the quanta over\n"
            "the bound, and the drive's conversion time (from Store::Hybrid() before and\n"
            "after). Refused (exit 1): a drive that is not hybrid, no such realm, a realm\n"
            "in that domain already, live data that does not fit elsewhere. Hybrid drives\n"
            "exist only in the emulator. The engine logs its steps on stderr (smrstore: ...).",
            1,
            1,
            {{"drive", "D", "drive index in the store (default 0)"},
             {"realm", "R", "realm to convert (required)"},
             {"to", "smr|cmr", "target domain (required)"},
             {"json", "", "print JSON"}},
            CmdConvert});
  cli->Add({"plan-conversion", "STORE|SPEC",
            "predict a realm conversion's time and added latency",
            "Predicts, before anything is converted, how long converting realms of a hybrid\n"
            "drive takes and the foreground latency each migration quantum adds (model in\n"
            "doc/tools/smrstore-tool.md, src/tools/commands/plan_model.h): quantum = rate x\n"
            "B/2 in whole records, quanta ~ live / quantum, time = sum of quanta x (quantum\n"
            "time + gap) + realms x the drive's conversion time; latency added per quantum\n"
            "~B/2 (<= B), or one record's time when that is more. A STORE is mounted read-only\n"
            "for its realms' live and written bytes (least live first, as the store's policy\n"
            "picks them; --pick most-live for the fullest); a bare device's realms are\n"
            "assumed written full (SMR realms: their write pointers), --live-fraction of it\n"
            "live. The relocation cost (fixed ms per quantum, read and write MB/s) is\n"
            "calibrated with GC-like slices on a scratch emulated drive made in the store's\n"
            "(device's) directory with the drive's timing model (mbps, seek_ms), about 1 s.\n"
            "Hybrid drives exist only in the emulator.",
            1,
            1,
            {{"bound-ms", "B", "latency bound (default: the store's; required for a device)"},
             {"realms", "N", "realms to convert (default 1)"},
             {"fraction", "F", "or: this fraction of the drive's realms (rounded, >= 1)"},
             {"to", "smr|cmr", "target domain (default smr)"},
             {"drive", "D", "drive index in the store (default 0)"},
             {"pick", "least-live|most-live", "which realms (default least-live)"},
             {"live-fraction", "F", "device: live fraction of the written bytes (default 1)"},
             {"gap-ms", "G", "the store's idle wait between quanta, ms (default 5)"},
             {"load", "U", "foreground utilization in [0, 1) (default 0): commits between quanta"},
             {"record", "BYTES", "live bytes per record (default: the store's max record, 1M)"},
             {"overwrite-mbps", "X", "foreground overwrites of live data, MB/s (default 0)"},
             {"read-mbps", "X", "relocation cost given, not measured: read MB/s"},
             {"write-mbps", "X", "... write MB/s"},
             {"fixed-ms", "X", "... fixed ms per quantum"},
             {"json", "", "print JSON"}},
            CmdPlanConversion});
}

}  // namespace smr::tool
