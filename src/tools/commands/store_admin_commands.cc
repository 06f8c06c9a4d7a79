// smrstore-tool's store-level commands: mkfs, df, stats, gc, fsck, and the store form of
// `zones`. Each mounts the store (read-only where it only looks), does one thing and
// unmounts; JSON output is built with nlohmann::json (common/json.h).
#include <sys/stat.h>
#include <unistd.h>

#include <cinttypes>
#include <utility>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "device/device_spec.h"
#include "store/options_table.h"
#include "gc/victim_policy.h"
#include "device_commands.h"
#include "store_admin_commands.h"
#include "store_command_util.h"
#include "store_commands.h"

namespace smr::tool {

using namespace storecmd;  // NOLINT: this file's own helpers

// ---------------------------------------------------------------------------------------
// mkfs, df, stats, fsck

namespace {
// mkfs's named flags, each one store option (store/options.def); --opt takes any.
const std::vector<std::pair<std::string, std::string>> kMkfsOptionFlags = {
    {"inline-max", "inline_max"},
    {"max-record", "max_record_payload"},
    {"journal-with-data", "journal_with_data"},
    {"gc-read-ahead", "gc_read_ahead"},
    {"gc-free-zones-max", "gc_free_zones_max"},
    {"pack-max", "pack_max"},
    {"journal-pinned-zones-max", "journal_pinned_zones_max"},
    {"gc-policy", "gc_policy"},
};
}  // namespace

int CmdOptions(const Args& args) {
  if (args.has("markdown")) {
    std::cout << RenderOptionsMarkdown("Store options", StoreOptionSpecs());
    return kExitOk;
  }
  for (const smr::OptionSpec& s : StoreOptionSpecs()) {
    const std::string range = OptionRangeText(s);
    std::cout << s.name << " = " << s.default_text << "  ("
              << (s.scope == OptionScope::kMkfs ? "mkfs" : "mount")
              << (range.empty() ? "" : "; " + range) << ")\n    " << s.help << "\n";
  }
  return kExitOk;
}

int CmdMkfs(const Args& args) {
  const std::string& dir = args.positional()[0];
  std::vector<std::string> specs(args.positional().begin() + 1, args.positional().end());
  StoreOptions opts;
  std::set<std::string> given;
  if (Status st = ApplyStoreOptionArgs(args, kMkfsOptionFlags, /*gc_free=*/true, &opts, &given);
      !st.ok()) {
    return UsageFail("mkfs", st);
  }
  if (Status st = ValidateStoreOptions(opts); !st.ok()) return UsageFail("mkfs", st);
  // The engine creates DIR only after formatting the drives (and does not undo that when
  // it cannot), so the tool creates DIR first and removes it again if mkfs fails.
  bool made_dir = false;
  if (PathExists(dir) && !IsDir(dir)) {
    return Fail("mkfs", Status::InvalidArgument(dir + " exists and is not a directory"));
  }
  if (!PathExists(dir)) {
    if (::mkdir(dir.c_str(), 0755) != 0) return Fail("mkfs", Status::FromErrno(errno, dir));
    made_dir = true;
  }
  Status s = Store::Mkfs(dir, specs, opts, args.has("force"));
  if (!s.ok()) {
    if (made_dir) ::rmdir(dir.c_str());
    return Fail("mkfs", s);
  }
  auto store = Mount(dir);
  if (!store.ok()) return Fail("mkfs", store.status().WithContext("mount after mkfs"));
  const StoreStatfs st = (*store)->Statfs();
  std::cout << "created store " << dir << ": uuid " << StoreUuid(store->get()) << ", "
            << specs.size() << " drive" << (specs.size() == 1 ? "" : "s") << ", capacity "
            << Human(st.total) << " (" << st.total << " bytes), inline_max " << opts.inline_max
            << ", max_record " << opts.max_record_payload << "\n";
  for (size_t i = 0; i < specs.size(); ++i) {
    std::cout << "  drive " << i << ": " << specs[i] << "\n";
  }
  return Unmount("mkfs", std::move(*store));
}

int CmdDf(const Args& args) {
  auto store = MountReadOnly(args.positional()[0]);
  if (!store.ok()) return Fail("df", store.status());
  const StoreStatfs st = (*store)->Statfs();
  const StoreCounters c = (*store)->Counters();
  // "available" is what a put can really use: the largest object `put` stores now (its
  // records and their 4 KiB headers fit in Statfs().user_available, which leaves out the
  // GC reserve and a record's tail per zone); a put one byte larger is refused NoSpace.
  const StoreOptions& o = (*store)->options();
  const uint64_t available = LargestPut(st.user_available, o.max_record_payload, o.inline_max);
  // "free": free zones + room in open zones (GC reserve included); used = total - free.
  const uint64_t used = st.total >= st.available ? st.total - st.available : 0;
  if (args.has("json")) {
    const Json df = {{"total", st.total},
                     {"available", available},
                     {"free", st.available},
                     {"user_available", st.user_available},
                     {"reclaimable", st.reclaimable},
                     {"writable", st.writable},
                     {"used", used},
                     {"allocated", st.allocated},
                     {"stored", st.stored},
                     {"meta_bytes", st.meta_bytes},
                     {"available_pct", Pct(available, st.total)},
                     {"used_pct", Pct(used, st.total)},
                     {"allocated_pct", Pct(st.allocated, st.total)},
                     {"stored_pct", Pct(st.stored, st.total)},
                     {"stored_of_allocated_pct", Pct(st.stored, st.allocated)},
                     {"dead_on_mount_bytes", c.dead_on_mount_bytes}};
    std::cout << JsonText(df) << "\n";
  } else {
    auto row = [&](const char* name, uint64_t v, const std::string& note) {
      char line[160];
      std::snprintf(line, sizeof(line), "%-10s %12s %20" PRIu64 " bytes%s\n", name,
                    Human(v).c_str(), v, note.c_str());
      std::cout << line;
    };
    row("total", st.total, "");
    row("available", available,
        "  " + Fixed(Pct(available, st.total), 1) + " % (largest put now)");
    row("free", st.available, "  " + Fixed(Pct(st.available, st.total), 1) +
                                  " % (free zones + open zones' room, GC reserve incl.)");
    row("used", used, "  " + Fixed(Pct(used, st.total), 1) + " %");
    row("allocated", st.allocated, "  " + Fixed(Pct(st.allocated, st.total), 1) + " %");
    row("stored", st.stored,
        "  " + Fixed(Pct(st.stored, st.total), 1) + " % (" +
            Fixed(Pct(st.stored, st.allocated), 1) + " % of allocated)");
    row("meta", st.meta_bytes, "  (RocksDB, on flash)");
    if (c.dead_on_mount_bytes > 0) {
      row("dead", c.dead_on_mount_bytes, "  written after the last commit, found at mount");
    }
  }
  return Unmount("df", std::move(*store));
}

int CmdStats(const Args& args) {
  auto store = MountReadOnly(args.positional()[0]);
  if (!store.ok()) return Fail("stats", store.status());
  if (args.has("document")) {
    // The operator document of doc/stats-schema.md (what serve --publish sends).
    StatsDocumentOptions doc_opts;
    doc_opts.zone_maps = !args.has("compact");
    std::string name = args.get("name");
    if (name.empty()) name = std::filesystem::path(args.positional()[0]).filename().string();
    std::cout << (*store)->StatsDocument(name, doc_opts) << "\n";
    return Unmount("stats", std::move(*store));
  }
  if (args.has("json")) {
    std::cout << (*store)->StatsJson();
  } else {
    const auto kv = FlattenJson((*store)->Stats());
    size_t width = 0;
    for (const auto& [k, v] : kv) width = std::max(width, k.size());
    for (const auto& [k, v] : kv) {
      std::cout << k << std::string(width + 2 - k.size(), ' ') << v << "\n";
    }
  }
  return Unmount("stats", std::move(*store));
}

int CmdGc(const Args& args) {
  auto zones = args.number("zones", 1);
  if (!zones.ok()) return UsageFail("gc", zones.status());
  if (*zones == 0 || *zones > 1000000) {
    return UsageFail("gc", Status::InvalidArgument("--zones must be between 1 and 1000000"));
  }
  auto store = Mount(args.positional()[0]);
  if (!store.ok()) return Fail("gc", store.status());
  auto r = (*store)->RunGc(static_cast<uint32_t>(*zones));
  if (!r.ok()) {
    Unmount("gc", std::move(*store));
    return Fail("gc", r.status());
  }
  const StoreCounters c = (*store)->Counters();
  if (args.has("json")) {
    const Json gc = {{"zones_cleaned", r->zones_cleaned},
                     {"live_moved", r->live_moved},
                     {"bytes_written", r->bytes_written},
                     {"bytes_freed", r->bytes_freed},
                     {"lifetime_gc_bytes", c.lifetime_gc_bytes}};
    std::cout << JsonText(gc) << "\n";
  } else {
    std::cout << "gc: cleaned " << r->zones_cleaned << " zone(s), relocated "
              << Human(r->live_moved) << " of live data (" << Human(r->bytes_written)
              << " written), freed " << Human(r->bytes_freed) << "\n";
  }
  return Unmount("gc", std::move(*store));
}

int CmdFsck(const Args& args) {
  const bool deep = args.has("deep"), repair = args.has("repair");
  auto store = Mount(args.positional()[0], nullptr, /*read_only=*/!args.has("repair"));
  if (!store.ok()) return Fail("fsck", store.status());
  // Fsck reports no progress; on a terminal, show that it is running.
  const uint64_t to_read = deep ? (*store)->Statfs().stored : 0;
  auto ticker = std::make_unique<Ticker>(
      "fsck", deep ? "verifying " + Human(to_read) + " of records" : "checking");
  Result<FsckReport> r = (*store)->Fsck(deep, repair);
  ticker.reset();
  if (!r.ok()) return Fail("fsck", r.status());
  const FsckReport& f = *r;
  if (args.has("json")) {
    const Json report = {{"deep", deep},
                         {"repair", repair},
                         {"ok", f.ok()},
                         {"collections", f.collections},
                         {"objects", f.objects},
                         {"extents", f.extents},
                         {"records_verified", f.records_verified},
                         {"records_failed", f.records_failed},
                         {"extents_sharing_record", f.extents_sharing_record},
                         {"extents_not_read", f.extents_not_read},
                         {"errors", f.errors},
                         {"repaired", f.repaired},
                         {"lost", f.lost}};
    std::cout << JsonText(report) << "\n";
  } else {
    std::cout << "fsck" << (deep ? " --deep" : "") << (repair ? " --repair" : "") << ": "
              << f.collections << " collections, " << f.objects << " objects, " << f.extents
              << " extents";
    if (deep) {
      // Every extent once: its record verified, or failed, or verified through another
      // extent of the same record, or not read (FsckReport).
      std::cout << ", " << f.records_verified << " records verified (+"
                << f.extents_sharing_record << " extents sharing a verified record, "
                << f.records_failed << " failed, " << f.extents_not_read << " not read)";
    }
    std::cout << "\n";
    for (const std::string& e : f.errors) std::cout << "error: " << P(e) << "\n";
    for (const std::string& e : f.repaired) std::cout << "repaired: " << P(e) << "\n";
    for (const std::string& e : f.lost) std::cout << "lost: " << P(e) << "\n";
    std::cout << (f.ok() ? "clean" : std::to_string(f.errors.size()) + " errors") << "\n";
    if (!f.lost.empty()) std::cout << f.lost.size() << " objects lost\n";
  }
  std::cout.flush();
  const int rc = Unmount("fsck", std::move(*store));
  if (rc != 0) return rc;
  if (!f.ok()) {
    return Fail("fsck", Status::Corruption(std::to_string(f.errors.size()) +
                                           " errors remain (listed on stdout)"));
  }
  return 0;
}

// ---------------------------------------------------------------------------------------
// zones STORE

bool IsStoreTarget(const std::string& target) {
  if (target.rfind("emu:", 0) == 0 || target.rfind("zbd:", 0) == 0) return false;
  return IsDir(target);
}

int CmdStoreZones(const Args& args) {
  const std::string& dir = args.positional()[0];
  auto first = args.number("zone", 0);
  auto count = args.number("count", 0);
  if (!first.ok()) return UsageFail("zones", first.status());
  if (!count.ok()) return UsageFail("zones", count.status());
  // The store owns its drives (and locks them); the opener lets the tool see them.
  std::vector<std::pair<std::string, ZonedDevice*>> drives;
  auto opener = [&drives](const std::string& spec) -> Result<std::unique_ptr<ZonedDevice>> {
    auto dev = OpenDevice(spec);
    if (dev.ok()) drives.emplace_back(spec, dev->get());
    return dev;
  };
  auto store = Mount(dir, opener);
  if (!store.ok()) return Fail("zones", store.status());
  const bool json = args.has("json");
  const Json stats = (*store)->Stats();
  const std::string uuid = stats.at("store").at("uuid").get<std::string>();
  std::ostringstream out;
  Json doc;
  if (json) {
    doc["store"] = {{"dir", dir}, {"uuid", uuid}, {"zone_states", stats.at("zones")}};
    doc["drives"] = Json::array();
  } else {
    out << "store " << P(dir) << ": uuid " << uuid << ", "
        << drives.size() << " drive" << (drives.size() == 1 ? "" : "s") << "\n";
    out << "store zone states (all drives):";
    for (const auto& [k, v] : stats.at("zones").items()) out << " " << k << "=" << v.dump();
    out << "\n";
  }
  for (size_t i = 0; i < drives.size(); ++i) {
    if (json) {
      auto drive = ZoneReportJson(drives[i].first, drives[i].second, *first, *count);
      if (!drive.ok()) return Fail("zones", drive.status().WithContext(drives[i].first));
      doc["drives"].push_back(std::move(*drive));
      continue;
    }
    auto report = ZoneReport(drives[i].first, drives[i].second, *first, *count, false);
    if (!report.ok()) return Fail("zones", report.status().WithContext(drives[i].first));
    out << "\ndrive " << i << " (" << drives[i].first << ")\n" << *report;
  }
  if (json) out << doc.dump(1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace) << "\n";
  std::cout << out.str();
  return Unmount("zones", std::move(*store));
}

}  // namespace smr::tool
